"""services.library: locating, opening and checking the library file."""

from __future__ import annotations

from pathlib import Path

import pytest

from pairbench.services.hosts import list_pairs
from pairbench.services.library import (
    LibraryError,
    check_library_file,
    default_library_path,
    open_library,
)


def test_default_path_comes_from_the_environment_given(tmp_path: Path) -> None:
    chosen = tmp_path / "elsewhere" / "mine.sqlite"
    assert default_library_path({"PAIRBENCH_LIBRARY": str(chosen)}) == chosen


def test_default_path_without_the_variable_is_a_library_file() -> None:
    path = default_library_path({})
    assert path.name == "library.sqlite"
    assert path.is_absolute()


def test_open_creates_a_library_that_checks_whole(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    with open_library(path) as lib:
        assert "local" in {p.name for p in list_pairs(lib)}
    assert path.exists()
    report = check_library_file(path)
    assert report.ok and not report.problems


def test_a_file_that_is_no_library_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database\n" * 100)
    with pytest.raises(LibraryError):
        check_library_file(path)
    with pytest.raises(LibraryError):
        open_library(path)
