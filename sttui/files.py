"""Reading a file someone named (an export, a token file, a ratings or gold file): a regular
file only, opened without waiting (a FIFO with no writer would block ``open`` itself, and
/dev/zero would never end), and no more than its kind may hold. Each caller words the
refusal for its kind of file."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO


class NotRegular(ValueError):
    """A device, a pipe or a folder where a file was named."""


class TooBig(ValueError):
    """More bytes than this kind of file may hold."""


def read_bounded(path: Path | str, max_bytes: int) -> bytes:
    """The file's bytes; NotRegular, TooBig, or OSError (it cannot be opened or read)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise NotRegular("not a regular file")
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise TooBig(f"more than {max_bytes:,} bytes")
    return data


def open_bounded(path: Path | str, max_bytes: int) -> BinaryIO:
    """The file open for reading a part at a time, after the same checks (its size by the
    file system; a reader counts what it reads, as the file may grow): NotRegular, TooBig or
    OSError. The caller closes it."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    f = os.fdopen(fd, "rb")
    try:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular("not a regular file")
        if st.st_size > max_bytes:
            raise TooBig(f"more than {max_bytes:,} bytes")
    except BaseException:
        f.close()
        raise
    return f
