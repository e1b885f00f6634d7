"""Disk blocks kept ahead for SQLite's ``-shm`` and ``-wal``, so that a full disk can neither
kill the process (SIGBUS) nor keep the end of a run from being stored.

SQLite maps its ``-shm`` file (the index of the write-ahead log) into memory and grows it by
writing one byte per 4 KiB. On a file system with smaller blocks (``mkfs.ext4`` picks 1 KiB
below 512 MB) the rest of each 4 KiB is a hole; when SQLite then touches it and the disk is
full, the kernel cannot back the page and kills the process with SIGBUS, whatever it was
doing (``runs list`` included). And on a full disk not even the few pages that say how a run
ended can be appended to the ``-wal``.

Both are answered by allocating the blocks ahead with ``fallocate(FALLOC_FL_KEEP_SIZE)``,
which changes no file's size or content: the ``-shm`` whole and a few regions beyond, and a
margin past the ``-wal``'s end. It is done through SQLite's own descriptors, found in
``/proc/self/fd``: a descriptor of our own could never be closed, since closing any
descriptor of a file drops every POSIX lock this process holds on it (SQLite's own among
them). Should another thread have reused such a descriptor in the meantime, KEEP_SIZE still
changes nothing in the file it then names.
"""

from __future__ import annotations

import errno
import functools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

FALLOC_FL_KEEP_SIZE = 1
SQLITE_SHM_STRIDE = 4096  # SQLite writes one byte per 4 KiB of a new -shm region
SHM_REGION = 32 * 1024  # the -shm grows by regions of 32 KiB (4,062 WAL frames each)
SHM_AHEAD = 4 * SHM_REGION
# Past the -wal's end: room to store how a run, suite or campaign ended (a few pages of the
# runs table and its indexes, the suite's row, notes: about 25 pages of 4 KiB measured).
WAL_AHEAD = 256 * 1024


def shm_needs_backing(block_size: int) -> bool:
    """SQLite's one byte per 4 KiB leaves holes in the -shm on this file system."""
    return 0 < block_size < SQLITE_SHM_STRIDE


def back_shm(library: Path) -> bool:
    """Allocate every block of the library's ``-shm`` and ``SHM_AHEAD`` more; False when the
    disk has no room for them (the process must then not use the -shm)."""
    shm = _sibling(library, "-shm")
    try:
        st = os.stat(shm)
    except OSError:
        return True  # no -shm: the WAL index lives in this process's memory
    want = -(-st.st_size // SHM_REGION) * SHM_REGION + SHM_AHEAD
    if st.st_blocks * 512 >= want:
        return True
    return _allocate(shm, 0, want)


def shm_backed(library: Path) -> bool:
    """The library's ``-shm`` exists and every block of it is allocated (no hole to fault
    on): another Pairbench has backed it."""
    try:
        st = os.stat(_sibling(library, "-shm"))
    except OSError:
        return False
    return st.st_size > 0 and st.st_blocks * 512 >= st.st_size


def keep_wal_margin(library: Path) -> bool:
    """Keep ``WAL_AHEAD`` allocated past the end of the library's ``-wal``; False when the
    disk has no room for it."""
    wal = _sibling(library, "-wal")
    try:
        st = os.stat(wal)
    except OSError:
        return True
    if st.st_blocks * 512 - st.st_size >= WAL_AHEAD * 3 // 4:
        return True
    return _allocate(wal, st.st_size, WAL_AHEAD)


def _sibling(library: Path, suffix: str) -> str:
    """SQLite's name for the library's -shm or -wal (it resolves symbolic links first)."""
    return os.path.realpath(library) + suffix


def _allocate(path: str, offset: int, length: int) -> bool:
    """fallocate(KEEP_SIZE) through each of SQLite's descriptors of ``path``."""
    fallocate = _fallocate()
    if fallocate is None:
        return True
    for fd in _descriptors_of(path):
        failed = fallocate(fd, FALLOC_FL_KEEP_SIZE, offset, length)
        if failed == errno.ENOSPC or failed == errno.EDQUOT:
            return False
        if failed in (0, errno.EOPNOTSUPP, errno.ENOSYS):  # done, or not this file system
            return True
    return True


def _descriptors_of(path: str) -> Iterator[int]:
    """This process's descriptors open on ``path`` (SQLite's)."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return
    for name in names:
        try:
            if os.readlink(f"/proc/self/fd/{name}") == path:
                yield int(name)
        except (OSError, ValueError):
            continue


@functools.cache
def _fallocate() -> Callable[[int, int, int, int], int] | None:
    """fallocate(2) from the C library, returning 0 or the errno; None where there is none."""
    import ctypes  # here: only a library on a small-block file system or a recording needs it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        call = libc.fallocate64
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    call.restype = ctypes.c_int

    def fallocate(fd: int, mode: int, offset: int, length: int) -> int:
        if call(fd, mode, offset, length) == 0:
            return 0
        return ctypes.get_errno() or errno.EIO

    return fallocate
