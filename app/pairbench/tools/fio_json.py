"""Incremental parser for fio JSON / json+ output, periodic ``--status-interval`` documents too."""

from __future__ import annotations

import json
from typing import Final

from pairbench.domain import Record, Summary
from pairbench.tools.base import ParseError
from pairbench.tools.feed import feed_text
from pairbench.tools.fio_groups import by_group, group_records, group_stream, group_values
from pairbench.tools.fio_json_doc import Doc, Job, read_document
from pairbench.tools.fio_json_math import (
    DIRECTIONS,
    MIN_INTERVAL_MS,
    ZERO,
    Base,
    Interval,
    make_record,
    merge_bins,
    min_interval_ms,
    next_interval,
    percentile,
    summarise,
)

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
    ``MIN_INTERVAL_MS``, or half the status interval when that is shorter
    (``fio_json_math.min_interval_ms``; the final document often comes a few ms after the last
    periodic one), are merged into the next, or left to the summary. During ``ramp_time`` (documents
    with I/O but no latency samples, of a job with that option) there are no records; the
    reset of fio's counters that ends it is detected, and the next interval starts from zero.

    Streams: ``"sum"`` sums every entry's IOPS and bandwidth, weights latency by I/Os and
    merges the histograms; with more than one ``jobs[]`` entry each also has a stream
    ``"<jobname>.<index in jobs[]>"`` (``"pairbench.0"``, ``"pairbench.1"``). A job file of
    several groups (``stonewall``, ``new_group``: the entries' ``groupid``) has no ``"sum"``:
    each group has the aggregate stream ``"group<N>"``, and the entries of a group of more
    than one their own (``fio_groups``).

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
    excluded, at most five, joined by "; "), else a non-zero JSON ``error`` of a job. With
    several groups, these figures are computed per group, over its entries alone, and named
    ``group<N>_{dir}_iops`` ...: no figure adds groups together (``fio_groups.group_values``).
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
        self._min_ms = min_interval_ms(interval_s * 1000.0) if interval_s else None
        self._step_ms = 0.0
        self._prev_ts: float | None = None
        self._doc_lines: list[str] | None = None  # None: outside a document
        self._doc_chars = 0
        self._documents = 0
        self._errors: list[str] = []
        self._last: Doc | None = None
        self._bases: dict[tuple[tuple[int, str], int], Base] = {}
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
        without json+ histograms. A run of several groups (``fio_groups``) has one per group
        and direction, named ``"group<N> read"``: no histogram merges groups."""
        doc = self._last
        out: dict[str, dict[int, float]] = {}
        if doc is None:
            return out
        groups = by_group((job.group, job) for job in doc.jobs)
        for groupid, jobs in groups.items():
            prefix = "" if len(groups) == 1 else f"{group_stream(groupid, len(groups))} "
            for index, name in enumerate(DIRECTIONS):
                dirs = [d for job in jobs if (d := job.dirs[index]) is not None and d.lat_n > 0]
                if dirs and all(d.bins is not None for d in dirs):
                    merged = merge_bins(d.bins for d in dirs if d.bins is not None)
                    if merged:
                        out[prefix + name] = {k: v for k, v in sorted(merged.items()) if v > 0.0}
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
        doc = read_document(raw)
        self._documents += 1
        self._last = doc
        return self._intervals(doc)

    # ------------------------------------------------------------------ intervals

    def _intervals(self, doc: Doc) -> list[Record]:
        """Records of the intervals since the previous document; baselines move on."""
        per_job: list[tuple[Job, list[Interval | None]]] = []
        bases = self._bases
        min_ms = self._shortest_kept(doc)
        max_runtime = 0.0
        advanced = False
        for job in doc.jobs:
            intervals: list[Interval | None] = []
            for index, cur in enumerate(job.dirs):
                if cur is None:
                    intervals.append(None)
                    continue
                max_runtime = max(max_runtime, cur.runtime_ms)
                key = (job.key, index)
                base = bases.get(key, ZERO)
                interval, bases[key] = next_interval(cur, base, min_ms)
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
        return group_records(
            ((job.group, job.stream, intervals) for job, intervals in per_job),
            lambda stream, by_dir: make_record(stream, t, by_dir),
        )

    def _shortest_kept(self, doc: Doc) -> float:
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
        return min_interval_ms(self._step_ms) if self._step_ms > 0.0 else MIN_INTERVAL_MS

    def _time(self, doc: Doc, max_runtime_ms: float) -> float | None:
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
        per_group: dict[int, dict[str, float]] = {}
        error = "; ".join(self._errors) or None
        doc = self._last
        if doc is not None:
            for groupid, jobs in by_group((job.group, job) for job in doc.jobs).items():
                values = per_group[groupid] = {}
                for index, name in enumerate(DIRECTIONS):
                    summarise(
                        name, [d for job in jobs if (d := job.dirs[index]) is not None], values
                    )
            if error is None:
                failed = [job for job in doc.jobs if job.error]
                if failed:
                    error = f"job {failed[0].stream}: error {failed[0].error}"
        return Summary(values=group_values(per_group), complete=complete, error=error)


fio_percentile = percentile


def parse_json_output(text: str) -> tuple[list[Record], Summary]:
    """Parse a whole fio JSON output (lines split on "\\n") and return records and summary."""
    return feed_text(FioJsonParser(), text)
