"""Connecting to a library file on its disk: SQLite's ``-shm`` backed by disk blocks, or, when
the disk is full, no ``-shm`` at all (the write-ahead log's index kept in this process's
memory, the connection reading only), so that no command dies of SIGBUS on a full disk."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pairbench.library.disk import DiskRoom, disk_room
from pairbench.library.reserve import back_shm, shm_backed, shm_needs_backing

BUSY_TIMEOUT_S = 2.0
EXCLUSIVE_WAIT_MS = 200  # for the exclusive lock of a full disk's open, then another way


@dataclass(frozen=True, slots=True)
class Attached:
    """A connection whose first read is done; ``room`` is its disk's (None when it cannot be
    read), ``full`` says the disk was full: the connection then reads only."""

    conn: sqlite3.Connection
    room: DiskRoom | None
    full: bool

    @property
    def backs_shm(self) -> bool:
        """SQLite leaves holes in this disk's -shm files: they are allocated ahead."""
        return not self.full and self.room is not None and shm_needs_backing(self.room.block_size)


def attach(
    path: Path, first_read: Callable[[sqlite3.Connection], None], *, read_only: bool = False
) -> Attached:
    """Connect to the library at ``path`` and run ``first_read`` (SQLite maps its -shm then).

    With room on the disk, the -shm is allocated whole (``reserve.back_shm``). On a full disk
    the connection takes SQLite's exclusive locking mode, which keeps the WAL index in memory
    (no -shm to map), and reads only (``query_only``); if another program has the library
    open, its -shm is shared when fully allocated (another Pairbench's), else the full disk
    is reported (``LibraryFullError``). ``read_only`` opens with ``mode=ro`` when it can.
    """
    room = _room(path)
    if room is None or not room.full:
        conn = _first(path, first_read, read_only=read_only, memory_index=False)
        if room is None or not shm_needs_backing(room.block_size) or back_shm(path):
            return Attached(conn, room, full=False)
        conn.close()  # the disk filled since it was looked at: this process maps no -shm
        room = _room(path) or room
    try:
        conn = _first(path, first_read, read_only=False, memory_index=True)
    except sqlite3.OperationalError as exc:
        if not _busy(exc):
            raise
        if not shm_backed(path):
            raise room.error(
                path, "another program has the library open: close it to read the library here"
            ) from None
        conn = _first(path, first_read, read_only=read_only, memory_index=False)
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    conn.execute("PRAGMA query_only = ON")
    return Attached(conn, room, full=True)


def connect(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """An SQLite connection to ``path`` in autocommit mode (``mode=ro`` if ``read_only``)."""
    if read_only:
        uri = f"{path.resolve().as_uri()}?mode=ro"
        return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    return sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
    )


def _first(
    path: Path,
    first_read: Callable[[sqlite3.Connection], None],
    *,
    read_only: bool,
    memory_index: bool,
) -> sqlite3.Connection:
    conn = connect(path, read_only=read_only)
    try:
        if memory_index:  # a program that holds the library open is told apart at once
            conn.execute(f"PRAGMA busy_timeout = {EXCLUSIVE_WAIT_MS}")
            conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        first_read(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _room(path: Path) -> DiskRoom | None:
    try:
        return disk_room(path)
    except OSError:
        return None


def _busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
