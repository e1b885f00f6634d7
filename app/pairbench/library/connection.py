"""Opening a library file safely: identify it through SQLite, refuse what is not ours, migrate."""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path

from pairbench.domain.failures import LibraryFullError
from pairbench.library.attach import attach
from pairbench.library.closing import ClosedOnExit
from pairbench.library.disk import (
    FULL_BELOW,
    DiskRoom,
    disk_room,
    free_bytes,
    is_full,
    is_io_error,
    is_refused_write,
)
from pairbench.library.integrity import IntegrityReport, fast_check, full_check
from pairbench.library.migrations import APPLICATION_ID, SCHEMA_VERSION, migrate
from pairbench.library.ownership import recover_orphaned_runs
from pairbench.library.progress import ProgressJournal
from pairbench.library.reserve import back_shm, keep_wal_margin

_NOT_OURS = "choose another file with --library or PAIRBENCH_LIBRARY"


class LibraryError(Exception):
    """The library file cannot be used; the message says why and what to do."""


class LibraryDamagedError(LibraryError):
    """SQLite's own check found the file damaged; nothing was written to it."""

    def __init__(self, path: Path, report: IntegrityReport) -> None:
        self.path = path
        self.report = report
        super().__init__(
            f"library {path} is damaged ({report.summary()}); Pairbench did not write to it. "
            f"Restore it from a backup, or salvage what is readable with "
            f"`sqlite3 {path} .recover | sqlite3 NEW.sqlite`; "
            f"`pairbench --library {path} library check` lists the problems"
        )


def default_library_path(environ: Mapping[str, str] | None = None) -> Path:
    """``PAIRBENCH_LIBRARY`` if set, else ``library.sqlite`` in the user's data directory."""
    env = (os.environ if environ is None else environ).get("PAIRBENCH_LIBRARY")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("pairbench", appauthor=False)) / "library.sqlite"


class Library(ClosedOnExit):
    """An open library: one SQLite connection, owned by the thread that opened it.

    Open one ``Library`` per thread (the engine thread and the GUI thread each have their
    own); WAL mode lets them read while the other writes. ``warnings`` holds what the open
    found and repaired (runs interrupted by a dead process, samples lost with a deleted WAL):
    the CLI prints them, the window shows them. ``full`` is set (and said by the CLI) when
    the library's disk was full at the opening: the library is then open for reading only.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn
        self.warnings: list[str] = []
        self.full: LibraryFullError | None = None
        self._backs_shm = False
        self._whole: IntegrityReport | None = None

    def ensure_whole(self) -> None:
        """Before a run, suite or campaign is written: room on the disk (``LibraryFullError``
        when it is full: ``ensure_room``), SQLite's check of every page (once: a damaged file raises
        ``LibraryDamagedError``, and nothing more is written into it), then room kept ahead
        to store how it ends (``keep_room``).
        """
        self.ensure_room(0)
        if self._whole is None:
            self._whole = full_check(self.conn)
        if not self._whole.ok:
            raise LibraryDamagedError(self.path, self._whole)
        self.keep_room()

    def full_error(self, kept: str = "") -> LibraryFullError:
        """The failure saying that the library's disk is full (as it is now)."""
        return full_error(self.path, kept)

    @contextlib.contextmanager
    def disk_errors(self, kept: str = "") -> Iterator[None]:
        """Within: SQLite's "database or disk is full" (or a write refused because the
        library was opened full) raised as ``LibraryFullError``, saying ``kept``."""
        try:
            yield
        except sqlite3.Error as exc:
            if is_full(exc) or (self.full is not None and is_refused_write(exc)):
                raise self.full_error(kept) from exc
            raise

    def ensure_room(self, nbytes: int) -> None:
        """``LibraryFullError`` when storing about ``nbytes`` more would leave the library's
        disk with less than ``FULL_BELOW`` free (counted twice: SQLite writes them to the
        write-ahead log, then copies them into the file). What records stops there, so the
        room kept past the -wal (``keep_room``) is left to store how the run ended."""
        if self.full is not None:
            raise self.full
        try:
            free = free_bytes(self.path)
        except OSError:
            return
        if free < FULL_BELOW + 2 * nbytes:
            raise self.full_error()

    def keep_room(self) -> None:
        """Keep disk blocks ahead for SQLite's files (``library.reserve``), so that a disk
        filling up later cannot kill this process and the end of a run can still be stored.
        Called by what records; a failure is left for the next write to meet."""
        if self.full is None:
            keep_wal_margin(self.path)
            if self._backs_shm:
                back_shm(self.path)

    @property
    def progress(self) -> ProgressJournal:
        """The journal of committed samples per recording run, kept beside the file."""
        return ProgressJournal.beside(self.path)

    @classmethod
    def open(cls, path: Path | str, *, recover: bool = True, check: bool = True) -> Library:
        """Open or create the library at ``path``.

        The file is never opened outside SQLite: reading it with ``open()`` would drop the
        POSIX locks that this process's other connections hold on it, and another program
        would then checkpoint and delete the write-ahead log under them. A file that is not a
        Pairbench library (random bytes, an empty file, another SQLite database, a read-only
        or locked file, a newer schema) raises ``LibraryError`` and is not modified; a damaged
        one raises ``LibraryDamagedError`` (``check``: SQLite's quick check of the small
        tables, a few milliseconds; ``library check`` reads every page). Runs left
        ``running`` by a process that died are marked ``interrupted``.
        """
        path = Path(path).expanduser()
        if _check_path(path):
            _create(path)
        conn: sqlite3.Connection | None = None
        try:
            attached = attach(path, lambda c: _check_identity(c, path))
            conn = attached.conn
            if check:
                report = fast_check(conn)
                if not report.ok:
                    raise LibraryDamagedError(path, report)
            conn.execute("PRAGMA foreign_keys = ON")
            library = cls(path, conn)
            library._backs_shm = attached.backs_shm
            if attached.full and attached.room is not None:
                return _opened_full(library, attached.room)
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise LibraryError(f"library {path}: cannot switch to WAL mode (got {mode})")
            conn.execute("PRAGMA synchronous = NORMAL")
            # WAL lets readers past another program's write lock: take the lock once so a
            # library held locked is refused here rather than at the first write of a run.
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("COMMIT")
            migrate(conn)
            if recover:
                library.warnings.extend(recover_orphaned_runs(conn, library.progress))
                from pairbench.library.hosts import reserved_name_problems  # (imports this)

                library.warnings.extend(reserved_name_problems(library))
            return library
        except (LibraryError, LibraryFullError):
            if conn is not None:
                conn.close()
            raise
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            raise _failure(path, exc) from exc
        except BaseException:
            if conn is not None:
                conn.close()
            raise

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self.conn.close()


def check_library_file(path: Path | str) -> IntegrityReport:
    """SQLite's full check of every page of an existing library; writes nothing.

    Raises ``LibraryError`` for a path that is not a Pairbench library at all.
    """
    path = Path(path).expanduser()
    if _check_path(path):
        raise LibraryError(f"there is no library at {path}")
    try:
        conn = attach(path, lambda c: _check_identity(c, path), read_only=True).conn
    except sqlite3.Error as exc:
        raise _failure(path, exc) from exc
    try:
        return full_check(conn)
    except sqlite3.Error as exc:
        raise _failure(path, exc) from exc
    finally:
        conn.close()


def _opened_full(library: Library, room: DiskRoom) -> Library:
    """A library opened on a full disk: for reading only, and said so."""
    version = int(library.conn.execute("PRAGMA user_version").fetchone()[0])
    if version < SCHEMA_VERSION:
        raise room.error(
            library.path, "this Pairbench must first upgrade the library, which needs room"
        )
    library.full = room.error(
        library.path, "the library is open for reading only: nothing can be stored in it"
    )
    return library


def _failure(path: Path, exc: sqlite3.Error) -> Exception:
    """The error to report for an SQLite error met while opening or checking a library:
    a full disk and an I/O error are told apart from a file that is not a library."""
    if is_full(exc):
        return full_error(path, "nothing in it was changed")
    if is_io_error(exc):
        room = _room_now(path)
        if room is not None and room.full:
            return room.error(path, "nothing in it was changed")
        name = getattr(exc, "sqlite_errorname", "") or "SQLITE_IOERR"
        return LibraryError(
            f"cannot read library {path}: the file system reported an I/O error ({name}); "
            "the library is not necessarily damaged: check the disk (dmesg), then try again"
        )
    if isinstance(exc, sqlite3.OperationalError):
        if "locked" in str(exc) or "busy" in str(exc):
            return LibraryError(
                f"library {path} is locked by another program; close it and try again"
            )
        return LibraryError(f"library {path}: {exc}")
    if isinstance(exc, sqlite3.DatabaseError):
        return _foreign(path, exc)
    return LibraryError(f"cannot open library {path}: {exc}")


def _room_now(path: Path) -> DiskRoom | None:
    try:
        return disk_room(path)
    except OSError:
        return None


def full_error(path: Path, kept: str) -> LibraryFullError:
    """The failure saying that the disk of the library at ``path`` is full (as it is now)."""
    room = _room_now(path)
    if room is None:
        return LibraryFullError(str(path), str(path.parent), "", 0, kept)
    return room.error(path, kept)


def _check_path(path: Path) -> bool:
    """Return True when the library must be created; raise if the path cannot be ours.

    Only ``stat`` is used here (it takes no lock and drops none); the content is read by
    SQLite alone.
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LibraryError(f"cannot create the folder for library {path}: {exc}") from exc
        return True
    except OSError as exc:
        raise LibraryError(f"cannot use library {path}: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise LibraryError(f"library path {path} is not a file")
    # Root may write anywhere; a file without write bits still says "leave me alone".
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(
        path, os.W_OK
    ):
        raise LibraryError(f"library {path} is read-only; make it writable or choose another file")
    if st.st_size == 0:
        raise LibraryError(
            f"{path} is an empty file, not a Pairbench library (Pairbench creates its "
            f"libraries whole); delete it to let Pairbench create one there, or {_NOT_OURS}"
        )
    return False


def _create(path: Path) -> None:
    """Create a library at ``path`` atomically: built whole under a temporary name, then
    linked into place, so a file at ``path`` is either a complete, marked library or not
    ours. Losing the race to another process creating the same library is fine."""
    import secrets  # here: only a new library needs it (CLI start time)

    room = _room_now(path)
    if room is not None and room.full:
        raise room.error(path, "no library was created there")
    temp = path.with_name(f".{path.name}.creating-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        conn = sqlite3.connect(temp, isolation_level=None)
        try:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            migrate(conn)
            conn.execute("PRAGMA journal_mode = WAL")
        finally:
            conn.close()
        with contextlib.suppress(FileExistsError):
            os.link(temp, path)
    except (OSError, sqlite3.Error) as exc:
        if is_full(exc) or getattr(exc, "errno", None) in (errno.ENOSPC, errno.EDQUOT):
            raise full_error(path, "no library was created there") from exc
        raise LibraryError(f"cannot create library {path}: {exc}") from exc
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{temp}{suffix}")


def _check_identity(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse an SQLite file that another program made, or a newer Pairbench schema."""
    app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if app_id != APPLICATION_ID:
        raise LibraryError(
            f"{path} is an SQLite database of another program, not a Pairbench library; {_NOT_OURS}"
        )
    if version > SCHEMA_VERSION:
        raise LibraryError(
            f"library {path} has schema version {version}, newer than this Pairbench "
            f"understands ({SCHEMA_VERSION}); upgrade Pairbench"
        )


def _foreign(path: Path, exc: sqlite3.DatabaseError) -> LibraryError:
    """The error for a file SQLite cannot read as a database."""
    if "not a database" in str(exc):
        return LibraryError(f"{path} is not a Pairbench library (not an SQLite file); {_NOT_OURS}")
    return LibraryError(f"{path} is not a Pairbench library ({exc}); {_NOT_OURS}")


@contextlib.contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction (``BEGIN IMMEDIATE``): all of it is committed, or none of it."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (disk full)
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
