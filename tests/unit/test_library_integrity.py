"""A damaged library is found by SQLite's checks and refused before anything is written."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.library import Library, LibraryDamagedError, Recorder, check_library_file
from pairbench.library.runs import create_run, finish_run
from testkit import FIXTURES


def _fill(path: Path, runs: int = 40) -> None:  # ~150 pages
    """A library with ``runs`` finished runs of 600 samples each (a few hundred pages)."""
    with Library.open(path) as lib:
        for _ in range(runs):
            run_id = create_run(lib, RunSpec(pair="local", tool="iperf3", label="x" * 50))
            recorder = Recorder(lib, run_id)
            for second in range(200):
                t = float(second)
                recorder.add([Record("sum", t, ("throughput_bps", "retransmits"), (t, 1.0))])
                recorder.add([Record("1", t, ("cwnd_bytes",), (t,))])
            recorder.flush()
            finish_run(lib, run_id, RunStatus.COMPLETED, summary={}, complete=True)


def _page_size_and_count(path: Path) -> tuple[int, int]:
    conn = sqlite3.connect(path)
    try:
        size = int(conn.execute("PRAGMA page_size").fetchone()[0])
        count = int(conn.execute("PRAGMA page_count").fetchone()[0])
    finally:
        conn.close()
    return size, count


def _zero_pages(path: Path, first: int, n: int) -> None:
    """Overwrite pages ``first``.. (1-based) with zeros, as a failing disk or a bad copy does."""
    size, _ = _page_size_and_count(path)
    with path.open("r+b") as handle:
        handle.seek((first - 1) * size)
        handle.write(b"\0" * size * n)


def _root_page(path: Path, table: str) -> int:
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    finally:
        conn.close()
    return int(row[0])


def _cli(path: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(["--library", str(path), *args], Environment(stdout=out, stderr=err))
    return code, out.getvalue(), err.getvalue()


def test_healthy_library_checks_ok(library_path: Path) -> None:
    _fill(library_path, runs=3)
    assert check_library_file(library_path).ok
    code, out, _ = _cli(library_path, "library", "check")
    assert code == 0 and "ok" in out


def test_zeroed_pages_in_the_middle_are_refused_before_any_run_is_written(
    library_path: Path,
) -> None:
    _fill(library_path)
    _, count = _page_size_and_count(library_path)
    _zero_pages(library_path, count // 2 - 8, 16)
    before = library_path.read_bytes()
    report = check_library_file(library_path)
    assert not report.ok and report.problems
    code, out, _ = _cli(library_path, "library", "check")
    assert code == 1 and "damaged" in out
    # Whether or not the quick check on open sees it, no run is written into the file.
    with pytest.raises(LibraryDamagedError, match="damaged"), Library.open(library_path) as lib:
        create_run(lib, RunSpec(pair="local", tool="iperf3"))
    output = FIXTURES / "iperf3" / "tcp_t5.out"  # a real output (a device is refused first)
    code, _, err = _cli(library_path, "import", "iperf3", str(output))
    assert code != 0 and "damaged" in err
    assert library_path.read_bytes() == before


def test_damaged_run_table_is_refused_on_open(library_path: Path) -> None:
    _fill(library_path)
    _zero_pages(library_path, _root_page(library_path, "runs"), 1)
    before = library_path.read_bytes()
    with pytest.raises(LibraryDamagedError) as info:
        Library.open(library_path)
    assert str(library_path) in str(info.value) and "library check" in str(info.value)
    code, _, err = _cli(library_path, "runs", "list")
    assert code == 1 and "damaged" in err
    assert library_path.read_bytes() == before


def test_library_check_writes_nothing_and_refuses_what_is_not_ours(tmp_path: Path) -> None:
    foreign = tmp_path / "other.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    code, _, err = _cli(foreign, "library", "check")
    assert code == 1 and "another program" in err
    code, _, err = _cli(tmp_path / "missing.sqlite", "library", "check")
    assert code == 1 and "no library" in err
    assert not (tmp_path / "missing.sqlite").exists()
