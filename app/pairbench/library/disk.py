"""The file system holding a library: which one it is, how much room it has, and whether an
SQLite error means that it is full (or failing) rather than that the file is not a library."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from pairbench.domain.failures import LibraryFullError

# With less room than this on its file system, a library is "full": it is opened for reading
# only (SQLite's index of the write-ahead log kept in this process's memory, not in a -shm
# file on the disk; see library/reserve.py), and nothing is stored until there is room.
FULL_BELOW = 1 << 20


@dataclass(frozen=True, slots=True)
class DiskRoom:
    """The file system holding a folder: bytes free (for users other than root: what ``df``
    calls available) and its block size; its name (mount point, type, device) is looked up
    when a failure needs it."""

    folder: Path
    free: int
    block_size: int

    @property
    def full(self) -> bool:
        """Too little room left to store anything in a library."""
        return self.free < FULL_BELOW

    def name(self) -> tuple[str, str]:
        """(mount point, "ext4 on /dev/loop3") as ``/proc/self/mountinfo`` has them."""
        mount, fstype, source = _mount_of(self.folder)
        if fstype and source:
            return mount, f"{fstype} on {source}"
        return mount, fstype or source

    def error(self, library: Path, kept: str = "") -> LibraryFullError:
        """The failure that says this file system is full."""
        mount, detail = self.name()
        return LibraryFullError(str(library), mount, detail, self.free, kept)


def disk_room(library: Path) -> DiskRoom:
    """The file system of the folder holding ``library`` (``OSError`` if it cannot be read)."""
    folder = Path(os.path.realpath(library)).parent
    vfs = os.statvfs(folder)
    return DiskRoom(folder, vfs.f_bavail * vfs.f_frsize, vfs.f_frsize)


def free_bytes(library: Path) -> int:
    """Bytes free for users other than root on the file system holding ``library`` (what
    ``df`` calls available; ``OSError`` if it cannot be read)."""
    vfs = os.statvfs(Path(os.path.realpath(library)).parent)
    return vfs.f_bavail * vfs.f_frsize


def _mount_of(folder: Path) -> tuple[str, str, str]:
    """(mount point, type, device) of the mount holding ``folder``: the longest mount point
    of its device in ``/proc/self/mountinfo`` that contains it; the folder itself, else."""
    try:
        dev = os.stat(folder).st_dev
    except OSError:
        return str(folder), "", ""
    wanted = f"{os.major(dev)}:{os.minor(dev)}"
    best = (str(folder), "", "")
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as info:
            lines = info.read().splitlines()
    except OSError:
        return best
    length = -1
    for line in lines:
        fields = line.split(" - ", 1)
        head = fields[0].split()
        tail = fields[1].split() if len(fields) == 2 else []
        if len(head) < 5 or head[2] != wanted:
            continue
        point = _unescape(head[4])
        inside = point == "/" or str(folder) == point or str(folder).startswith(point + "/")
        if inside and len(point) > length:
            length = len(point)
            best = (point, tail[0] if tail else "", _unescape(tail[1]) if len(tail) > 1 else "")
    return best


def _unescape(text: str) -> str:
    """mountinfo's octal escapes (``\\040`` for a space) undone."""
    if "\\" not in text:
        return text
    return text.encode().decode("unicode_escape").encode("latin-1").decode(errors="replace")


def is_full(exc: BaseException) -> bool:
    """SQLite said the disk (or the file, at its size limit) is full."""
    return isinstance(exc, sqlite3.Error) and _primary(exc) == sqlite3.SQLITE_FULL


def is_io_error(exc: BaseException) -> bool:
    """SQLite could not read or write the file system (``disk I/O error``)."""
    return isinstance(exc, sqlite3.Error) and _primary(exc) == sqlite3.SQLITE_IOERR


def is_refused_write(exc: BaseException) -> bool:
    """A write refused by a connection opened for reading only."""
    return isinstance(exc, sqlite3.Error) and _primary(exc) == sqlite3.SQLITE_READONLY


def _primary(exc: sqlite3.Error) -> int:
    code = getattr(exc, "sqlite_errorcode", None)
    return int(code) & 0xFF if isinstance(code, int) else -1
