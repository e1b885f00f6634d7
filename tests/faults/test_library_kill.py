"""Fault trials on the library: the window's process recording, CLI commands on the same file
meanwhile, then SIGKILL of the recorder; every committed sample must be in the library."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pairbench.library import Library
from pairbench.library.runs import get_run
from pairbench.library.series import load_series

HERE = Path(__file__).resolve().parent
TRIALS = 20
PAIRBENCH = [sys.executable, "-m", "pairbench"]


def _start_recorder(path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(HERE / "recording_child.py"), str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@contextlib.contextmanager
def _recording(path: Path) -> Iterator[subprocess.Popen[str]]:
    """The recorder as a child process, SIGKILLed (whatever it is doing) when the block ends."""
    proc = _start_recorder(path)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def _read_until(proc: subprocess.Popen[str], predicate: str, timeout_s: float) -> list[str]:
    """Lines of the child's stdout up to one that starts with ``predicate``."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout_s
    lines: list[str] = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.strip())
        if line.startswith(predicate):
            return lines
    stderr = proc.stderr.read() if proc.stderr and proc.poll() is not None else ""
    raise AssertionError(f"no {predicate!r} line from the recorder: {lines[-3:]} {stderr}")


def _commit(proc: subprocess.Popen[str]) -> int:
    """Ask the recorder for one commit; the number of samples committed once it returned."""
    assert proc.stdin is not None
    proc.stdin.write("commit\n")
    proc.stdin.flush()
    return int(_read_until(proc, "committed", 20)[-1].split()[1])


def _cli(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PAIRBENCH, "--library", str(path), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _trial(path: Path) -> tuple[int, int]:
    """One trial: (samples committed before the kill, samples in the library after it)."""
    with _recording(path) as proc:
        first = _read_until(proc, "run ", 20)[-1]
        run_id = int(first.split()[1])
        committed = _commit(proc)
        for args in (("runs", "list"), ("runs", "show", str(run_id))):
            result = _cli(path, *args)
            assert result.returncode == 0, result.stderr
            # Commits after the CLI closed its connection: the ones a deleted WAL would lose.
            for _ in range(3):
                committed = _commit(proc)
    with Library.open(path) as lib:
        stored = sum(len(s.t) for s in load_series(lib, run_id))
        assert get_run(lib, run_id).status.value == "interrupted"
    return committed, stored


# 20 trials of three Python programs' starts: beside the loopback runs of the parallel part,
# which take both cores, 180-220 s instead of 18-47 s (tests/README.md).
@pytest.mark.serial
def test_window_and_cli_then_sigkill_keeps_every_committed_sample(tmp_path: Path) -> None:
    """20 trials: a process holding two connections (as the window does) records while CLI
    commands run on the same file, then is SIGKILLed: nothing it committed is lost."""
    path = tmp_path / "library.sqlite"
    Library.open(path).close()
    outcomes = [_trial(path) for _ in range(TRIALS)]
    kept = sum(1 for committed, stored in outcomes if stored == committed > 0)
    print(f"window + CLI + SIGKILL: {kept}/{TRIALS} trials kept every committed sample")
    assert kept == TRIALS, outcomes
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"


def test_recorder_child_commits_and_reports(tmp_path: Path) -> None:
    """The stand-in records for real: its last reported count is what the library holds."""
    path = tmp_path / "library.sqlite"
    proc = _start_recorder(path)
    out, err = proc.communicate("commit\n" * 7, timeout=30)
    assert proc.returncode == 0, err
    lines = out.split("\n")
    run_id = int(lines[0].split()[1])
    committed = max(int(line.split()[1]) for line in lines if line.startswith("committed"))
    with Library.open(path) as lib:
        assert sum(len(s.t) for s in load_series(lib, run_id)) == committed


def test_deleted_wal_loses_only_what_was_not_checkpointed_and_is_reported(
    tmp_path: Path,
) -> None:
    """Another program deletes the library's -wal while a run records; the recorder is then
    killed. The library keeps what had been checkpointed, and the next open says how many
    committed samples were lost, on the run and as a warning."""
    path = tmp_path / "library.sqlite"
    Library.open(path).close()
    with _recording(path) as proc:
        run_id = int(_read_until(proc, "run ", 20)[-1].split()[1])
        for _ in range(3):
            _commit(proc)
        assert proc.stdin is not None
        proc.stdin.write("checkpoint\n")
        proc.stdin.flush()
        _read_until(proc, "checkpointed", 20)
        checkpointed = 30
        for _ in range(3):
            _commit(proc)
        os.unlink(f"{path}-wal")  # what another program did to the library
        for _ in range(3):
            committed = _commit(proc)
    assert committed == 90
    result = _cli(path, "runs", "list")
    assert result.returncode == 0, result.stderr
    lost = committed - checkpointed
    assert f"run {run_id}" in result.stderr and f"{lost} of {committed}" in result.stderr, (
        result.stderr
    )
    with Library.open(path) as lib:
        run = get_run(lib, run_id)
        assert sum(len(s.t) for s in load_series(lib, run_id)) == checkpointed
        assert run.status.value == "interrupted"
        assert f"{lost} of {committed} committed samples were lost" in (run.error or "")
        assert lib.warnings == []  # said once
