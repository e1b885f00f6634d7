"""load: time to load a finished, compacted 100,000-sample run with ``load_series`` (ms)."""

from __future__ import annotations

import math
import tempfile
import time
from array import array
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.common import Out, Verdict, fmt, median, ratio, spread, timed
from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run, finish_run
from pairbench.library.series import SeriesArrays, compact_series, load_series

NAME = "load"
# Loading a stored run (load_series: SQL, blobs, arrays, series) may take this many times as
# long as a bare SELECT of the same blobs (the baseline, measured in the same run).
TARGET_RATIO = 1.5
# An iperf3 -P 2 TCP run: the aggregate and two streams (8 series), one record per stream
# per second as the parser gives them.
_TCP_SEND = ("throughput_bps", "retransmits", "cwnd_bytes")
RECORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("sum", ("throughput_bps", "retransmits")),
    ("5", _TCP_SEND),
    ("7", _TCP_SEND),
)
SERIES: tuple[tuple[str, str], ...] = tuple(
    (stream, metric) for stream, metrics in RECORDS for metric in metrics
)


@dataclass(frozen=True, slots=True)
class _Expected:
    """The recorded values per series, and the same as in-memory little-endian bytes."""

    t: dict[tuple[str, str], array[float]]
    v: dict[tuple[str, str], array[float]]

    def blobs(self) -> list[tuple[bytes, bytes]]:
        return [(self.t[k].tobytes(), self.v[k].tobytes()) for k in SERIES]


def _record_live(lib: Library, seconds: int) -> tuple[int, _Expected]:
    """One record per stream per simulated second, one flush per second (as a live run)."""
    run_id = create_run(lib, RunSpec(pair="local", tool="iperf3", params={"streams": "2"}))
    recorder = Recorder(lib, run_id)
    expected = _Expected({k: array("d") for k in SERIES}, {k: array("d") for k in SERIES})
    for second in range(1, seconds + 1):
        t = float(second)
        values = [math.sin(second * (i + 1)) * 1e9 + 1e10 for i in range(len(SERIES))]
        records: list[Record] = []
        for stream, metrics in RECORDS:
            records.append(Record(stream, t, metrics, tuple(values[: len(metrics)])))
            for metric, value in zip(metrics, values, strict=False):
                expected.t[(stream, metric)].append(t)
                expected.v[(stream, metric)].append(value)
            del values[: len(metrics)]
        recorder.add(records)
        recorder.flush()
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={"throughput_bps": 1e10}, complete=True)
    return run_id, expected


def _check(loaded: list[SeriesArrays], expected: _Expected) -> str:
    """Empty if ``load_series`` returned exactly what was recorded."""
    keys = {(s.stream, s.metric) for s in loaded}
    if keys != set(SERIES):
        return f"series {sorted(keys)}"
    for s in loaded:
        key = (s.stream, s.metric)
        if not (np.array_equal(s.t, expected.t[key]) and np.array_equal(s.v, expected.v[key])):
            return f"series {key} differs from what was recorded"
    return ""


def _frombuffer_all(blobs: list[tuple[bytes, bytes]]) -> int:
    arrays = [(np.frombuffer(t, dtype="<f8"), np.frombuffer(v, dtype="<f8")) for t, v in blobs]
    return len(arrays)


def _select_blobs(lib: Library, run_id: int) -> int:
    """The run's stored blobs: its time rows, and its chunks' values."""
    times = lib.conn.execute("SELECT t FROM times WHERE run_id = ?", (run_id,)).fetchall()
    rows = lib.conn.execute(
        "SELECT c.v FROM chunks c JOIN series s ON s.id = c.series_id WHERE s.run_id = ?",
        (run_id,),
    ).fetchall()
    return len(times) + len(rows)


def _load_on_new_connection(path: Path, run_id: int) -> float:
    """Seconds of one ``load_series`` on a just-opened library (opening not timed)."""
    with Library.open(path) as lib:
        return timed(lambda: load_series(lib, run_id))[0]


def _chunk_count(lib: Library) -> int:
    return int(lib.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])


def run(quick: bool, out: Out = print) -> Verdict:
    """Measure and print; return the headline verdict (load after compaction)."""
    total = 100_000
    seconds = total // len(SERIES)
    reps = 5 if quick else 21
    ms = 1e3
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="pairbench-bench-") as tmp:
        lib = Library.open(Path(tmp) / "load.sqlite")
        try:
            start = time.perf_counter()
            run_id, expected = _record_live(lib, seconds)
            record_s = time.perf_counter() - start
            out(
                f"{NAME}: {total} samples in {len(SERIES)} series, recorded as a live run "
                f"({seconds} flushes of one sample per series, {_chunk_count(lib)} chunks, "
                f"{fmt(record_s)} s); {reps} reps, warm connection"
            )
            before = [timed(lambda: load_series(lib, run_id))[0] for _ in range(reps)]
            problem = _check(load_series(lib, run_id), expected)
            if problem:
                problems.append(f"before compaction: {problem}")
            compact_s, _ = timed(lambda: compact_series(lib.conn, run_id))
            chunks_after = _chunk_count(lib)
            load_series(lib, run_id)  # first read after the rewrite warms the page cache
            after = [timed(lambda: load_series(lib, run_id))[0] for _ in range(reps)]
            problem = _check(load_series(lib, run_id), expected)
            if problem:
                problems.append(f"after compaction: {problem}")
            select = [timed(lambda: _select_blobs(lib, run_id))[0] for _ in range(reps)]
            blobs = expected.blobs()
            base = [timed(lambda: _frombuffer_all(blobs))[0] for _ in range(reps)]
        finally:
            lib.close()
        cold = [_load_on_new_connection(Path(tmp) / "load.sqlite", run_id) for _ in range(reps)]
    out(f"  info: compact_series took {fmt(compact_s * ms)} ms ({chunks_after} chunks left)")
    out(f"  info: before compaction         {spread(before, ms, 'ms')}")
    out(f"  info: np.frombuffer in RAM      {spread(base, ms, 'ms')}")
    out(f"  baseline: bare SELECT of blobs  {spread(select, ms, 'ms')}")
    out(f"  info: on a new connection       {spread(cold, ms, 'ms')}")
    out(f"  after compaction                {spread(after, ms, 'ms')}")
    out(
        f"  ratio load / np.frombuffer: {fmt(median(after) / median(base))}x; "
        f"load / bare SELECT: {fmt(median(after) / median(select))}x; "
        f"compaction speeds loading {fmt(median(before) / median(after))}x"
    )
    for problem in problems:
        out(f"  CHECK FAILED: {problem}")
    return Verdict(
        NAME,
        ratio(after, select),
        TARGET_RATIO,
        "a bare SELECT of the same blobs",
        info=f"load {fmt(median(after) * ms)} ms",
        note=problems[0] if problems else "",
    )
