"""The run library: one SQLite file holding hosts, pairs, runs, their series and raw output.

Its ``team`` subpackage is the other store: the team library on a PostgreSQL server (psycopg
is imported there and nowhere else).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pairbench.library.connection import (
    Library,
    LibraryDamagedError,
    LibraryError,
    check_library_file,
    default_library_path,
)
from pairbench.library.integrity import IntegrityReport

if TYPE_CHECKING:
    from pairbench.library.recorder import Recorder

__all__ = [
    "IntegrityReport",
    "Library",
    "LibraryDamagedError",
    "LibraryError",
    "Recorder",
    "check_library_file",
    "default_library_path",
]


def __getattr__(name: str) -> Any:
    """``Recorder`` on first use: it needs numpy, which listing runs does not (CLI start)."""
    if name == "Recorder":
        from pairbench.library.recorder import Recorder

        return Recorder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
