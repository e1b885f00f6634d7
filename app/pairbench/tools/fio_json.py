"""Incremental parser for fio JSON / json+ output, periodic ``--status-interval`` documents too."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Final, NamedTuple

from pairbench.domain import Record, Summary
from pairbench.tools.base import ParseError, preview
from pairbench.tools.feed import feed_text

__all__ = [
    "MAX_DOCUMENT_CHARS",
    "MIN_INTERVAL_MS",
    "FioJsonParser",
    "fio_error_message",
    "fio_percentile",
    "parse_json_output",
]

# A fio document is a few hundred kB at most (json+ with hundreds of jobs); anything bigger is
# not fio output, and holding it would let garbage grow the parser's memory without bound.
MAX_DOCUMENT_CHARS: Final = 16 * 1024 * 1024

# Intervals shorter than this (ms of fio runtime) are merged into the next one: the final
# document follows the last periodic one by a few ms to ~200 ms, and a 5 ms interval that
# only drains the I/Os in flight gives meaningless rates (0 I/Os issued, 8 completed).
MIN_INTERVAL_MS: Final = 100.0

# How many distinct ``fio: ...`` error messages the summary keeps, and how long each may be.
_MAX_ERRORS: Final = 5
_MAX_ERROR_CHARS: Final = 300

# ``fio: ...`` lines that are warnings: fio goes on and the run's figures are valid. Every other
# ``fio: ...`` line is an error (the JSON ``error`` field stays 0 even when a job failed).
_WARNINGS: Final = (
    "native_fallocate call failed",
    "posix_fallocate fails",
    "this platform does not support process shared mutexes",
    "clocksource=cpu may not be reliable",
    "Switching to tausworthe64",
    "Use the random_generator= option",
    "file hash not empty on exit",
    "only root may flush block devices",
    "disabling status file updates",
    "kb_base differs",
    "unit_base differs",
    "limiting mlocked memory",
    "multiple writers may overwrite blocks",
    "Any use of blockalign= turns off randommap",
    "norandommap given for variable block sizes",
    "bs_unaligned may not work with raw io",
    "verification read phase will never start",
    "--latency-log is deprecated",
    "read iolog overrides write_iolog",
    "cache invalidation of",
    "opendir added",
)

# Percentiles fio prints by default (``clat_ns.percentile`` keys) that the summary reports.
_PERCENTILES: Final = (
    ("50.000000", "p50"),
    ("99.000000", "p99"),
    ("99.900000", "p999"),
    ("99.990000", "p9999"),
)
_P99: Final = 99.0

# Counters are unsigned 64-bit in fio; bigger (or negative, or non-finite) numbers are garbage.
_MAX_NUMBER: Final = float(2**64)

_DIRECTIONS: Final = ("read", "write")


def fio_error_message(line: str) -> str | None:
    """The message of a ``fio: ...`` error line (without ``fio: ``); None for anything else.

    Known warnings (``fio: native_fallocate call failed``, ...) are not errors: None.
    """
    if not line.startswith("fio: "):
        return None
    message = line[5:].strip()
    if not message or message.startswith(_WARNINGS):
        return None
    return message[:_MAX_ERROR_CHARS]


class _Dir(NamedTuple):
    """One direction (read or write) of one ``jobs[]`` entry, cumulative since the start."""

    runtime_ms: float
    ios: float  # total_ios
    io_bytes: float
    iops: float  # fio's own average to date
    bw_bytes: float  # B/s, fio's own average to date
    lat_mean_ns: float  # lat_ns.mean (submission + completion)
    lat_n: float  # lat_ns.N
    percentiles: Mapping[str, float]  # clat_ns.percentile, ns
    bins: Mapping[int, float] | None  # clat_ns.bins (json+ only): latency ns -> count


class _Job(NamedTuple):
    """One ``jobs[]`` entry: a job, or a group with ``--group_reporting``."""

    key: tuple[int, str]
    stream: str
    error: int
    dirs: tuple[_Dir | None, _Dir | None]  # read, write (None: direction absent)
    in_ramp: bool  # still inside its ramp_time (see _ramp_seconds)


class _Doc(NamedTuple):
    """The parts of one fio JSON document that the parser uses."""

    timestamp_ms: float | None
    jobs: tuple[_Job, ...]


class _Base(NamedTuple):
    """What an interval is measured from: the previous document's cumulative figures."""

    runtime_ms: float
    ios: float
    io_bytes: float
    lat_sum_ns: float  # lat_ns.mean * lat_ns.N
    lat_n: float
    bins: Mapping[int, float] | None


_ZERO: Final = _Base(0.0, 0.0, 0.0, 0.0, 0.0, None)


class _Interval(NamedTuple):
    """One direction of one job between two documents."""

    iops: float
    bytes_per_s: float
    lat_sum_ns: float  # for the interval's mean latency
    lat_n: float
    bins: dict[int, float] | None  # the interval's completion latency histogram


# One constant metrics tuple per combination of metrics a record carries (the recorder keys its
# buffers on the tuple); built on demand, at most 2 * 2^3 + ... distinct ones.
_METRICS_TUPLES: dict[tuple[str, ...], tuple[str, ...]] = {}


def _metrics_tuple(names: list[str]) -> tuple[str, ...]:
    key = tuple(names)
    return _METRICS_TUPLES.setdefault(key, key)


class FioJsonParser:
    """Parser for fio ``--output-format=json`` / ``json+`` output, with or without
    ``--status-interval=N``, stdout and stderr fed together in arrival order.

    fio prints concatenated, pretty-printed JSON documents, each from a ``{`` line to a ``}``
    line; with ``--status-interval`` one every N seconds, then the final one. Each document is
    **cumulative since the job started** (since the end of ``ramp_time``, when fio resets its
    statistics). The parser differences consecutive documents per ``jobs[]`` entry (a job, or
    a group with ``--group_reporting``) and per direction. Lines outside documents, and lines
    that interrupt a document without being part of it (stderr), are checked for
    ``fio: ...`` errors.

    Records, one per stream per document (metrics in this order, for each direction that did
    I/O: ``read_*`` then ``write_*``): ``{dir}_iops`` = Δtotal_ios / Δruntime and
    ``{dir}_bytes_per_s`` = Δio_bytes / Δruntime, where Δruntime is the change of the
    direction's own ``runtime`` (ms, fio's denominator for its ``iops`` and ``bw``: so the
    intervals of a job, weighted by their Δruntime, average to fio's own figure);
    ``{dir}_lat_mean_us`` = Δ(lat_ns.mean × lat_ns.N) / ΔN when ΔN > 0;
    ``{dir}_lat_p99_us`` from the difference of the two documents' ``clat_ns.bins`` (json+
    only), with fio's own percentile rule. ``total_ios`` counts I/Os issued, so an interval
    that only drains the I/Os in flight has none: intervals shorter than
    ``MIN_INTERVAL_MS`` (the final document often comes a few ms after the last periodic
    one) are merged into the next, or left to the summary. During ``ramp_time`` (documents
    with I/O but no latency samples, of a job with that option) there are no records; the
    reset of fio's counters that ends it is detected, and the next interval starts from zero.

    Streams: ``"sum"`` sums every entry's IOPS and bandwidth, weights latency by I/Os and
    merges the histograms; with more than one ``jobs[]`` entry each also has a stream
    ``"<jobname>.<index in jobs[]>"`` (``"pairbench.0"``, ``"pairbench.1"``).

    ``t``: seconds since the job started doing I/O (``ramp_time`` included), on fio's own
    clock: the first document whose runtime is non-zero anchors the start at
    ``timestamp_ms - max(runtime)`` and every document's ``t`` is
    ``(timestamp_ms - start) / 1000`` (``job_runtime`` cannot serve: it is summed over the
    jobs of a group and restarts after ``ramp_time``; ``elapsed`` is whole seconds). A
    document that does not advance ``t``, or gives no interval, gives no records.

    Summary, from the last complete document (fio's own figures up to then), for each
    direction that did I/O, summed over the ``jobs[]`` entries: ``{dir}_iops`` (Σ ``iops``),
    ``{dir}_bytes_per_s`` (Σ ``bw_bytes``), ``{dir}_lat_mean_us`` (``lat_ns.mean`` weighted
    by ``lat_ns.N``), ``{dir}_lat_p50_us``, ``{dir}_lat_p99_us``, ``{dir}_lat_p999_us`` from
    ``clat_ns.percentile`` (completion latency, as fio reports percentiles): exact for one
    entry; for several, computed from the merged json+ histograms (what fio itself reports
    with ``--group_reporting``), or, without histograms (plain json), the maximum over the
    entries. ``complete`` is True when at least one document was read and the output did not
    stop inside one: a stream cut exactly between two documents looks finished, so the
    engine's exit status decides then. ``error``: the ``fio: ...`` error messages (warnings
    excluded, at most five, joined by "; "), else a non-zero JSON ``error`` of a job.
    """

    __slots__ = (
        "_anchor_ms",
        "_bases",
        "_doc_chars",
        "_doc_lines",
        "_documents",
        "_errors",
        "_last",
        "_last_t",
        "_max_chars",
        "_min_ms",
        "_prev_ts",
        "_step_ms",
    )

    def __init__(
        self, *, max_document_chars: int = MAX_DOCUMENT_CHARS, interval_s: float | None = None
    ) -> None:
        self._max_chars = max_document_chars
        # Intervals shorter than this are merged into the next: ``MIN_INTERVAL_MS``, or half
        # the status interval when that is shorter (``interval_s`` for a live run; for a saved
        # output, half the longest step between its documents so far, the first one
        # measured from the start of I/O).
        self._min_ms = _min_interval_ms(interval_s * 1000.0) if interval_s else None
        self._step_ms = 0.0
        self._prev_ts: float | None = None
        self._doc_lines: list[str] | None = None  # None: outside a document
        self._doc_chars = 0
        self._documents = 0
        self._errors: list[str] = []
        self._last: _Doc | None = None
        self._bases: dict[tuple[tuple[int, str], int], _Base] = {}
        self._anchor_ms: float | None = None
        self._last_t: float | None = None

    @property
    def documents(self) -> int:
        """How many complete documents were read."""
        return self._documents

    @property
    def has_bins(self) -> bool:
        """True when the last document had latency histograms (json+)."""
        doc = self._last
        return doc is not None and any(
            d.bins is not None for job in doc.jobs for d in job.dirs if d is not None
        )

    def final_bins(self) -> dict[str, dict[int, float]]:
        """The last document's completion-latency histograms (json+ ``clat_ns.bins``, ns →
        count) per direction that did I/O, merged over the ``jobs[]`` entries; empty
        without json+ histograms."""
        doc = self._last
        out: dict[str, dict[int, float]] = {}
        if doc is None:
            return out
        for index, name in enumerate(_DIRECTIONS):
            dirs = [d for job in doc.jobs if (d := job.dirs[index]) is not None and d.lat_n > 0]
            if dirs and all(d.bins is not None for d in dirs):
                merged = _merge_bins(d.bins for d in dirs if d.bins is not None)
                if merged:
                    out[name] = {k: v for k, v in sorted(merged.items()) if v > 0.0}
        return out

    @property
    def in_document(self) -> bool:
        """True while a document has begun and not yet ended."""
        return self._doc_lines is not None

    def feed(self, line: str) -> list[Record]:
        """Parse one line; returns the records it completes (a document's last line)."""
        lines = self._doc_lines
        if lines is not None:
            first = line[:1]
            if first == " " or first == "\t":
                size = self._doc_chars + len(line) + 1
                if size > self._max_chars:
                    self._doc_lines = None
                    self._doc_chars = 0
                    raise ParseError(f"fio: JSON document longer than {self._max_chars} characters")
                self._doc_chars = size
                lines.append(line)
                return []
            text = line.rstrip()
            if text == "}":
                lines.append(text)
                self._doc_lines = None
                self._doc_chars = 0
                return self._document("\n".join(lines))
            if text == "{":  # a new document while one is open: the open one was cut short
                self._doc_lines = ["{"]
                self._doc_chars = 2
                raise ParseError("fio: a JSON document ended before its closing '}'")
            if text:
                self._other_line(text)  # stderr interleaved with the document
            return []
        text = line.rstrip()
        if text[:1] != "{":
            if text:
                self._other_line(text)
            return []
        if text == "{":
            self._doc_lines = ["{"]
            self._doc_chars = 2
            return []
        if text[-1:] == "}":  # a whole document on one line (jq -c, for example)
            if len(text) > self._max_chars:
                raise ParseError(f"fio: JSON document longer than {self._max_chars} characters")
            return self._document(text)
        return []

    def _other_line(self, text: str) -> None:
        message = fio_error_message(text)
        errors = self._errors
        if message is not None and message not in errors and len(errors) < _MAX_ERRORS:
            errors.append(message)

    def _document(self, text: str) -> list[Record]:
        try:
            raw = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ParseError(f"fio: malformed JSON document: {exc}"[:300]) from exc
        doc = _read_document(raw)
        self._documents += 1
        self._last = doc
        return self._intervals(doc)

    # ------------------------------------------------------------------ intervals

    def _intervals(self, doc: _Doc) -> list[Record]:
        """Records of the intervals since the previous document; baselines move on."""
        per_job: list[tuple[_Job, list[_Interval | None]]] = []
        bases = self._bases
        min_ms = self._shortest_kept(doc)
        max_runtime = 0.0
        advanced = False
        for job in doc.jobs:
            intervals: list[_Interval | None] = []
            for index, cur in enumerate(job.dirs):
                if cur is None:
                    intervals.append(None)
                    continue
                max_runtime = max(max_runtime, cur.runtime_ms)
                key = (job.key, index)
                base = bases.get(key, _ZERO)
                interval, bases[key] = _interval(cur, base, min_ms)
                if job.in_ramp and cur.lat_n <= 0.0:
                    interval = None  # ramp_time: fio measures nothing yet, nor do we
                if interval is not None:
                    advanced = True
                intervals.append(interval)
            per_job.append((job, intervals))
        t = self._time(doc, max_runtime)
        if t is None or not advanced:
            return []
        last = self._last_t
        if last is not None and t <= last:
            return []
        self._last_t = t
        records: list[Record] = []
        total = _record("sum", t, [[iv[d] for _, iv in per_job] for d in range(2)])
        if total is not None:
            records.append(total)
        if len(per_job) > 1:
            for job, intervals in per_job:
                record = _record(job.stream, t, [[iv] for iv in intervals])
                if record is not None:
                    records.append(record)
        return records

    def _shortest_kept(self, doc: _Doc) -> float:
        """The shortest interval kept (ms): known, or half the longest step so far."""
        if self._min_ms is not None:
            return self._min_ms
        ts = doc.timestamp_ms
        if ts is not None and self._prev_ts is not None:
            self._step_ms = max(self._step_ms, ts - self._prev_ts)
        elif self._step_ms <= 0.0:  # the first document with I/O: its own runtime
            runtimes = (d.runtime_ms for job in doc.jobs for d in job.dirs if d is not None)
            self._step_ms = max(runtimes, default=0.0)
        if self._step_ms > 0.0 and ts is not None:
            self._prev_ts = ts
        return _min_interval_ms(self._step_ms) if self._step_ms > 0.0 else MIN_INTERVAL_MS

    def _time(self, doc: _Doc, max_runtime_ms: float) -> float | None:
        """The document's ``t`` (see the class docstring); None before any I/O."""
        ts = doc.timestamp_ms
        if ts is None:
            return max_runtime_ms / 1000.0 if max_runtime_ms > 0.0 else None
        if self._anchor_ms is None:
            if max_runtime_ms <= 0.0:
                return None
            self._anchor_ms = ts - max_runtime_ms
        return (ts - self._anchor_ms) / 1000.0

    # ------------------------------------------------------------------ summary

    def close(self) -> Summary:
        """The run's summary: fio's own cumulative figures from the last document."""
        complete = self._documents > 0 and self._doc_lines is None
        values: dict[str, float] = {}
        error = "; ".join(self._errors) or None
        doc = self._last
        if doc is not None:
            for index, name in enumerate(_DIRECTIONS):
                _summarise(
                    name, [d for job in doc.jobs if (d := job.dirs[index]) is not None], values
                )
            if error is None:
                failed = [job for job in doc.jobs if job.error]
                if failed:
                    error = f"job {failed[0].stream}: error {failed[0].error}"
        return Summary(values=values, complete=complete, error=error)


# ---------------------------------------------------------------------- reading documents


def _number(obj: Mapping[str, object], key: str, default: float | None = None) -> float:
    """A JSON number in fio's range (0 ≤ x ≤ 2^64, finite) as a float; ParseError otherwise."""
    value = obj.get(key)
    if value is None and default is not None and key not in obj:
        return default
    if type(value) is int or type(value) is float:  # not bool
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if 0.0 <= number <= _MAX_NUMBER:
            return number
    raise ParseError(f"fio: JSON field {key!r} is not a fio number: {preview(value, 60)!r}")


def _mapping(obj: Mapping[str, object], key: str) -> Mapping[str, object] | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ParseError(f"fio: JSON field {key!r} is not an object")
    return value


def _read_document(raw: object) -> _Doc:
    """The parts of a decoded document the parser uses; ParseError if it is not fio's."""
    if not isinstance(raw, dict) or not isinstance(raw.get("jobs"), list):
        raise ParseError("fio: JSON document without a 'jobs' list: not fio output")
    timestamp: float | None = None
    if "timestamp_ms" in raw:
        timestamp = _number(raw, "timestamp_ms")
    elif "timestamp" in raw:
        timestamp = _number(raw, "timestamp") * 1000.0
    global_options = raw.get("global options")
    global_ramp = _ramp_seconds(global_options if isinstance(global_options, dict) else {})
    jobs: list[_Job] = []
    for index, entry in enumerate(raw["jobs"]):
        if not isinstance(entry, dict):
            raise ParseError(f"fio: jobs[{index}] is not an object")
        name = entry.get("jobname", "job")
        if not isinstance(name, str):
            raise ParseError(f"fio: jobs[{index}].jobname is not a string")
        name = name[:64]
        error = _number(entry, "error", 0.0)
        dirs = (_read_direction(entry, "read"), _read_direction(entry, "write"))
        options = entry.get("job options")
        ramp = _ramp_seconds(options if isinstance(options, dict) else {}) or global_ramp
        in_ramp = ramp > 0.0 and _number(entry, "elapsed", 0.0) <= ramp + 1.0
        jobs.append(_Job((index, name), f"{name}.{index}", int(error), dirs, in_ramp))
    return _Doc(timestamp, tuple(jobs))


_TIME_RE: Final = re.compile(r"(\d{1,9})(us|ms|s|m|h|d)?")
_TIME_UNITS: Final = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def _ramp_seconds(options: Mapping[str, object]) -> float:
    """A job's ``ramp_time`` option ("2", "500ms", "1m") in seconds; 0 if absent or unknown."""
    value = options.get("ramp_time")
    if not isinstance(value, str):
        return 0.0
    match = _TIME_RE.fullmatch(value.strip())
    if match is None:
        return 0.0
    return int(match.group(1)) * _TIME_UNITS[match.group(2) or "s"]


def _read_direction(entry: Mapping[str, object], name: str) -> _Dir | None:
    obj = _mapping(entry, name)
    if obj is None:
        return None
    runtime = _number(obj, "runtime")
    ios = _number(obj, "total_ios")
    io_bytes = _number(obj, "io_bytes")
    # Defaults for documents without iops or bw_bytes (fio prints both; runtime is whole ms, so
    # the quotients stay finite).
    iops = _number(obj, "iops", ios * 1000.0 / runtime if runtime >= 1.0 else 0.0)
    bw = _number(obj, "bw_bytes", io_bytes * 1000.0 / runtime if runtime >= 1.0 else 0.0)
    lat_mean = lat_n = 0.0
    lat = _mapping(obj, "lat_ns")
    if lat is not None:
        lat_mean = _number(lat, "mean", 0.0)
        lat_n = _number(lat, "N", 0.0)
    percentiles: dict[str, float] = {}
    bins: dict[int, float] | None = None
    clat = _mapping(obj, "clat_ns")
    if clat is not None:
        pct = _mapping(clat, "percentile")
        if pct is not None:
            for key, _ in _PERCENTILES:
                if key in pct:
                    percentiles[key] = _number(pct, key)
        raw_bins = _mapping(clat, "bins")
        if raw_bins is not None:
            bins = {}
            for key in raw_bins:
                if not (key.isascii() and key.isdigit()) or len(key) > 20:
                    raise ParseError(f"fio: clat_ns.bins key {key[:40]!r} is not a latency")
                bins[int(key)] = _number(raw_bins, key)
    return _Dir(runtime, ios, io_bytes, iops, bw, lat_mean, lat_n, percentiles, bins)


# ---------------------------------------------------------------------- arithmetic


def _min_interval_ms(status_interval_ms: float) -> float:
    """The shortest interval kept at a status interval: ``MIN_INTERVAL_MS``, or half the
    status interval when that is less (at ``--status-interval=100ms`` an interval is 99 to
    101 ms of runtime; the final document's few ms are still merged)."""
    return min(MIN_INTERVAL_MS, status_interval_ms / 2.0)


def _interval(
    cur: _Dir, base: _Base, min_ms: float = MIN_INTERVAL_MS
) -> tuple[_Interval | None, _Base]:
    """The interval from ``base`` to ``cur`` (None if there is none yet) and the next base.

    fio resets its statistics when ``ramp_time`` ends; the interval then starts from zero. A
    reset shows as a counter that went down, or as the first latency samples after documents
    with I/O but none (fio records no latency during ``ramp_time``; the counters after the
    reset may well exceed those before it). An interval shorter than ``min_ms`` keeps the old
    base: its I/O goes into the next interval.
    """
    if (
        cur.runtime_ms < base.runtime_ms
        or cur.ios < base.ios
        or cur.io_bytes < base.io_bytes
        or (base.lat_n <= 0.0 < cur.lat_n and base.ios > 0.0)
    ):
        base = _ZERO
    elif cur.lat_n < base.lat_n:
        base = base._replace(lat_sum_ns=0.0, lat_n=0.0, bins=None)
    lat_sum = cur.lat_mean_ns * cur.lat_n
    nxt = _Base(cur.runtime_ms, cur.ios, cur.io_bytes, lat_sum, cur.lat_n, cur.bins)
    dt_ms = cur.runtime_ms - base.runtime_ms
    if dt_ms <= 0.0 or (cur.ios <= 0.0 and cur.io_bytes <= 0.0):
        return None, nxt
    if dt_ms < min_ms:
        return None, base
    bins: dict[int, float] | None = None
    if cur.bins is not None:
        bins = _bins_difference(cur.bins, base.bins)
    interval = _Interval(
        (cur.ios - base.ios) * 1000.0 / dt_ms,
        (cur.io_bytes - base.io_bytes) * 1000.0 / dt_ms,
        lat_sum - base.lat_sum_ns,
        cur.lat_n - base.lat_n,
        bins,
    )
    return interval, nxt


def _bins_difference(
    cur: Mapping[int, float], base: Mapping[int, float] | None
) -> dict[int, float]:
    """``cur - base`` per bin, without empty bins; ``cur`` itself if a count went down."""
    if not base:
        return {k: v for k, v in cur.items() if v > 0.0}
    out: dict[int, float] = {}
    for k, v in cur.items():
        d = v - base.get(k, 0.0)
        if d < 0.0:
            return {k: v for k, v in cur.items() if v > 0.0}
        if d > 0.0:
            out[k] = d
    return out


def _merge_bins(histograms: Iterable[Mapping[int, float]]) -> dict[int, float]:
    out: dict[int, float] = {}
    for bins in histograms:
        for k, v in bins.items():
            out[k] = out.get(k, 0.0) + v
    return out


def _percentile(bins: Mapping[int, float], percent: float) -> float | None:
    """fio's rule (stat.c, calc_clat_percentiles): the first bin whose cumulative count
    reaches ``percent``% of all. Reproduces fio's printed percentiles from json+ bins."""
    total = sum(bins.values())
    if total <= 0.0:
        return None
    threshold = percent / 100.0 * total
    seen = 0.0
    for value in sorted(bins):
        seen += bins[value]
        if seen >= threshold:
            return float(value)
    return float(max(bins))


fio_percentile = _percentile


def _record(stream: str, t: float, by_dir: list[list[_Interval | None]]) -> Record | None:
    """One stream's record from the intervals of its entries, per direction; None if empty."""
    names: list[str] = []
    values: list[float] = []
    for index, name in enumerate(_DIRECTIONS):
        parts = [iv for iv in by_dir[index] if iv is not None]
        if not parts:
            continue
        names += (f"{name}_iops", f"{name}_bytes_per_s")
        values += (math.fsum(p.iops for p in parts), math.fsum(p.bytes_per_s for p in parts))
        lat_n = sum(p.lat_n for p in parts)
        if lat_n > 0.0:
            names.append(f"{name}_lat_mean_us")
            values.append(math.fsum(p.lat_sum_ns for p in parts) / lat_n / 1000.0)
        with_lat = [p for p in parts if p.lat_n > 0.0]
        if with_lat and all(p.bins is not None for p in with_lat):
            merged = _merge_bins(p.bins for p in with_lat if p.bins is not None)
            p99 = _percentile(merged, _P99)
            if p99 is not None:
                names.append(f"{name}_lat_p99_us")
                values.append(p99 / 1000.0)
    if not names:
        return None
    return Record(stream, t, _metrics_tuple(names), tuple(values))


def _summarise(name: str, dirs: list[_Dir], values: dict[str, float]) -> None:
    """Summary values of one direction over the ``jobs[]`` entries (see FioJsonParser)."""
    active = [d for d in dirs if d.ios > 0.0 or d.io_bytes > 0.0]
    if not active:
        return
    values[f"{name}_iops"] = math.fsum(d.iops for d in active)
    values[f"{name}_bytes_per_s"] = math.fsum(d.bw_bytes for d in active)
    with_lat = [d for d in active if d.lat_n > 0.0]
    if len(with_lat) == 1:
        values[f"{name}_lat_mean_us"] = with_lat[0].lat_mean_ns / 1000.0
    elif with_lat:
        lat_sum = math.fsum(d.lat_mean_ns * d.lat_n for d in with_lat)
        values[f"{name}_lat_mean_us"] = lat_sum / sum(d.lat_n for d in with_lat) / 1000.0
    if not with_lat:
        return
    merged: dict[int, float] | None = None
    if len(with_lat) > 1 and all(d.bins is not None for d in with_lat):
        merged = _merge_bins(d.bins for d in with_lat if d.bins is not None)
    for key, suffix in _PERCENTILES:
        value: float | None
        if len(with_lat) == 1:
            value = with_lat[0].percentiles.get(key)
        elif merged is not None:
            value = _percentile(merged, float(key))
        else:
            known = [d.percentiles[key] for d in with_lat if key in d.percentiles]
            value = max(known) if known else None
        if value is not None:
            values[f"{name}_lat_{suffix}_us"] = value / 1000.0


def parse_json_output(text: str) -> tuple[list[Record], Summary]:
    """Parse a whole fio JSON output (lines split on "\\n") and return records and summary."""
    return feed_text(FioJsonParser(), text)
