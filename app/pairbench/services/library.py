"""The library as the front ends see it: open, check and locate it (the store stays in library/)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

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
    "check_library_file",
    "default_library_path",
    "open_library",
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
