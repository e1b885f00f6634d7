"""The Recorder (batched records and raw lines), compaction, and recovery of orphaned runs."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from pairbench.domain import Line, LineSource, Record, RunSpec, RunStatus
from pairbench.domain.failures import LibraryFullError
from pairbench.library import Library, Recorder
from pairbench.library.recorder import FLUSH_INTERVAL_S
from pairbench.library.runs import create_run, finish_run, get_run
from pairbench.library.series import (
    _CHUNKS_OF_SERIES,
    SMALL_CHUNK_SAMPLES,
    compact_series,
    load_raw_output,
    load_series,
)

METRICS = ("throughput_bps", "retransmits", "cwnd_bytes")
STREAMS = ("sum", "5", "7")


def _new_run(lib: Library, tool: str = "iperf3") -> int:
    return create_run(lib, RunSpec(pair="local", tool=tool))


def _count(lib: Library, sql: str, *args: object) -> int:
    return int(lib.conn.execute(sql, args).fetchone()[0])


def _chunks(lib: Library, run_id: int) -> int:
    return _count(
        lib,
        "SELECT COUNT(*) FROM chunks c JOIN series s ON s.id = c.series_id WHERE s.run_id = ?",
        run_id,
    )


def _updated_at(lib: Library, run_id: int) -> float:
    row = lib.conn.execute("SELECT updated_at FROM runs WHERE id = ?", (run_id,)).fetchone()
    return float(row[0])


def _value(stream: str, metric: str, i: int) -> float:
    """A distinct, awkward float per sample, so any reordering or mixing shows."""
    return (i + 0.1) * (1 + STREAMS.index(stream)) * 10.0 ** METRICS.index(metric) / 3.0


def one(stream: str, metric: str, t: float, value: float) -> Record:
    """A record of a single metric."""
    return Record(stream, t, (metric,), (value,))


def _batches(n_flushes: int, per_flush: int) -> Iterator[list[Record]]:
    """Records of every metric, interleaved over streams, in flush-sized batches."""
    i = 0
    for _ in range(n_flushes):
        batch: list[Record] = []
        for _ in range(per_flush):
            t = i * 0.1
            for stream in STREAMS:
                batch.append(
                    Record(stream, t, METRICS, tuple(_value(stream, m, i) for m in METRICS))
                )
            i += 1
        yield batch


def _expected(total: int) -> dict[tuple[str, str], tuple[list[float], list[float]]]:
    return {
        (s, m): ([i * 0.1 for i in range(total)], [_value(s, m, i) for i in range(total)])
        for s in STREAMS
        for m in METRICS
    }


def _as_dict(lib: Library, run_id: int) -> dict[tuple[str, str], tuple[list[float], list[float]]]:
    return {(a.stream, a.metric): (a.t.tolist(), a.v.tolist()) for a in load_series(lib, run_id)}


# --- storing samples ------------------------------------------------------------------------


def test_samples_round_trip_exactly_across_many_flushes(library_path: Path) -> None:
    n_flushes, per_flush = 40, 25
    with Library.open(library_path) as lib:
        run_id = _new_run(lib)
        rec = Recorder(lib, run_id)
        for k, batch in enumerate(_batches(n_flushes, per_flush)):
            # Feed each batch in uneven pieces: add() may be called any number of times.
            cut = (k * 7) % len(batch)
            rec.add(batch[:cut])
            rec.add(batch[cut:])
            assert rec.flush() == len(batch) * len(METRICS)
        assert rec.samples_written == n_flushes * per_flush * len(STREAMS) * len(METRICS)
        assert _chunks(lib, run_id) == n_flushes * len(STREAMS) * len(METRICS)
    with Library.open(library_path) as lib:
        assert _as_dict(lib, run_id) == _expected(n_flushes * per_flush)


def test_loaded_series_are_float64_ordered_sum_first_with_units(library: Library) -> None:
    run_id = _new_run(library)
    rec = Recorder(library, run_id)
    rec.add([one("9", "rtt_ms", 1.0, 2.0)])
    rec.add([one("10", "throughput_bps", 1.0, 3.0)])
    rec.add([Record("sum", 1.0, ("throughput_bps", "cwnd_bytes"), (4.0, 5.0))])
    rec.add([one("10", "made_up_metric", 1.0, 6.0)])
    rec.flush()
    loaded = load_series(library, run_id)
    assert [(s.stream, s.metric, s.unit) for s in loaded] == [
        ("sum", "cwnd_bytes", "B"),
        ("sum", "throughput_bps", "bit/s"),
        ("10", "made_up_metric", ""),
        ("10", "throughput_bps", "bit/s"),
        ("9", "rtt_ms", "ms"),
    ]
    for s in loaded:
        assert s.t.dtype == np.float64
        assert s.v.dtype == np.float64
        assert s.t.shape == s.v.shape == (1,)
    assert loaded[1].to_series().v == (4.0,)


def test_special_float_values_survive(library: Library) -> None:
    values = [0.0, -0.0, 5e-324, 1.7976931348623157e308, float("inf"), -1e-300, 1 / 3]
    run_id = _new_run(library)
    rec = Recorder(library, run_id)
    rec.add([one("sum", "jitter_ms", float(i), v) for i, v in enumerate(values)])
    rec.add([one("sum", "lost_percent", 0.0, float("nan"))])
    rec.flush()
    by_metric = {s.metric: s for s in load_series(library, run_id)}
    got = by_metric["jitter_ms"].v
    assert [x.hex() for x in got.tolist()] == [x.hex() for x in values]
    assert np.isnan(by_metric["lost_percent"].v[0])


def test_samples_of_different_runs_stay_apart(library: Library) -> None:
    a, b = _new_run(library), _new_run(library, tool="ping")
    rec_a, rec_b = Recorder(library, a), Recorder(library, b)
    for i in range(5):
        rec_a.add([one("sum", "throughput_bps", float(i), 1.0 + i)])
        rec_b.add([one("sum", "throughput_bps", float(i), -1.0 - i)])
        rec_a.flush()
        rec_b.flush()
    assert _as_dict(library, a) == {("sum", "throughput_bps"): ([0, 1, 2, 3, 4], [1, 2, 3, 4, 5])}
    assert _as_dict(library, b)[("sum", "throughput_bps")][1] == [-1, -2, -3, -4, -5]


def test_series_appearing_in_later_flushes(library: Library) -> None:
    run_id = _new_run(library)
    rec = Recorder(library, run_id)
    rec.add([one("sum", "throughput_bps", 1.0, 10.0)])
    rec.flush()
    rec.add([one("sum", "retransmits", 2.0, 1.0)])  # throughput idle in this flush
    rec.flush()
    rec.add([Record("sum", 3.0, ("throughput_bps", "retransmits"), (30.0, 2.0))])
    rec.flush()
    assert _as_dict(library, run_id) == {
        ("sum", "retransmits"): ([2.0, 3.0], [1.0, 2.0]),
        ("sum", "throughput_bps"): ([1.0, 3.0], [10.0, 30.0]),
    }


def test_a_record_is_split_into_one_chunk_per_metric_sharing_its_times(
    library: Library,
) -> None:
    run_id = _new_run(library)
    rec = Recorder(library, run_id)
    rec.add([Record("5", float(i), METRICS, (i * 1.5, float(i % 3), 1e5 + i)) for i in range(7)])
    assert rec.flush() == 7 * len(METRICS)
    rows = library.conn.execute(
        "SELECT s.metric, c.n, c.time_id, c.v FROM chunks c JOIN series s ON s.id = c.series_id "
        "WHERE s.run_id = ?",
        (run_id,),
    ).fetchall()
    assert sorted(r[0] for r in rows) == sorted(METRICS)
    assert {r[1] for r in rows} == {7}
    assert len({r[2] for r in rows}) == 1  # one stored time blob for every metric
    assert _count(library, "SELECT COUNT(*) FROM times WHERE run_id = ?", run_id) == 1
    assert _as_dict(library, run_id) == {
        ("5", "throughput_bps"): ([float(i) for i in range(7)], [i * 1.5 for i in range(7)]),
        ("5", "retransmits"): ([float(i) for i in range(7)], [float(i % 3) for i in range(7)]),
        ("5", "cwnd_bytes"): ([float(i) for i in range(7)], [1e5 + i for i in range(7)]),
    }


def test_a_series_under_several_metrics_tuples_keeps_its_order(library: Library) -> None:
    """The same (stream, metric) in records of different metrics tuples, within one flush."""
    run_id = _new_run(library)
    rec = Recorder(library, run_id)
    thr, retr, cwnd = METRICS
    rec.add([one("sum", thr, 1.0, 10.0), Record("5", 1.0, METRICS, (1.0, 2.0, 3.0))])
    rec.add([Record("sum", 2.0, (thr, retr), (20.0, 2.0))])
    rec.add([one("sum", thr, 3.0, 30.0), one("sum", cwnd, 3.0, 3.5)])
    rec.add([Record("sum", 4.0, (retr, cwnd), (4.0, 4.5)), one("sum", thr, 4.0, 40.0)])
    rec.add([Record("5", 2.0, METRICS, (1.1, 2.1, 3.1))])
    rec.add([Record("sum", 5.0, (thr, retr), (50.0, 5.0))])
    assert rec.flush() == 16
    assert _as_dict(library, run_id) == {
        ("sum", thr): ([1.0, 2.0, 3.0, 4.0, 5.0], [10.0, 20.0, 30.0, 40.0, 50.0]),
        ("sum", retr): ([2.0, 4.0, 5.0], [2.0, 4.0, 5.0]),
        ("sum", cwnd): ([3.0, 4.0], [3.5, 4.5]),
        ("5", thr): ([1.0, 2.0], [1.0, 1.1]),
        ("5", retr): ([1.0, 2.0], [2.0, 2.1]),
        ("5", cwnd): ([1.0, 2.0], [3.0, 3.1]),
    }
    # A series' chunks are numbered without gaps, also across flushes.
    rec.add([one("sum", thr, 6.0, 60.0)])
    rec.flush()
    for series_id in _series_ids(library, run_id):
        seqs = [
            r[0]
            for r in library.conn.execute(
                "SELECT seq FROM chunks WHERE series_id = ? ORDER BY seq", (series_id,)
            )
        ]
        assert seqs == list(range(len(seqs)))
    assert _as_dict(library, run_id)[("sum", thr)][1] == [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        (Record("sum", 2.0, ("rtt_ms", "jitter_ms"), (1.0,)), ValueError),  # too few values
        (Record("sum", 2.0, ("rtt_ms",), (1.0, 2.0)), ValueError),  # too many
        (Record("sum", 2.0, ("rtt_ms", "jitter_ms"), (1.0, "x")), TypeError),  # not a number
        (Record("sum", "2", ("rtt_ms", "jitter_ms"), (1.0, 2.0)), TypeError),  # time neither
        (Record("sum", 2.0, ("rtt_ms", "rtt_ms"), (1.0, 2.0)), ValueError),  # a metric twice
        (Record("sum", 2.0, ("rtt_ms", 7), (1.0, 2.0)), ValueError),  # a metric not a name
        (Record(5, 2.0, ("rtt_ms",), (1.0,)), ValueError),  # a stream not a name
    ],
)
def test_a_malformed_record_is_refused_and_the_buffers_stay_consistent(
    library: Library, bad: Record, error: type[Exception]
) -> None:
    run_id = _new_run(library)
    rec = Recorder(library, run_id)
    good = Record("sum", 1.0, ("rtt_ms", "jitter_ms"), (1.0, 0.1))
    with pytest.raises(error):
        rec.add([good, bad, good._replace(t=9.0)])
    rec.add([Record("sum", 3.0, ("rtt_ms", "jitter_ms"), (3.0, 0.3)), one("5", "rtt_ms", 3.0, 3.3)])
    assert rec.flush() == 5
    assert _as_dict(library, run_id) == {
        ("sum", "jitter_ms"): ([1.0, 3.0], [0.1, 0.3]),
        ("sum", "rtt_ms"): ([1.0, 3.0], [1.0, 3.0]),
        ("5", "rtt_ms"): ([3.0], [3.3]),
    }


def test_a_second_recorder_appends_after_the_first(library: Library) -> None:
    run_id = _new_run(library)
    first = Recorder(library, run_id)
    first.add([one("sum", "rtt_ms", 1.0, 1.0)])
    first.add_line(Line(LineSource.CLIENT_OUT, "one", 0.0))
    first.flush()
    second = Recorder(library, run_id)
    second.add([one("sum", "rtt_ms", 2.0, 2.0)])
    second.add_line(Line(LineSource.CLIENT_OUT, "two", 0.0))
    second.flush()
    assert _as_dict(library, run_id) == {("sum", "rtt_ms"): ([1.0, 2.0], [1.0, 2.0])}
    assert load_raw_output(library, run_id) == [("client.stdout", "one"), ("client.stdout", "two")]


def test_a_run_without_samples_has_no_series(library: Library) -> None:
    run_id = _new_run(library)
    assert load_series(library, run_id) == []
    assert load_raw_output(library, run_id) == []


# --- flushing -------------------------------------------------------------------------------


def test_empty_flush_writes_nothing(library: Library) -> None:
    run_id = create_run(library, RunSpec(pair="local", tool="ping"), started_at=50.0)
    rec = Recorder(library, run_id)
    assert rec.flush() == 0
    assert rec.samples_written == 0
    assert _updated_at(library, run_id) == 50.0
    assert _count(library, "SELECT COUNT(*) FROM series") == 0
    assert _count(library, "SELECT COUNT(*) FROM chunks") == 0
    assert _count(library, "SELECT COUNT(*) FROM raw_chunks") == 0
    rec.add([one("sum", "rtt_ms", 1.0, 0.5)])
    assert rec.flush() == 1
    chunks = _chunks(library, run_id)
    touched = _updated_at(library, run_id)
    assert touched > 50.0
    for _ in range(3):  # nothing new buffered: nothing written, no heartbeat
        assert rec.flush() == 0
    assert _chunks(library, run_id) == chunks
    assert _updated_at(library, run_id) == touched
    assert rec.samples_written == 1
    assert not library.conn.in_transaction


def test_add_does_no_io_until_flush(library: Library) -> None:
    run_id = _new_run(library)
    rec = Recorder(library, run_id)
    rec.add([one("sum", "rtt_ms", float(i), 1.0) for i in range(1000)])
    rec.add_line(Line(LineSource.CLIENT_OUT, "x", 0.0))
    assert _count(library, "SELECT COUNT(*) FROM chunks") == 0
    assert _count(library, "SELECT COUNT(*) FROM raw_chunks") == 0
    assert rec.samples_written == 0
    assert rec.flush() == 1000


def test_flush_is_a_heartbeat(library: Library) -> None:
    run_id = create_run(library, RunSpec(pair="local", tool="ping"), started_at=10.0)
    rec = Recorder(library, run_id)
    rec.add_line(Line(LineSource.CLIENT_OUT, "only a line", 0.0))
    before = time.time()
    assert rec.flush() == 0  # raw lines alone are written, and count no samples
    assert before <= _updated_at(library, run_id) <= time.time()
    assert load_raw_output(library, run_id) == [("client.stdout", "only a line")]


def test_samples_written_counts(library: Library) -> None:
    rec = Recorder(library, _new_run(library))
    total = 0
    for n in (1, 0, 17, 250, 3):
        rec.add([one("sum", "rtt_ms", float(i), 1.0) for i in range(n)])
        rec.add([one("1", "rtt_ms", float(i), 2.0) for i in range(n)])
        assert rec.flush() == 2 * n
        total += 2 * n
        assert rec.samples_written == total


def test_flush_if_due_respects_the_interval(library: Library) -> None:
    interval = FLUSH_INTERVAL_S
    assert 0 < interval <= 0.5  # a killed process loses at most this long (docs/guide/library.md)
    run_id = _new_run(library)
    rec = Recorder(library, run_id)
    base = time.monotonic()

    def step(at: float, expect: bool, n_chunks: int) -> None:
        now = base + at * interval
        rec.add([one("sum", "rtt_ms", now, now)])
        assert rec.flush_if_due(now=now) is expect
        assert _chunks(library, run_id) == n_chunks

    step(0.0, False, 0)
    step(0.5, False, 0)
    step(0.99, False, 0)
    step(1.01, True, 1)  # first flush: four samples
    step(1.5, False, 1)  # 0.49 intervals after the last flush
    step(2.0, False, 1)
    step(2.02, True, 2)
    step(2.03, False, 2)
    step(10.0, True, 3)
    step(10.5, False, 3)
    assert rec.samples_written == 4 + 3 + 2
    [series] = load_series(library, run_id)
    assert series.t.tolist() == [
        base + d * interval for d in (0.0, 0.5, 0.99, 1.01, 1.5, 2.0, 2.02, 2.03, 10.0)
    ]
    assert rec.flush() == 1


def test_flush_if_due_uses_the_real_clock_by_default(library: Library) -> None:
    rec = Recorder(library, _new_run(library))
    rec.add([one("sum", "rtt_ms", 0.0, 1.0)])
    assert rec.flush_if_due() is False  # just created
    assert rec.samples_written == 0


def test_failed_flush_keeps_the_buffer_and_a_retry_stores_everything(library: Library) -> None:
    """A full disk (SQLite's own page limit) fails a flush; the next flush must still work."""
    run_id = _new_run(library)
    rec = Recorder(library, run_id)
    pages = _count(library, "PRAGMA page_count")
    library.conn.execute(f"PRAGMA max_page_count = {pages}")
    n = 50_000
    rec.add([one("sum", "throughput_bps", float(i), float(-i)) for i in range(n)])
    rec.add_line(Line(LineSource.CLIENT_OUT, "kept", 0.0))
    with pytest.raises(LibraryFullError, match="the library's disk is full"):
        rec.flush()
    assert not library.conn.in_transaction
    assert rec.samples_written == 0
    assert _count(library, "SELECT COUNT(*) FROM series") == 0
    library.conn.execute("PRAGMA max_page_count = 1073741823")
    rec.add([one("sum", "throughput_bps", float(n), 0.5)])
    assert rec.flush() == n + 1
    [series] = load_series(library, run_id)
    assert series.t.tolist() == [float(i) for i in range(n + 1)]
    assert series.v.tolist() == [float(-i) for i in range(n)] + [0.5]
    assert load_raw_output(library, run_id) == [("client.stdout", "kept")]


# --- raw output -----------------------------------------------------------------------------


def test_raw_lines_come_back_in_order_per_source(library_path: Path) -> None:
    sources = list(LineSource)
    sent: dict[str, list[str]] = {s.value: [] for s in sources}
    with Library.open(library_path) as lib:
        run_id = _new_run(lib)
        rec = Recorder(lib, run_id)
        k = 0
        for flush in range(12):
            for j in range(flush % 4 + 1):
                source = sources[(k * 7 + j) % len(sources)]
                text = f"[{flush}.{j}] {source.value} line {k} \t ünï"
                rec.add_line(Line(source, text, float(k)))
                sent[source.value].append(text)
                k += 1
            rec.flush()
    with Library.open(library_path) as lib:
        chunks = load_raw_output(lib, run_id)
    got: dict[str, list[str]] = {s.value: [] for s in sources}
    for name, text in chunks:
        got[name].extend(text.split("\n"))
    assert got == sent


def test_raw_lines_within_one_flush_are_one_chunk_per_source(library: Library) -> None:
    run_id = _new_run(library)
    rec = Recorder(library, run_id)
    rec.add_line(Line(LineSource.SERVER_OUT, "s1", 0.0))
    rec.add_line(Line(LineSource.CLIENT_OUT, "c1", 0.0))
    rec.add_line(Line(LineSource.SERVER_OUT, "s2", 0.0))
    rec.add_line(Line(LineSource.CLIENT_OUT, "", 0.0))
    rec.flush()
    rec.add_line(Line(LineSource.CLIENT_ERR, "e1", 0.0))
    rec.flush()
    assert load_raw_output(library, run_id) == [
        ("server.stdout", "s1\ns2"),
        ("client.stdout", "c1\n"),
        ("client.stderr", "e1"),
    ]


# --- compaction -----------------------------------------------------------------------------


def _record_flushes(lib: Library, n_flushes: int, per_flush: int) -> int:
    run_id = _new_run(lib)
    rec = Recorder(lib, run_id)
    for batch in _batches(n_flushes, per_flush):
        rec.add(batch)
        rec.flush()
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={}, complete=True)
    return run_id


def test_compaction_merges_chunks_and_keeps_identical_arrays(library_path: Path) -> None:
    n_flushes, per_flush = 30, 11
    with Library.open(library_path) as lib:
        run_id = _record_flushes(lib, n_flushes, per_flush)
        other = _record_flushes(lib, 3, 2)
        before = load_series(lib, run_id)
        other_chunks = _chunks(lib, other)
        assert _chunks(lib, run_id) == n_flushes * len(before)
        compact_series(lib.conn, run_id)
        assert not lib.conn.in_transaction
        assert _chunks(lib, run_id) == len(before)  # one chunk per series
        assert _chunks(lib, other) == other_chunks  # another run is left alone
    with Library.open(library_path) as lib:
        after = load_series(lib, run_id)
        assert [(s.stream, s.metric, s.unit) for s in after] == [
            (s.stream, s.metric, s.unit) for s in before
        ]
        for old, new in zip(before, after, strict=True):
            np.testing.assert_array_equal(old.t, new.t)
            np.testing.assert_array_equal(old.v, new.v)
            assert old.t.tobytes() == new.t.tobytes()
            assert old.v.tobytes() == new.v.tobytes()
        assert _as_dict(lib, run_id) == _expected(n_flushes * per_flush)
        rows = lib.conn.execute(
            "SELECT c.seq, c.n, length(tm.t), length(c.v) FROM chunks c "
            "JOIN series s ON s.id = c.series_id JOIN times tm ON tm.id = c.time_id "
            "WHERE s.run_id = ?",
            (run_id,),
        ).fetchall()
        total = n_flushes * per_flush
        assert rows == [(0, total, 8 * total, 8 * total)] * len(before)


@pytest.mark.parametrize("max_samples", [1, 7, 100, 330, 331, 10_000])
def test_compaction_splits_into_bounded_chunks(library: Library, max_samples: int) -> None:
    n_flushes, per_flush = 30, 11
    total = n_flushes * per_flush
    run_id = _record_flushes(library, n_flushes, per_flush)
    before = _as_dict(library, run_id)
    compact_series(library.conn, run_id, max_samples=max_samples)
    assert _as_dict(library, run_id) == before == _expected(total)
    n_chunks = -(-total // max_samples)
    series_ids = _series_ids(library, run_id)
    assert len(series_ids) == len(STREAMS) * len(METRICS)
    for series_id in series_ids:
        rows = library.conn.execute(
            "SELECT c.seq, c.n, length(tm.t), length(c.v) FROM chunks c "
            "JOIN times tm ON tm.id = c.time_id WHERE c.series_id = ? ORDER BY c.seq",
            (series_id,),
        ).fetchall()
        assert [r[0] for r in rows] == list(range(n_chunks))
        assert all(r[1] <= max_samples and r[2] == r[3] == 8 * r[1] for r in rows)
        assert sum(r[1] for r in rows) == total


def _series_ids(lib: Library, run_id: int) -> set[int]:
    return {
        int(r[0]) for r in lib.conn.execute("SELECT id FROM series WHERE run_id = ?", (run_id,))
    }


def test_compaction_leaves_series_of_big_chunks_alone(library: Library) -> None:
    """A bulk import's chunks are already big: rewriting them would only cost time."""
    run_id = _new_run(library)
    rec = Recorder(library, run_id)
    n = SMALL_CHUNK_SAMPLES
    for k in range(3):  # "sum": 3 chunks of n samples (big); "5": 3 chunks of 1 (small)
        rec.add([one("sum", "rtt_ms", float(k * n + i), float(i)) for i in range(n)])
        rec.add([one("5", "rtt_ms", float(k), float(k))])
        rec.flush()
    rec.add([one("7", "rtt_ms", float(i), 1.0) for i in range(n - 1)])  # one small chunk
    rec.flush()
    before = _as_dict(library, run_id)
    chunks = {(s, m): _series_chunks(library, run_id, s) for s, m in before}
    compact_series(library.conn, run_id)
    assert _as_dict(library, run_id) == before
    assert _series_chunks(library, run_id, "sum") == chunks[("sum", "rtt_ms")] == [n, n, n]
    assert _series_chunks(library, run_id, "5") == [3]
    assert _series_chunks(library, run_id, "7") == [n - 1]
    # The threshold is the average: 2 chunks of n and n - 2 samples are merged at n.
    compact_series(library.conn, run_id, small_chunk=n + 1)
    assert _series_chunks(library, run_id, "sum") == [3 * n]
    assert _as_dict(library, run_id) == before
    assert not library.conn.in_transaction


def _series_chunks(lib: Library, run_id: int, stream: str) -> list[int]:
    """The sizes of one stream's chunks, in order."""
    return [
        int(r[0])
        for r in lib.conn.execute(
            "SELECT c.n FROM chunks c JOIN series s ON s.id = c.series_id "
            "WHERE s.run_id = ? AND s.stream = ? ORDER BY c.seq",
            (run_id, stream),
        )
    ]


def test_loading_a_series_sorts_nothing(library: Library) -> None:
    """Chunks come in primary-key order: SQLite never copies their blobs into a sort."""
    plan = library.conn.execute(f"EXPLAIN QUERY PLAN {_CHUNKS_OF_SERIES}", (1,)).fetchall()
    details = " ".join(str(row[-1]) for row in plan)
    assert "PRIMARY KEY" in details
    assert "TEMP B-TREE" not in details


def test_compaction_is_idempotent_and_handles_trivial_runs(library: Library) -> None:
    run_id = _record_flushes(library, 5, 3)
    compact_series(library.conn, run_id)
    once = _as_dict(library, run_id)
    compact_series(library.conn, run_id)
    assert _as_dict(library, run_id) == once
    empty = _new_run(library)
    compact_series(library.conn, empty)  # no series at all
    assert load_series(library, empty) == []
    single = _record_flushes(library, 1, 4)
    compact_series(library.conn, single)
    assert _as_dict(library, single) == _expected(4)
    compact_series(library.conn, 987654)  # unknown run: nothing to do
    assert not library.conn.in_transaction


# --- orphaned runs --------------------------------------------------------------------------


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _set_owner(path: Path, run_id: int, pid: int, token: str, host: str | None = None) -> None:
    with Library.open(path, recover=False) as lib:
        lib.conn.execute(
            "UPDATE runs SET owner_pid = ?, owner_token = ?, owner_host = COALESCE(?, owner_host), "
            "updated_at = ? WHERE id = ?",
            (pid, token, host, 777.25, run_id),
        )


def test_run_of_a_dead_process_is_interrupted_at_next_open(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        orphan = create_run(lib, RunSpec(pair="local", tool="iperf3"), started_at=700.0)
        rec = Recorder(lib, orphan)
        rec.add([one("sum", "throughput_bps", 1.0, 5.0)])
        rec.flush()
        alive = create_run(lib, RunSpec(pair="local", tool="ping"), started_at=701.0)
        done = create_run(lib, RunSpec(pair="local", tool="fio"), started_at=702.0)
        finish_run(lib, done, RunStatus.FAILED, summary={}, complete=False, ended_at=703.0)
    _set_owner(library_path, orphan, _dead_pid(), "bogus-token")
    _set_owner(library_path, done, _dead_pid(), "bogus-token")

    with Library.open(library_path, recover=False) as lib:  # recovery can be turned off
        assert get_run(lib, orphan).status is RunStatus.RUNNING

    with Library.open(library_path) as lib:
        run = get_run(lib, orphan)
        assert run.status is RunStatus.INTERRUPTED
        assert run.ended_at == 777.25
        assert run.duration == pytest.approx(77.25)
        assert run.error and "stopped unexpectedly" in run.error
        assert _as_dict(lib, orphan) == {("sum", "throughput_bps"): ([1.0], [5.0])}
        live = get_run(lib, alive)
        assert live.status is RunStatus.RUNNING
        assert live.ended_at is None
        assert live.error is None
        finished = get_run(lib, done)
        assert (finished.status, finished.ended_at) == (RunStatus.FAILED, 703.0)
    with Library.open(library_path) as lib:  # stable on the next open
        assert get_run(lib, orphan).status is RunStatus.INTERRUPTED
        assert get_run(lib, orphan).ended_at == 777.25
        assert get_run(lib, alive).status is RunStatus.RUNNING


def test_reused_pid_with_another_start_time_is_not_the_owner(library_path: Path) -> None:
    """Our own (live) pid with a different process token: the owner is gone, pid reused."""
    with Library.open(library_path) as lib:
        run_id = _new_run(lib)
    _set_owner(library_path, run_id, os.getpid(), "12345")
    with Library.open(library_path) as lib:
        assert get_run(lib, run_id).status is RunStatus.INTERRUPTED


def test_run_owned_on_another_host_is_left_running(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        run_id = _new_run(lib)
    _set_owner(library_path, run_id, _dead_pid(), "x", host=socket.gethostname() + "-elsewhere")
    with Library.open(library_path) as lib:
        assert get_run(lib, run_id).status is RunStatus.RUNNING


def test_existing_error_is_kept_when_interrupted(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        run_id = _new_run(lib)
        lib.conn.execute("UPDATE runs SET error = 'server refused' WHERE id = ?", (run_id,))
    _set_owner(library_path, run_id, _dead_pid(), "gone")
    with Library.open(library_path) as lib:
        run = get_run(lib, run_id)
        assert (run.status, run.error) == (RunStatus.INTERRUPTED, "server refused")


CHILD = textwrap.dedent(
    """
    import sys, time
    from pairbench.domain import Line, LineSource, Record, RunSpec
    from pairbench.library import Library, Recorder
    from pairbench.library.runs import create_run

    lib = Library.open(sys.argv[1])
    run_id = create_run(lib, RunSpec(pair="local", tool="iperf3", label="child"))
    rec = Recorder(lib, run_id)
    for flush in range(5):
        rec.add([Record("sum", float(flush * 100 + i), ("throughput_bps",), (i / 7.0,))
                 for i in range(100)])
        rec.add_line(Line(LineSource.CLIENT_OUT, f"interval {flush}", 0.0))
        rec.flush()
    # Buffered but never flushed: lost with the process, as designed.
    rec.add([Record("sum", 9999.0, ("throughput_bps",), (1.0,))])
    print("ready", run_id, flush=True)
    time.sleep(120)
    """
)


def _start_child(path: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 60.0)
    if not ready:
        proc.kill()
        proc.wait()
        pytest.fail("the child never reported ready")
    line = proc.stdout.readline()
    if not line.startswith("ready"):
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"child failed: {line!r} {err}")
    return proc, int(line.split()[1])


def _check_child_run(lib: Library, run_id: int) -> None:
    run = get_run(lib, run_id)
    assert run.status is RunStatus.INTERRUPTED
    assert run.label == "child"
    assert run.ended_at is not None and run.ended_at >= run.started_at
    [series] = load_series(lib, run_id)
    assert series.t.tolist() == [float(i) for i in range(500)]
    assert series.v.tolist() == [i / 7.0 for i in range(100)] * 5
    assert load_raw_output(lib, run_id) == [
        ("client.stdout", f"interval {flush}") for flush in range(5)
    ]


def test_killed_child_process_run_is_interrupted_with_its_flushed_samples(
    library_path: Path,
) -> None:
    Library.open(library_path).close()
    proc, run_id = _start_child(library_path)
    try:
        with Library.open(library_path) as lib:  # the owner is alive: nothing to recover
            assert get_run(lib, run_id).status is RunStatus.RUNNING
        last_beat = _updated_at_of(library_path, run_id)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    with Library.open(library_path) as lib:
        _check_child_run(lib, run_id)
        assert get_run(lib, run_id).ended_at == last_beat


def test_killed_child_not_yet_reaped_counts_as_dead(library_path: Path) -> None:
    """A zombie (killed, its parent has not waited for it yet) is not a live owner."""
    Library.open(library_path).close()
    proc, run_id = _start_child(library_path)
    try:
        os.kill(proc.pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while _state(proc.pid) != "Z" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _state(proc.pid) == "Z"
        with Library.open(library_path) as lib:
            _check_child_run(lib, run_id)
    finally:
        proc.kill()
        proc.wait()
        proc.communicate()


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]


def _updated_at_of(path: Path, run_id: int) -> float:
    with Library.open(path, recover=False) as lib:
        return _updated_at(lib, run_id)
