"""The run library: one SQLite file holding hosts, pairs, runs, their series and raw output."""

from pairbench.library.connection import (
    Library,
    LibraryDamagedError,
    LibraryError,
    check_library_file,
    default_library_path,
)
from pairbench.library.integrity import IntegrityReport
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
