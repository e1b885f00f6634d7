"""team_publish: publishing a large run to the team library vs a bare binary COPY of its bytes.

A finished iperf3 -P 4 run of 2,000,000 samples (5 streams × 4 metrics, 100,000 records each)
is recorded through the ``Recorder`` and compacted as the engine does, then published with
``TeamStore.publish`` (one transaction: the run's row, fresh ids, then binary COPYs of its
series, time rows, chunks and raw output, read from the local SQLite file as they go) to a
real PostgreSQL server on loopback. The baseline, timed alternately with it: the same time
rows and chunks (the same bytes, already in memory) COPYed in binary by psycopg as the same
role into two bare tables (no keys, no indexes) in one transaction, i.e. what the wire and
the server cost. Both are emptied (TRUNCATE) between rounds. The verdict is publish's rate
÷ the bare COPY's (samples/s); the issue's absolute target (≥ 1 M samples/s) is printed too.
"""

from __future__ import annotations

import math
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import team_setup
from bench.common import Out, Verdict, fmt, median, spread
from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run, finish_run
from pairbench.library.series import compact_series
from pairbench.library.team.store import TeamStore

NAME = "team_publish"
# Publishing may cost this much of a bare COPY's rate (reading SQLite, keys, indexes, checks).
TARGET_RATIO = 0.5
TARGET_RATE = 1e6  # samples/s, the absolute target (printed, machine-dependent)
STREAMS = ("sum", "5", "7", "9", "11")
METRICS = ("throughput_bps", "retransmits", "cwnd_bytes", "rtt_us")
SAMPLES = 2_000_000
QUICK_SAMPLES = 200_000
PER_FLUSH = 1_000  # records per stream per flush before compaction
TEAM_TABLES = "runs, series, times, chunks, raw_chunks, analyses"
BARE = (
    "CREATE TABLE bare_times (id int8, run_id int8, n int4, t bytea)",
    "CREATE TABLE bare_chunks (series_id int8, seq int4, n int4, time_id int8, v bytea)",
)


def _record(lib: Library, samples: int, *, compact: bool = True) -> int:
    """A finished run of ``samples`` samples, compacted as the engine leaves one (or left in
    its per-flush chunks of ``PER_FLUSH`` records)."""
    run_id = create_run(
        lib, RunSpec(pair="local", tool="iperf3", params={"-P": "4", "time": "86400"})
    )
    recorder = Recorder(lib, run_id)
    records = samples // (len(STREAMS) * len(METRICS))
    for start in range(0, records, PER_FLUSH):
        batch = [
            Record(
                stream,
                float(i + 1),
                METRICS,
                tuple(math.sin(i * (k + 1) + j) * 1e9 + 1e10 for j in range(len(METRICS))),
            )
            for i in range(start, min(start + PER_FLUSH, records))
            for k, stream in enumerate(STREAMS)
        ]
        recorder.add(batch)
        recorder.flush()
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={"throughput_bps": 1e10}, complete=True)
    if compact:
        compact_series(lib.conn, run_id)
    return run_id


def _rows(lib: Library, run_id: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The run's time rows and chunk rows as publish sends them (bytes in memory)."""
    times = lib.conn.execute("SELECT id, run_id, n, t FROM times WHERE run_id = ?", (run_id,))
    chunks = lib.conn.execute(
        "SELECT c.series_id, c.seq, c.n, c.time_id, c.v FROM chunks c "
        "JOIN series s ON s.id = c.series_id WHERE s.run_id = ?",
        (run_id,),
    )
    return (
        [(i, r, n, bytes(t)) for i, r, n, t in times],
        [(s, q, n, t, bytes(v)) for s, q, n, t, v in chunks],
    )


def _bare_copy(conn: Any, times: list[tuple[Any, ...]], chunks: list[tuple[Any, ...]]) -> None:
    with conn.transaction(), conn.cursor() as cur:
        with cur.copy("COPY bare_times (id, run_id, n, t) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["int8", "int8", "int4", "bytea"])
            for row in times:
                copy.write_row(row)
        with cur.copy(
            "COPY bare_chunks (series_id, seq, n, time_id, v) FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.set_types(["int8", "int4", "int4", "int8", "bytea"])
            for row in chunks:
                copy.write_row(row)


def _alternately(
    ours: Callable[[], object],
    raw: Callable[[], object],
    reset: Callable[[], object],
    repeats: int,
) -> tuple[list[float], list[float]]:
    """Times of both, one after the other each round (emptied before each, untimed)."""
    times: tuple[list[float], list[float]] = ([], [])
    for round_ in range(repeats + 1):
        for fn, kept in zip((ours, raw), times, strict=True):
            reset()
            start = time.perf_counter()
            fn()
            if round_:  # the first round warms up (connection, caches, the server's files)
                kept.append(time.perf_counter() - start)
    return times


def _stored(conn: Any, key: str) -> tuple[int, int]:
    """(chunks, samples) the team library holds for the run ``key``."""
    row = conn.execute(
        "SELECT count(*), coalesce(sum(c.n), 0) FROM chunks c JOIN series s ON s.id = "
        "c.series_id JOIN runs r ON r.id = s.run_id WHERE r.uuid = %s",
        (key,),
    ).fetchone()
    return int(row[0]), int(row[1])


@dataclass(frozen=True, slots=True)
class _Timings:
    ours: list[float]  # publish of the compacted run
    raw: list[float]  # bare COPY of its bytes
    small: list[float]  # publish of the run left in per-flush chunks
    problem: str


def _measure(
    lib: Library, big: int, small: int, rows: tuple[list[Any], list[Any]], repeats: int
) -> _Timings:
    """Publish and bare COPY alternately on a fresh server, then the uncompacted run."""
    times, chunks = rows
    with team_setup.running() as server:
        team = team_setup.store(server)
        conn = team_setup.connect(server)
        try:
            for statement in BARE:
                conn.execute(statement)

            def publish(run_id: int) -> str:
                key = str(uuid.uuid4())
                assert team.publish(lib, run_id, key, ran_by="bench", origin="bench")
                return key

            def reset() -> None:
                conn.execute(f"TRUNCATE {TEAM_TABLES}, bare_times, bare_chunks")

            ours, raw = _alternately(
                lambda: publish(big), lambda: _bare_copy(conn, times, chunks), reset, repeats
            )
            reset()
            stored = _stored(conn, publish(big))
            problem = _check(team, stored, (len(chunks), sum(int(c[2]) for c in chunks)))
            small_times, _ = _alternately(lambda: publish(small), lambda: None, reset, repeats)
        finally:
            conn.close()
            team.close()
    return _Timings(ours, raw, small_times, problem)


def run(quick: bool, out: Out) -> Verdict:
    team_setup.check()
    repeats = 5 if quick else 7
    samples = QUICK_SAMPLES if quick else SAMPLES
    with (
        tempfile.TemporaryDirectory(prefix="pb-bench-team-publish-") as tmp,
        Library.open(Path(tmp) / "library.sqlite") as lib,
    ):
        begin = time.perf_counter()
        run_id = _record(lib, samples)
        small = _record(lib, samples, compact=False)
        times, chunks = _rows(lib, run_id)
        n_small = len(_rows(lib, small)[1])
        total = sum(int(c[2]) for c in chunks)
        size = sum(len(t[3]) for t in times) + sum(len(c[4]) for c in chunks)
        out(
            f"  run: {total} samples in {len(chunks)} chunks, {len(times)} time rows, "
            f"{fmt(size / 1e6)} MB (two recorded in {fmt(time.perf_counter() - begin)} s)"
        )
        timings = _measure(lib, run_id, small, (times, chunks), repeats)
    rate, raw_rate = total / median(timings.ours), total / median(timings.raw)
    out(f"  bare binary COPY: {spread(timings.raw, 1e3, 'ms')}, {fmt(raw_rate)} samples/s")
    out(f"  TeamStore.publish: {spread(timings.ours, 1e3, 'ms')}, {fmt(rate)} samples/s")
    out(
        f"  not compacted ({n_small} chunks of {PER_FLUSH} samples): "
        f"{spread(timings.small, 1e3, 'ms')}, {fmt(total / median(timings.small))} samples/s"
    )
    met = "met" if rate >= TARGET_RATE else "missed"
    out(
        f"  absolute: {fmt(rate)} samples/s against the issue's target of >= {fmt(TARGET_RATE)} "
        f"({met}); {fmt(size / 1e6 / median(timings.ours))} MB/s"
    )
    return Verdict(
        NAME,
        rate / raw_rate,
        TARGET_RATIO,
        "a bare binary COPY of the same bytes (samples/s)",
        higher_is_better=True,
        info=f"{fmt(rate)} samples/s (issue: >= {fmt(TARGET_RATE)}), "
        f"bare COPY {fmt(raw_rate)} samples/s",
        note=timings.problem,
    )


def _check(team: TeamStore, stored: tuple[int, int], local: tuple[int, int]) -> str:
    """Empty when the last publish stored every chunk and sample of the run, once."""
    if team.count_runs() != 1:
        return f"the team library holds {team.count_runs()} runs, not 1"
    if stored != local:
        return f"stored (chunks, samples) {stored}, expected {local}"
    return ""
