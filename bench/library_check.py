"""library_check: the integrity check on open of a 10,000-run library (fast path) vs open."""

from __future__ import annotations

import random
import sqlite3
import tempfile
import time
from array import array
from pathlib import Path

from bench.common import Out, Verdict, fmt, median, spread
from pairbench.library import Library
from pairbench.library.connection import check_library_file
from pairbench.library.integrity import fast_check

NAME = "library_check"
RUNS = 10_000
# The fast check on open may take this many times as long as the open itself (the baseline,
# measured in the same run).
TARGET_RATIO = 2.0
SERIES_PER_RUN = 8
SAMPLES_PER_SERIES = 120  # a two-minute run, one sample a second


def _build(path: Path, runs: int) -> None:
    """A library of ``runs`` finished runs, each with compacted series, written directly."""
    Library.open(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    rng = random.Random(12)
    t_blob = array("d", [float(i + 1) for i in range(SAMPLES_PER_SERIES)]).tobytes()
    conn.execute("BEGIN")
    for run in range(1, runs + 1):
        conn.execute(
            "INSERT INTO runs (id, pair, tool, status, started_at, updated_at, ended_at, label, "
            "summary) VALUES (?, 'local', 'iperf3', 'completed', ?, ?, ?, ?, ?)",
            (
                run,
                run * 60.0,
                run * 60.0 + 120,
                run * 60.0 + 120,
                f"run {run}",
                '{"throughput_bps": 9.4e8}',
            ),
        )
        time_id = conn.execute(
            "INSERT INTO times (run_id, n, t) VALUES (?, ?, ?)",
            (run, SAMPLES_PER_SERIES, t_blob),
        ).lastrowid
        for k in range(SERIES_PER_RUN):
            cur = conn.execute(
                "INSERT INTO series (run_id, stream, metric) VALUES (?, ?, ?)",
                (run, str(k % 3), f"m{k}"),
            )
            values = array("d", [rng.random() * 1e9 for _ in range(SAMPLES_PER_SERIES)])
            conn.execute(
                "INSERT INTO chunks (series_id, seq, n, time_id, v) VALUES (?, 0, ?, ?, ?)",
                (cur.lastrowid, SAMPLES_PER_SERIES, time_id, values.tobytes()),
            )
    conn.execute("COMMIT")
    conn.close()


def run(quick: bool, out: Out) -> Verdict:
    repeats = 5 if quick else 9
    runs = 2_000 if quick else RUNS
    with tempfile.TemporaryDirectory(prefix="pb-bench-check-") as tmp:
        path = Path(tmp) / "library.sqlite"
        _build(path, runs)
        size_mb = path.stat().st_size / 1e6
        opens: list[float] = []
        checks: list[float] = []
        fulls: list[float] = []
        for _ in range(repeats):
            start = time.perf_counter()
            lib = Library.open(path, check=False)
            opens.append(time.perf_counter() - start)
            start = time.perf_counter()
            report = fast_check(lib.conn)
            checks.append(time.perf_counter() - start)
            assert report.ok, report
            lib.close()
        for _ in range(max(3, repeats // 3)):
            start = time.perf_counter()
            assert check_library_file(path).ok
            fulls.append(time.perf_counter() - start)
    ratio = median(checks) / median(opens)
    out(f"  library of {runs} runs, {size_mb:.0f} MB")
    out(f"  open without the check (baseline): {spread(opens, 1e3, 'ms')}")
    out(f"  fast check on open: {spread(checks, 1e3, 'ms')}")
    out(f"  fast check / open: {fmt(ratio)}")
    out(f"  full check (`library check`): {spread(fulls, 1e3, 'ms')}")
    return Verdict(
        NAME,
        ratio,
        TARGET_RATIO,
        "the open without the check",
        info=f"fast check {fmt(median(checks) * 1e3)} ms, full check {fmt(median(fulls) * 1e3)} ms",
    )
