from sttui.cli import main

main()
