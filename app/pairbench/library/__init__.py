"""The run library: one SQLite file holding hosts, pairs, runs, their series and raw output."""

from pairbench.library.connection import Library, LibraryError, default_library_path
from pairbench.library.recorder import Recorder

__all__ = ["Library", "LibraryError", "Recorder", "default_library_path"]
