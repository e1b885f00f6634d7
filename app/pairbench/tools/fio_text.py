"""Parser for fio's normal text output: its summary, and intervals from ``--status-interval``."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Final

from pairbench.domain import Record, Summary
from pairbench.tools.feed import feed_text
from pairbench.tools.fio_groups import by_group, group_values
from pairbench.tools.fio_intervals import Cumulative, ReportDiffer, SlotReport
from pairbench.tools.fio_json import fio_error_message

__all__ = ["FioTextParser", "parse_text_output"]

# fio prints lines of a few hundred characters at most; longer ones are not looked at.
MAX_LINE: Final = 4096

# Numbers are at most 20 digits before and after the point (fio prints a few significant
# digits and a unit prefix), so that every value stays finite: a line with a longer one is not
# fio's and is skipped, as any other line that does not match.
_NUM: Final = r"(\d{1,20}+(?:\.\d{1,20}+)?)"
# A byte or bit unit as fio's num2str prints it: an SI prefix (k M G T P E) for --kb_base=1000,
# an IEC one (Ki Mi Gi Ti Pi Ei) for 1024, then "B", or "bit" with --unit_base=1. "K" and "ki"
# (not fio's own spellings) are read as "k" and "Ki".
_UNIT: Final = r"((?:[kKMGTPE]i?)?(?:B|bit))"
# The count prefix of IOPS and latencies (num2str without a unit): SI only.
_SI: Final = r"([kKMGTPE]?)"
_JOB_RE: Final = re.compile(
    r"(\S[^\n]*?): \(groupid=(\d{1,9}), jobs=\d+\): err=\s*(\d+)(?: \(([^\n]*)\))?: pid="
)
_DIR_RE: Final = re.compile(
    r"\s+(read|write|trim): IOPS=" + _NUM + _SI + r", BW=" + _NUM + _UNIT + r"/s"
    r" \(" + _NUM + _UNIT + r"/s\)"
    r"(?:\(" + _NUM + _UNIT + r"/(\d{1,20})msec\))?"
)
_LAT_RE: Final = re.compile(
    r"\s+lat \((nsec|usec|msec|sec)\): min=\s*[\d.]+[kKMGTPE]?, max=\s*[\d.]+[kKMGTPE]?,"
    r" avg=\s*" + _NUM + _SI + ","
)
_PCT_HEAD_RE: Final = re.compile(r"\s+(clat|lat|slat) percentiles \((nsec|usec|msec|sec)\):")
_PCT_RE: Final = re.compile(r"(\d+\.\d+)th=\[\s*" + _NUM + _SI + r"\]")
_ISSUED_RE: Final = re.compile(r"\s+issued rwts: total=(\d{1,20}),(\d{1,20}),(\d{1,20})")
_GROUP_RE: Final = re.compile(r"Run status group (\d{1,9}) ")
# The job list fio prints first: "f1: (g=0): rw=write, bs=(R) 4096B-4096B, ..." (every group).
_HEADER_RE: Final = re.compile(r"\S[^\n]*?: \(g=(\d{1,9})\): rw=")
_GROUP_BW_RE: Final = re.compile(
    r"\s+(READ|WRITE|TRIM): bw=" + _NUM + _UNIT + r"/s \(" + _NUM + _UNIT + r"/s\)"
)

# Prefixes as powers of 1000 (SI) or 1024 (IEC); "K" is not fio's but was once common.
_POWER: Final = {"": 0, "k": 1, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}
_TIME_EXP: Final = {"nsec": 0, "usec": 3, "msec": 6, "sec": 9}
_PERCENTILES: Final = {"50.00": "p50", "99.00": "p99", "99.90": "p999"}
_DIRECTIONS: Final = ("read", "write")


def _decimal(number: str, prefix: str, exp: int = 0) -> float:
    """A number with an SI prefix ("36.4k") times 10**exp: the exponent is appended to the
    printed digits, so that "36.4k" is the float nearest 36400 exactly as printed."""
    return float(f"{number}e{3 * _POWER[prefix] + exp}")


def _rate(number: str, unit: str) -> tuple[float, bool]:
    """A bandwidth as printed ("142MiB", "149MB", "1136Mibit") in B/s, and whether its prefix
    was binary (a power of two: multiplying and dividing by 8 are exact)."""
    bits = unit.endswith("bit")
    prefix = unit[: -3 if bits else -1]
    binary = prefix.endswith("i")
    value = float(number) * 1024.0 ** _POWER[prefix[:-1]] if binary else _decimal(number, prefix)
    return (value / 8.0 if bits else value), binary


def _bytes_per_s(n1: str, u1: str, n2: str, u2: str) -> float:
    """Bandwidth from fio's "142MiB/s (149MB/s)" pair: the binary figure (more digits of the
    two, and exact as B/s), else the first one."""
    first, binary = _rate(n1, u1)
    if binary:
        return first
    second, binary = _rate(n2, u2)
    return second if binary else first


def _ns(number: str, prefix: str, unit: str) -> float:
    """A latency as printed ("873.63" usec, "4364.8k" nsec) in ns."""
    return _decimal(number, prefix, _TIME_EXP[unit])


@dataclass
class _DirBlock:
    """One direction of one job (or group) block."""

    iops: float
    bytes_per_s: float
    io_bytes: float | None = None  # from "(389MiB/3001msec)": to date
    runtime_ms: float | None = None
    lat_mean_ns: float | None = None
    ios: float | None = None  # from "issued rwts"
    percentiles: dict[str, float] = field(default_factory=dict)  # p50/p99/p999 -> ns


@dataclass
class _JobBlock:
    name: str
    group: int = 0  # fio's groupid
    dirs: dict[str, _DirBlock] = field(default_factory=dict)

    def cumulative(self, name: str) -> Cumulative | None:
        """One direction's figures to date, for the intervals (None: absent or unknown)."""
        d = self.dirs.get(name)
        if d is None or d.runtime_ms is None or d.io_bytes is None:
            return None
        ios = d.ios if d.ios is not None else d.iops * d.runtime_ms / 1000.0
        return Cumulative(d.runtime_ms, ios, d.io_bytes, d.lat_mean_ns)


class FioTextParser:
    """Parser for fio's default (``--output-format=normal``) text output.

    Each dump (the job or group blocks, then ``Run status group`` lines) is cumulative since
    the jobs started; ``--status-interval`` prints one every interval, then the final one.
    Records (only with ``intervals=True``, as ``FioAutoParser`` makes it; else none), when a
    dump's first ``Run status group`` line comes: the interval since the
    previous dump (``ReportDiffer`` with exact I/O counts), per block in order (stream
    ``"<job name>.<index>"`` with several blocks) and summed (``"sum"``): ``{dir}_iops`` from
    the ``issued rwts`` counts and the runtime of ``read: ... (389MiB/3001msec)``,
    ``{dir}_bytes_per_s`` from them and the mean I/O size of that line (three digits), and
    ``{dir}_lat_mean_us`` from the ``lat (usec): avg=`` means; no percentiles (the text has
    cumulative ones only). A single dump (no ``--status-interval``) gives one record, for the
    whole run. The summary, for each direction that did I/O, sums the job (or group) blocks of
    the last dump: ``{dir}_iops`` from ``read: IOPS=36.4k`` (as printed, about three digits),
    ``{dir}_bytes_per_s`` from the ``Run status group`` lines' ``bw=285MiB/s``, or the blocks'
    ``BW=`` without them; always the binary figure (MiB/s × 2^20), which has more digits than
    the decimal one in parentheses. ``{dir}_lat_mean_us`` from the ``lat (usec): ... avg=``
    lines, weighted by the ``issued rwts`` counts (or by IOPS), and ``{dir}_lat_p50_us``,
    ``_p99_us``, ``_p999_us`` from the ``clat percentiles`` rows: exact for one block, the
    maximum over several. ``complete`` once a ``Run status group`` line was seen, unless the
    output stops inside a later dump (then the last whole one is reported); ``error`` from
    ``fio: ...`` lines (warnings excluded) or a job's ``err=`` when non-zero. A later dump of
    the same jobs (``--status-interval`` text) replaces the earlier one. Blocks of several
    groups (``(groupid=N, ...)``: ``stonewall``, ``new_group``) are summed per group only, each
    with its own ``Run status group N`` bandwidth, named ``group<N>_...``; their records are the
    groups' streams (``fio_intervals``, ``fio_groups``).
    """

    __slots__ = (
        "_blocks",
        "_complete",
        "_cur_dir",
        "_differ",
        "_done",
        "_errors",
        "_group_bw",
        "_group_now",
        "_groups",
        "_intervals",
        "_pct",
        "_stale",
        "dumps",
    )

    def __init__(self, *, intervals: bool = False) -> None:
        self._intervals = intervals
        self.dumps = 0  # complete dumps read
        self._differ = ReportDiffer("ios")
        self._blocks: list[_JobBlock] = []
        self._group_bw: dict[int, dict[str, float]] = {}  # group -> direction -> B/s
        self._group_now = 0  # the group of the "Run status group N" lines being read
        self._groups: set[int] = set()  # fio's groups, from the job list at the top
        self._errors: list[str] = []
        self._complete = False
        self._stale = False  # a "Run status group" ended the current dump
        # the last ended dump: its blocks and its groups' bandwidths
        self._done: tuple[list[_JobBlock], dict[int, dict[str, float]]] | None = None
        self._cur_dir: _DirBlock | None = None
        self._pct: tuple[_DirBlock, str] | None = None  # collecting clat percentiles (unit)

    @property
    def seen(self) -> bool:
        """True once a job block began: the output is fio's normal text."""
        return bool(self._blocks) or self.dumps > 0

    def feed(self, line: str) -> list[Record]:
        """Parse one line; returns the records of a dump it completes."""
        if len(line) > MAX_LINE:
            return []
        text = line.rstrip()
        if not text:
            return []
        if self._pct is not None:
            if text.lstrip().startswith("|"):
                self._percentile_row(text)
                return []
            self._pct = None
        if text.startswith("fio: "):
            message = fio_error_message(text)
            if message is not None and message not in self._errors and len(self._errors) < 5:
                self._errors.append(message)
            return []
        if text[0] != " ":
            return self._top_line(text)
        self._indented_line(text)
        return []

    def _top_line(self, text: str) -> list[Record]:
        job = _JOB_RE.match(text)
        if job is not None:
            if self._stale:  # a new dump of the same jobs: it replaces the last one
                self._done = (self._blocks, self._group_bw)
                self._blocks, self._group_bw, self._stale = [], {}, False
            self._blocks.append(_JobBlock(job.group(1)[:64], int(job.group(2))))
            self._cur_dir = None
            if job.group(3) != "0":
                detail = f" ({job.group(4)})" if job.group(4) else ""
                message = f"{job.group(1)}: err={job.group(3)}{detail}"[:300]
                if message not in self._errors and len(self._errors) < 5:
                    self._errors.append(message)
        elif (header := _HEADER_RE.match(text)) is not None:
            self._groups.add(int(header.group(1)))
        elif (status := _GROUP_RE.match(text)) is not None:
            self._complete = True
            self._cur_dir = None
            self._group_now = int(status.group(1))
            if not self._stale and self._blocks:
                self._stale = True
                self.dumps += 1
                slots = [
                    SlotReport(
                        f"{b.name}.{i}", (b.cumulative("read"), b.cumulative("write")), b.group
                    )
                    for i, b in enumerate(self._blocks)
                ]
                return self._differ.report(slots, self._groups) if self._intervals else []
            self._stale = True
        return []

    def _indented_line(self, text: str) -> None:
        if self._stale:
            m = _GROUP_BW_RE.match(text)
            if m is not None:
                name = m.group(1).lower()
                bw = _bytes_per_s(m.group(2), m.group(3), m.group(4), m.group(5))
                group = self._group_bw.setdefault(self._group_now, {})
                group[name] = group.get(name, 0.0) + bw
            return
        if not self._blocks:
            return
        block = self._blocks[-1]
        m = _DIR_RE.match(text)
        if m is not None:
            iops = _decimal(m.group(2), m.group(3))
            bw = _bytes_per_s(m.group(4), m.group(5), m.group(6), m.group(7))
            new = _DirBlock(iops, bw)
            if m.group(10) is not None:
                new.io_bytes = _rate(m.group(8), m.group(9))[0]
                new.runtime_ms = float(m.group(10))
            self._cur_dir = block.dirs[m.group(1)] = new
            return
        cur = self._cur_dir
        if cur is not None:
            m = _LAT_RE.match(text)
            if m is not None:
                cur.lat_mean_ns = _ns(m.group(2), m.group(3), m.group(1))
                return
            m = _PCT_HEAD_RE.match(text)
            if m is not None:
                if m.group(1) == "clat":
                    self._pct = (cur, m.group(2))
                return
        m = _ISSUED_RE.match(text)
        if m is not None:
            for name, count in zip(("read", "write", "trim"), m.groups(), strict=True):
                if name in block.dirs:
                    block.dirs[name].ios = float(count)

    def _percentile_row(self, text: str) -> None:
        assert self._pct is not None
        cur, unit = self._pct
        for pct, number, suffix in _PCT_RE.findall(text):
            name = _PERCENTILES.get(pct)
            if name is not None:
                cur.percentiles[name] = _ns(number, suffix, unit)

    def close(self) -> Summary:
        """The summary of the last complete dump (see the class docstring); ``complete`` is
        False when the output stops inside a dump (the one before it is reported then)."""
        blocks, group_bw, complete = self._blocks, self._group_bw, self._complete
        if blocks and not self._stale:  # a dump cut short
            complete = False
            if self._done is not None:
                blocks, group_bw = self._done
        per_group: dict[int, dict[str, float]] = {}
        for groupid, members in by_group((b.group, b) for b in blocks).items():
            values = per_group[groupid] = {}
            for name in _DIRECTIONS:
                dirs = [d for b in members if (d := b.dirs.get(name)) is not None]
                active = [d for d in dirs if d.iops > 0.0 or d.bytes_per_s > 0.0]
                if not active:
                    continue
                values[f"{name}_iops"] = math.fsum(d.iops for d in active)
                values[f"{name}_bytes_per_s"] = group_bw.get(groupid, {}).get(name) or math.fsum(
                    d.bytes_per_s for d in active
                )
                _latency(name, active, values)
        error = "; ".join(self._errors) or None
        values = group_values(per_group, self._groups)
        return Summary(values=values, complete=complete, error=error)


def _latency(name: str, dirs: list[_DirBlock], values: dict[str, float]) -> None:
    with_lat = [d for d in dirs if d.lat_mean_ns is not None]
    if len(with_lat) == 1 and with_lat[0].lat_mean_ns is not None:
        values[f"{name}_lat_mean_us"] = with_lat[0].lat_mean_ns / 1000.0
    elif with_lat:
        use_ios = all(d.ios is not None for d in with_lat)
        weights = [(d.ios if use_ios and d.ios is not None else d.iops) for d in with_lat]
        total = sum(weights)
        if total > 0.0:
            weighted = math.fsum(
                w * d.lat_mean_ns for w, d in zip(weights, with_lat, strict=True) if d.lat_mean_ns
            )
            values[f"{name}_lat_mean_us"] = weighted / total / 1000.0
    for suffix in ("p50", "p99", "p999"):
        known = [d.percentiles[suffix] for d in dirs if suffix in d.percentiles]
        if known:
            values[f"{name}_lat_{suffix}_us"] = max(known) / 1000.0


def parse_text_output(text: str) -> tuple[list[Record], Summary]:
    """Parse a whole fio text output (lines split on "\\n"): no records, and the summary."""
    return feed_text(FioTextParser(), text)
