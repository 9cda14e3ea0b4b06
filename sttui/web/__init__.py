"""The workbench in a browser (``sttui serve``): textual-serve behind a token, one app process
per browser session, each started with only the environment it needs."""
