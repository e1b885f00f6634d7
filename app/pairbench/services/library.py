"""The library as the front ends see it: open, check and locate it (the store stays in library/)."""

from pairbench.library import (
    IntegrityReport,
    Library,
    LibraryDamagedError,
    LibraryError,
    check_library_file,
    default_library_path,
)

__all__ = [
    "IntegrityReport",
    "Library",
    "LibraryDamagedError",
    "LibraryError",
    "check_library_file",
    "default_library_path",
]
