"""The library as the front ends see it: open, check and locate it (the store stays in library/)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pairbench.domain.failures import LibraryFullError as LibraryFullError
from pairbench.library import IntegrityReport as IntegrityReport
from pairbench.library import Library as Library
from pairbench.library import LibraryDamagedError as LibraryDamagedError
from pairbench.library import LibraryError as LibraryError
from pairbench.library import connection as _store

__all__ = [
    "IntegrityReport",
    "Library",
    "LibraryDamagedError",
    "LibraryError",
    "LibraryFullError",
    "check_library_file",
    "default_library_path",
    "disk_full",
    "open_library",
    "storage_failure",
]


def default_library_path(environ: Mapping[str, str] | None = None) -> Path:
    """``PAIRBENCH_LIBRARY`` if set (in ``environ``, else the process's environment), else
    ``library.sqlite`` in the user's data directory."""
    return _store.default_library_path(environ)


def open_library(path: Path | str) -> Library:
    """Open (or create) the library at ``path``, migrating and repairing it as needed.

    What the opening repaired is in the library's ``warnings`` (for the user to read);
    ``LibraryError`` (``LibraryDamagedError`` for a damaged file) when it cannot be used.
    """
    return Library.open(path)


def check_library_file(path: Path | str) -> IntegrityReport:
    """SQLite's full check of every page of an existing library; writes nothing.

    ``LibraryError`` for a path that is not a Pairbench library at all.
    """
    return _store.check_library_file(path)


def disk_full(path: Path | str) -> LibraryFullError | None:
    """The failure saying that the disk holding the library at ``path`` is full, if it is."""
    from pairbench.library.disk import disk_room

    try:
        room = disk_room(Path(path).expanduser())
    except OSError:
        return None
    return (
        room.error(Path(path), "the library can be read; nothing can be stored in it")
        if room.full
        else None
    )


def storage_failure(exc: BaseException, path: Path) -> Exception | None:
    """The one-line failure for an SQLite error that reached a front end: the library's disk
    full (``LibraryFullError``) or failing (``LibraryError``); None for anything else."""
    from pairbench.library.disk import disk_room, is_full, is_io_error, is_refused_write

    if is_full(exc):
        return _store.full_error(path, "the change was not stored")
    if is_refused_write(exc):  # a library opened on a full disk reads only
        try:
            room = disk_room(path)
        except OSError:
            return None
        return room.error(path, "the change was not stored") if room.full else None
    if is_io_error(exc):
        return LibraryError(
            f"library {path}: the file system reported an I/O error ({exc}); the change was "
            "not stored. Check the disk (dmesg), then `pairbench library check`"
        )
    return None
