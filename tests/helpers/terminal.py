"""Run ``sttui`` as a person at a terminal would: its output to a pseudo-terminal of a given
size, read back whole."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios


def in_a_terminal(args: list[str], env: dict[str, str], columns: int = 80, rows: int = 24) -> tuple[int, str]:
    """(exit status, what ``python -m sttui ARGS`` wrote to stdout and stderr), both on a
    terminal ``columns`` wide; line ends as ``\\n``."""
    main_fd, child_fd = pty.openpty()
    fcntl.ioctl(child_fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    child = subprocess.Popen([sys.executable, "-m", "sttui", *args], stdout=child_fd, stderr=child_fd, env=env)
    os.close(child_fd)
    chunks = []
    while True:
        try:
            data = os.read(main_fd, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(main_fd)
    return child.wait(timeout=120), b"".join(chunks).decode().replace("\r\n", "\n")
