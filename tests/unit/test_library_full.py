"""The library on a disk that fills up, without a small disk (``tests/faults/test_full_disk.py``
has one): room kept past the write-ahead log for how a run ends; a run whose commits SQLite
refuses as full ("database or disk is full", here from its own page limit) stops, stored as
interrupted with what it kept; the file system named as ``findmnt`` names it."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from pairbench.domain import LOCAL_PAIR, Record, Run, RunSpec, RunStatus
from pairbench.domain.failures import LibraryFullError
from pairbench.engine.observer import NullObserver
from pairbench.library import Library, connection
from pairbench.library.disk import disk_room
from pairbench.library.reserve import WAL_AHEAD
from pairbench.library.runs import create_run
from pairbench.library.series import load_series
from pairbench.services.running import run_on_pair
from testkit import require_program


def test_room_is_kept_past_the_write_ahead_log_before_a_run_is_written(
    library: Library,
) -> None:
    create_run(library, RunSpec(pair="local", tool="iperf3"))
    wal = os.stat(f"{library.path}-wal")
    assert wal.st_blocks * 512 - wal.st_size >= WAL_AHEAD * 3 // 4  # allocated, not written
    assert wal.st_size < WAL_AHEAD  # the log itself did not grow for it


def test_the_file_system_is_named_as_findmnt_names_it(library_path: Path) -> None:
    findmnt = require_program("findmnt")
    Library.open(library_path).close()
    shown = subprocess.run(
        [findmnt, "-J", "-T", str(library_path), "-o", "TARGET,FSTYPE,SOURCE"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    [mount] = json.loads(shown.stdout)["filesystems"]
    room = disk_room(library_path)
    source = mount["source"].split("[")[0]  # findmnt adds a bind mount's [/folder]
    assert room.name() == (mount["target"], f"{mount['fstype']} on {source}")
    free = subprocess.run(
        ["df", "-B1", "--output=avail", str(library_path)], capture_output=True, text=True
    )
    assert abs(room.free - int(free.stdout.split()[-1])) < 64 * 2**20  # others write too


class _FillsAfterFirstInterval(NullObserver):
    """Caps the library at its size once the run has committed an interval: SQLite then
    refuses every commit that needs another page, as on a full disk."""

    def __init__(self, library: Library) -> None:
        self.library = library
        self.run_id = 0
        self.capped = False

    def on_started(self, run_id: int, spec: RunSpec, expected_s: float) -> None:
        self.run_id = run_id

    def on_records(self, records: list[Record]) -> None:
        if (
            not self.capped
            and self.library.conn.execute(
                "SELECT COUNT(*) FROM series WHERE run_id = ?", (self.run_id,)
            ).fetchone()[0]
        ):
            pages = self.library.conn.execute("PRAGMA page_count").fetchone()[0]
            self.library.conn.execute(f"PRAGMA max_page_count = {pages}")
            self.capped = True


@pytest.mark.timeout(60)
def test_a_run_whose_commits_are_refused_as_full_is_stored_interrupted(
    library: Library,
) -> None:
    require_program("iperf3")
    observer = _FillsAfterFirstInterval(library)
    spec = RunSpec(pair="local", tool="iperf3", params={"duration": "3", "streams": "8"})
    run: Run = asyncio.run(run_on_pair(library, LOCAL_PAIR, spec, observer=observer))
    assert observer.capped
    assert run.status is RunStatus.INTERRUPTED, run.error
    assert run.error is not None and run.error.startswith("the library's disk is full: ")
    kept = int(run.error.split("interrupted with its ")[1].split()[0])
    assert sum(len(s.v) for s in load_series(library, run.id)) == kept > 0
    library.conn.execute("PRAGMA max_page_count = 1073741823")


def test_a_failed_commit_says_the_library_is_full(library: Library) -> None:
    library.conn.execute("PRAGMA max_page_count = 1")
    with pytest.raises(LibraryFullError) as info, library.disk_errors("nothing was stored"):
        create_run(library, RunSpec(pair="local", tool="iperf3", label="x" * 50_000))
    assert str(info.value).startswith("the library's disk is full: ")
    assert "; nothing was stored; free space on " in str(info.value)


def _sqlite_error(kind: type[sqlite3.Error], text: str, code: int, name: str) -> sqlite3.Error:
    """An error as SQLite's module raises it (message, extended code and its name)."""
    exc = kind(text)
    exc.sqlite_errorcode = code  # type: ignore[attr-defined]
    exc.sqlite_errorname = name  # type: ignore[attr-defined]
    return exc


def test_an_io_error_is_not_called_a_file_that_is_not_a_library(library_path: Path) -> None:
    code, name = sqlite3.SQLITE_IOERR_SHMSIZE, "SQLITE_IOERR_SHMSIZE"
    io_error = _sqlite_error(sqlite3.OperationalError, "disk I/O error", code, name)
    said = str(connection._failure(library_path, io_error))
    assert said.startswith(f"cannot read library {library_path}: the file system reported")
    assert "SQLITE_IOERR_SHMSIZE" in said and "not a Pairbench library" not in said
    full = connection._failure(
        library_path,
        _sqlite_error(sqlite3.OperationalError, "database or disk is full", 13, "SQLITE_FULL"),
    )
    assert isinstance(full, LibraryFullError)
    foreign = connection._failure(
        library_path,
        _sqlite_error(sqlite3.DatabaseError, "file is not a database", 26, "SQLITE_NOTADB"),
    )
    assert "is not a Pairbench library (not an SQLite file)" in str(foreign)
