"""ingest: parse + store rate (samples/s) of a long synthetic ``iperf3 -P 4`` text output."""

from __future__ import annotations

import gc
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from bench.common import Out, Verdict, fmt, median, spread, timed
from bench.iperf3_synth import SynthRun, tcp_client_output
from pairbench.domain import Line, LineSource, Record, RunSpec, RunStatus, Series, group_records
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run, finish_run
from pairbench.library.series import SMALL_CHUNK_SAMPLES, compact_series, load_series
from pairbench.tools.iperf3_text import Iperf3TextParser, parse_text_output

NAME = "ingest"
# parse + store may take this many times as long as str.split() of the same lines (the
# baseline, measured in the same run): about 10^6 samples/s where split runs at 7·10^6.
TARGET_RATIO = 7.0
FLUSH_EVERY_SAMPLES = 20_000
T = TypeVar("T")
_SPEC = RunSpec(pair="local", tool="iperf3", params={"duration": "50000", "streams": "4"})


@dataclass(frozen=True, slots=True)
class _Stored:
    """What one timed store left behind, for the correctness check."""

    path: Path
    run_id: int
    samples: int


@dataclass(slots=True)
class _StoreSplit:
    """Where store-only time went besides ``Recorder.add``: flushes (with the last one and
    finish_run), and compact_series."""

    flush_s: float = 0.0
    compact_s: float = 0.0


class _Sink:
    """A fresh library file and run per repetition, opened outside the timed part."""

    def __init__(self, folder: Path, tag: str) -> None:
        self.path = folder / f"{tag}-{time.monotonic_ns()}.sqlite"
        self.lib = Library.open(self.path)
        self.run_id = create_run(self.lib, _SPEC)
        self.recorder = Recorder(self.lib, self.run_id)

    def finish(self, summary: dict[str, float], split: _StoreSplit | None = None) -> None:
        """What the engine does at the end of a run: flush, finish, compact."""
        clock = time.perf_counter
        start = clock()
        self.recorder.flush()
        finish_run(self.lib, self.run_id, RunStatus.COMPLETED, summary=summary, complete=True)
        middle = clock()
        compact_series(self.lib.conn, self.run_id)
        if split is not None:
            split.flush_s += middle - start
            split.compact_s += clock() - middle


def _blocks(items: list[T], size: int) -> list[list[T]]:
    """``items`` cut into consecutive lists of ``size`` (the last may be shorter)."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def _parse_and_store(blocks: list[list[str]], sink: _Sink) -> int:
    """What the engine does per line (parser.feed -> Recorder.add), flushing after each block."""
    parser = Iperf3TextParser()
    feed = parser.feed
    add = sink.recorder.add
    flush = sink.recorder.flush
    for block in blocks:
        for line in block:
            records = feed(line)
            if records:
                add(records)
        flush()
    sink.finish(dict(parser.close().values))
    return sink.recorder.samples_written


def _parse_store_raw(blocks: list[list[Line]], sink: _Sink) -> int:
    """As ``_parse_and_store``, plus the raw line kept for the library (engine ``_handle``)."""
    parser = Iperf3TextParser()
    feed = parser.feed
    add = sink.recorder.add
    add_line = sink.recorder.add_line
    flush = sink.recorder.flush
    for block in blocks:
        for line in block:
            add_line(line)
            records = feed(line.text)
            if records:
                add(records)
        flush()
    sink.finish(dict(parser.close().values))
    return sink.recorder.samples_written


def _parse_only(lines: list[str]) -> int:
    feed = Iperf3TextParser().feed
    records = 0
    for line in lines:
        records += len(feed(line))
    return records


def _parse_to_batches(lines: list[str]) -> list[list[Record]]:
    feed = Iperf3TextParser().feed
    return [records for line in lines if (records := feed(line))]


def _store_only(
    blocks: list[list[list[Record]]], sink: _Sink, summary: dict[str, float], split: _StoreSplit
) -> int:
    add = sink.recorder.add
    flush = sink.recorder.flush
    clock = time.perf_counter
    for block in blocks:
        for records in block:
            add(records)
        start = clock()
        flush()
        split.flush_s += clock() - start
    sink.finish(summary, split)
    return sink.recorder.samples_written


def _split_baseline(lines: list[str]) -> int:
    words = 0
    for line in lines:
        words += len(line.split())
    return words


def _check(stored: _Stored, synth: SynthRun, expected: list[Series]) -> str:
    """Empty if the library holds exactly the series of the output, else what is wrong."""
    if stored.samples != synth.expected_samples:
        return f"stored {stored.samples} samples, expected {synth.expected_samples}"
    with Library.open(stored.path) as lib:
        series = load_series(lib, stored.run_id)
        chunks = lib.conn.execute(
            "SELECT COUNT(*), SUM(n) FROM chunks GROUP BY series_id"
        ).fetchall()
    loaded = sum(len(s.v) for s in series)
    if loaded != synth.expected_samples:
        return f"loaded {loaded} samples, expected {synth.expected_samples}"
    if len(series) != 3 * synth.streams + 2:
        return f"{len(series)} series"
    want = {(s.stream, s.metric): s for s in expected}
    for s in series:
        ref = want.get((s.stream, s.metric))
        if ref is None or s.t.tolist() != list(ref.t) or s.v.tolist() != list(ref.v):
            return f"series {s.stream} {s.metric} differs from the parsed output"
    # compact_series merges small chunks only; these flushes wrote big ones.
    small = [1 for count, total in chunks if count > 1 and total < count * SMALL_CHUNK_SAMPLES]
    if small:
        return f"{len(small)} series left in small chunks after compaction"
    return ""


def run(quick: bool, out: Out = print) -> Verdict:
    """Measure and print; return the headline verdict (parse + store)."""
    intervals, reps = (5_000, 5) if quick else (50_000, 7)
    synth = tcp_client_output(intervals, streams=4)
    lines = synth.lines
    n = synth.expected_samples
    # Flush about every FLUSH_EVERY_SAMPLES samples: after each block of lines (or of the
    # records they gave), so that the loops count nothing the engine does not.
    per_flush = round(FLUSH_EVERY_SAMPLES * len(lines) / n)
    out(
        f"{NAME}: synthetic iperf3 3.12 -P 4 text, {intervals} intervals, {len(lines)} lines, "
        f"{n} samples; flush every {per_flush} lines (~{FLUSH_EVERY_SAMPLES} samples), then "
        f"finish_run + compact_series; {reps} reps"
    )
    blocks = _blocks(lines, per_flush)
    raw_blocks = _blocks([Line(LineSource.CLIENT_OUT, text, 0.0) for text in lines], per_flush)
    batches = _parse_to_batches(lines)
    batch_blocks = _blocks(batches, round(FLUSH_EVERY_SAMPLES * len(batches) / n))
    expected = group_records(parse_text_output("\n".join(lines))[0])
    parser = Iperf3TextParser()
    for line in lines:
        parser.feed(line)
    summary = dict(parser.close().values)
    split = _StoreSplit()
    times: dict[str, list[float]] = {k: [] for k in ("split", "parse", "store", "both", "raw")}
    problems: list[str] = []
    # The inputs (about a million tuples) exist only for the benchmark: keep them out of the
    # garbage collector's way, or its full collections would bill the parser for them.
    gc.collect()
    gc.freeze()
    try:
        with tempfile.TemporaryDirectory(prefix="pairbench-bench-") as tmp:
            runner = _SinkRunner(Path(tmp), synth, expected, problems)
            for _ in range(reps):
                times["split"].append(timed(lambda: _split_baseline(lines))[0])
                times["parse"].append(timed(lambda: _parse_only(lines))[0])
                times["store"].append(
                    runner.timed("store", lambda s: _store_only(batch_blocks, s, summary, split))
                )
                times["both"].append(
                    runner.timed("parse+store", lambda s: _parse_and_store(blocks, s))
                )
                times["raw"].append(runner.timed("+raw", lambda s: _parse_store_raw(raw_blocks, s)))
    finally:
        gc.unfreeze()
    rates = {k: [n / t for t in v] for k, v in times.items()}
    ns = {k: median(v) / n * 1e9 for k, v in times.items()}
    unit = "samples/s"
    out(f"  baseline: str.split() of every line   {spread(rates['split'], unit=unit)}")
    out(f"  parse only (Iperf3TextParser.feed)    {spread(rates['parse'], unit=unit)}")
    out(f"  store only (Recorder + finish)        {spread(rates['store'], unit=unit)}")
    out(f"  parse + store                         {spread(rates['both'], unit=unit)}")
    out(f"  info: + raw lines (engine _handle)    {spread(rates['raw'], unit=unit)}")
    flush_ns = split.flush_s / reps / n * 1e9
    compact_ns = split.compact_s / reps / n * 1e9
    out(
        f"  ns/sample: baseline {fmt(ns['split'])}, parse {fmt(ns['parse'])}, store "
        f"{fmt(ns['store'])} (Recorder.add ~{fmt(ns['store'] - flush_ns - compact_ns)}, "
        f"flushes + finish_run {fmt(flush_ns)}, compact_series {fmt(compact_ns)}), "
        f"parse+store {fmt(ns['both'])}; "
        f"budget at target {fmt(ns['split'] * TARGET_RATIO)}"
    )
    out(
        f"  ratio parse+store / baseline: {fmt(ns['split'] / ns['both'])} "
        f"(parse+store takes {fmt(ns['both'] / ns['split'])}x the time of splitting the lines)"
    )
    for problem in problems:
        out(f"  CHECK FAILED: {problem}")
    return Verdict(
        NAME,
        ns["both"] / ns["split"],
        TARGET_RATIO,
        "the time of str.split() of the same lines",
        info=f"parse + store {fmt(median(rates['both']))} {unit}",
        note=problems[0] if problems else "",
    )


class _SinkRunner:
    """Times one store into a fresh library file; checks the first result of each kind."""

    def __init__(
        self, folder: Path, synth: SynthRun, expected: list[Series], problems: list[str]
    ) -> None:
        self._folder = folder
        self._synth = synth
        self._expected = expected
        self._problems = problems
        self._checked: set[str] = set()

    def timed(self, tag: str, work: Callable[[_Sink], int]) -> float:
        """Seconds ``work`` took; the library file is deleted afterwards."""
        sink = _Sink(self._folder, tag.strip("+"))
        try:
            seconds, samples = timed(lambda: work(sink))
        finally:
            sink.lib.close()
        if tag not in self._checked:
            self._checked.add(tag)
            stored = _Stored(sink.path, sink.run_id, samples)
            problem = _check(stored, self._synth, self._expected)
            if problem:
                self._problems.append(f"{tag}: {problem}")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{sink.path}{suffix}").unlink(missing_ok=True)
        return seconds
