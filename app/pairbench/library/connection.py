"""Opening a library file safely: identify it, refuse what is not ours, migrate, recover."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

from pairbench.library.migrations import APPLICATION_ID, SCHEMA_VERSION, migrate
from pairbench.library.ownership import recover_orphaned_runs

BUSY_TIMEOUT_S = 2.0


class LibraryError(Exception):
    """The library file cannot be used; the message says why and what to do."""


def default_library_path(environ: Mapping[str, str] | None = None) -> Path:
    """``PAIRBENCH_LIBRARY`` if set, else ``library.sqlite`` in the user's data directory."""
    env = (os.environ if environ is None else environ).get("PAIRBENCH_LIBRARY")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("pairbench", appauthor=False)) / "library.sqlite"


class Library:
    """An open library: one SQLite connection, owned by the thread that opened it.

    Open one ``Library`` per thread (the engine thread and the GUI thread each have their
    own); WAL mode lets them read while the other writes.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn

    @classmethod
    def open(cls, path: Path | str, *, recover: bool = True) -> Library:
        """Open or create the library at ``path``.

        A file that is not a Pairbench library (random bytes, another SQLite database, a
        read-only or locked file, a newer schema) raises ``LibraryError`` and is not modified.
        Runs left ``running`` by a process that died are marked ``interrupted``.
        """
        path = Path(path).expanduser()
        is_new = _check_file(path)
        try:
            conn = sqlite3.connect(
                path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise LibraryError(f"cannot open library {path}: {exc}") from exc
        try:
            if not is_new:
                _check_identity(conn, path)
            conn.execute("PRAGMA foreign_keys = ON")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise LibraryError(f"library {path}: cannot switch to WAL mode (got {mode})")
            conn.execute("PRAGMA synchronous = NORMAL")
            # WAL lets readers past another program's write lock: take the lock once so a
            # library held locked is refused here rather than at the first write of a run.
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("COMMIT")
            migrate(conn)
            library = cls(path, conn)
            if recover:
                recover_orphaned_runs(conn)
            return library
        except sqlite3.OperationalError as exc:
            conn.close()
            if "locked" in str(exc) or "busy" in str(exc):
                raise LibraryError(
                    f"library {path} is locked by another program; close it and try again"
                ) from exc
            raise LibraryError(f"library {path}: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise LibraryError(
                f"{path} is not a Pairbench library ({exc}); "
                "choose another file with --library or PAIRBENCH_LIBRARY"
            ) from exc
        except BaseException:
            conn.close()
            raise

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self.conn.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _check_file(path: Path) -> bool:
    """Return True when the library must be created; raise if the path cannot be ours."""
    if not path.exists():
        if not path.parent.exists():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise LibraryError(f"cannot create the folder for library {path}: {exc}") from exc
        return True
    if not path.is_file():
        raise LibraryError(f"library path {path} is not a file")
    mode = path.stat().st_mode
    # Root may write anywhere; a file without write bits still says "leave me alone".
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise LibraryError(f"library {path} is read-only; make it writable or choose another file")
    if path.stat().st_size == 0:
        return True
    with path.open("rb") as handle:
        header = handle.read(16)
    if header != b"SQLite format 3\x00":
        raise LibraryError(
            f"{path} is not a Pairbench library (not an SQLite file); "
            "choose another file with --library or PAIRBENCH_LIBRARY"
        )
    return False


def _check_identity(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse an SQLite file that another program made, or a newer Pairbench schema."""
    app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if app_id == 0 and version == 0 and _holds_nothing(conn):
        # A library whose creation stopped before its first migration committed (the switch
        # to WAL already wrote the header): nothing in it to protect, so it is initialised.
        return
    if app_id != APPLICATION_ID:
        raise LibraryError(
            f"{path} is an SQLite database of another program, not a Pairbench library; "
            "choose another file with --library or PAIRBENCH_LIBRARY"
        )
    if version > SCHEMA_VERSION:
        raise LibraryError(
            f"library {path} has schema version {version}, newer than this Pairbench "
            f"understands ({SCHEMA_VERSION}); upgrade Pairbench"
        )


def _holds_nothing(conn: sqlite3.Connection) -> bool:
    """True for an SQLite file without a single table, index, view or trigger."""
    return conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is None
