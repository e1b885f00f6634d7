"""Parser for fio's terse (``--output-format=terse``, ``--minimal``) output, versions 2 to 5."""

from __future__ import annotations

import math
import re
from typing import Final, NamedTuple

from pairbench.domain import Record, Summary
from pairbench.tools.base import ParseError
from pairbench.tools.feed import feed_text
from pairbench.tools.fio_groups import by_group, group_values
from pairbench.tools.fio_intervals import Cumulative, ReportDiffer, SlotReport
from pairbench.tools.fio_json import fio_error_message

__all__ = ["FioTerseParser", "parse_terse_output", "terse_version"]

# A terse line is a few kB (v5 with many disks); longer ones are not looked at.
MAX_LINE: Final = 65536

# Field layout (fio 3.33 stat.c, show_thread_status_terse_all; ``man fio`` "TERSE OUTPUT"):
# "2;name;groupid;error" (v2) or "V;fio-x.y;name;groupid;error" (v3-v5), then per direction
# (read, write, and trim except in v3): io KiB, bw KiB/s, IOPS, runtime ms; slat, clat
# min/max/mean/stdev (usec); 20 clat percentiles "P%=usec"; lat (total) min/max/mean/stdev
# (usec); bw min/max/agg%/mean/stdev (KiB/s); v5 adds bw samples and IOPS
# min/max/mean/stdev/samples. Then CPU (5), I/O depths (7), latency buckets (10 + 12), and
# from v3 the disk utilisation, then the continue_on_error and description fields if set.
_HEADER: Final = {2: 4, 3: 5, 4: 5, 5: 5}
_PER_DIR: Final = {2: 41, 3: 41, 4: 41, 5: 47}
_DIR_COUNT: Final = {2: 3, 3: 2, 4: 3, 5: 3}
_AFTER_DIRS: Final = 5 + 7 + 10 + 12
_IO, _BW, _IOPS, _RUNTIME, _PCT, _LAT_MEAN = 0, 1, 2, 3, 12, 34
_PERCENTILES: Final = {"50.000000": "p50", "99.000000": "p99", "99.900000": "p999"}
_DIRECTIONS: Final = ("read", "write")
_INT_RE: Final = re.compile(r"[0-9]{1,20}")
_FLOAT_RE: Final = re.compile(r"[0-9]{1,20}(?:\.[0-9]{1,20})?")
_PCT_RE: Final = re.compile(r"([0-9]{1,3}\.[0-9]{1,20})%=([0-9]{1,20})")
_START_RE: Final = re.compile(r"[2-5];")
# A terse line of a version this parser does not know (a later fio's): "6;fio-4.0;job;...".
_OTHER_VERSION_RE: Final = re.compile(r"([0-9]{1,4});fio-[0-9]")
# Clones of one job (numjobs) print lines with the same name; within one report their
# runtimes differ by a few ms. A line of the first job's name that is later than this (or
# whose disk figures differ) begins the next report.
CLONE_SPREAD_MS: Final = 50.0
_MAX: Final = float(2**64)


def terse_version(line: str) -> int | None:
    """The terse version (2-5) of a line of fio's terse output, else None."""
    parsed = _parse_line(line)
    return parsed.version if parsed is not None else None


class _Dir(NamedTuple):
    io_kib: float
    bw_kib: float
    iops: float
    runtime_ms: float
    lat_mean_us: float
    percentiles: dict[str, float]  # p50/p99/p999 -> usec


class _Line(NamedTuple):
    version: int
    name: str
    groupid: int
    error: int
    dirs: tuple[_Dir, _Dir]  # read, write
    tail: tuple[str, ...]  # disk utilisation and the rest: the same for clones in a report

    @property
    def runtime_ms(self) -> float:
        return max(self.dirs[0].runtime_ms, self.dirs[1].runtime_ms)


def _number(text: str, pattern: re.Pattern[str]) -> float | None:
    if pattern.fullmatch(text) is None:
        return None
    value = float(text)
    return value if value <= _MAX else None


def _parse_dir(fields: list[str], start: int) -> _Dir | None:
    ints = [_number(fields[start + i], _INT_RE) for i in (_IO, _BW, _IOPS, _RUNTIME)]
    lat = _number(fields[start + _LAT_MEAN], _FLOAT_RE)
    if lat is None or any(v is None for v in ints):
        return None
    percentiles: dict[str, float] = {}
    for text in fields[start + _PCT : start + _PCT + 20]:
        m = _PCT_RE.fullmatch(text)
        if m is None:
            if text != "0%=0":
                return None
            continue
        name = _PERCENTILES.get(m.group(1))
        if name is not None:
            percentiles[name] = float(m.group(2))
    io, bw, iops, runtime = (v or 0.0 for v in ints)
    return _Dir(io, bw, iops, runtime, lat, percentiles)


def _parse_line(line: str) -> _Line | None:
    """A terse line's fields, or None if ``line`` is not one."""
    if len(line) > MAX_LINE or _START_RE.match(line) is None:
        return None
    fields = line.rstrip("\r\n").split(";")
    version = int(fields[0])
    header, per_dir = _HEADER[version], _PER_DIR[version]
    end = header + _DIR_COUNT[version] * per_dir + _AFTER_DIRS
    if len(fields) < end or (version > 2 and not fields[1].startswith("fio-")):
        return None
    gid = _number(fields[header - 2], _INT_RE)
    err = _number(fields[header - 1], _INT_RE)
    read = _parse_dir(fields, header)
    write = _parse_dir(fields, header + per_dir)
    if gid is None or err is None or read is None or write is None:
        return None
    name = fields[header - 3][:64]
    return _Line(version, name, int(gid), int(err), (read, write), tuple(fields[end:]))


class FioTerseParser:
    """Parser for fio's terse output: one ``;``-separated line per job (or group, with
    ``--group_reporting``) per report; with ``--status-interval`` a report every interval,
    each cumulative since the job started, then the final one.

    Reports: the lines have no field names (the layout is fio's, per version, see above) and
    no end-of-report mark. A report is the lines up to the next line of the first job's name
    (clones of one job, ``numjobs``, share the name: a later one in the same report is
    within ``CLONE_SPREAD_MS`` of the first and has the same disk figures); later reports
    have as many lines as the first. So the first report's records come when the second
    report begins, and a single report (no ``--status-interval``) gives none.

    Records (``ReportDiffer`` with exact byte counts): per interval, ``{dir}_bytes_per_s`` from
    Δ io KiB, ``{dir}_iops`` from it and the mean I/O size (KiB / (IOPS × runtime)),
    ``{dir}_lat_mean_us`` from the total latency mean; no percentiles (terse prints
    cumulative ones only). Summary, from the last complete report, summed over its lines for
    each direction that did I/O: ``{dir}_iops`` (fio's whole-number IOPS), ``{dir}_bytes_per_s``
    (bw KiB/s × 1024), ``{dir}_lat_mean_us`` (total latency mean, weighted by IOPS × runtime
    over several lines), ``{dir}_lat_p50_us``/``_p99_us``/``_p999_us`` from the completion
    latency percentiles (whole usec; the maximum over several lines). ``error``: ``fio: ...``
    error lines, else a job's non-zero error field. Lines of several groups (the groupid
    field: ``stonewall``, ``new_group``) are summed per group only, named ``group<N>_...``
    (``fio_groups.group_values``).
    """

    __slots__ = (
        "_current",
        "_differ",
        "_errors",
        "_last",
        "_n",
        "_reports",
        "_truncated",
        "version",
    )

    def __init__(self) -> None:
        self._n: int | None = None  # lines per report, once known
        self._current: list[_Line] = []
        self._last: list[_Line] | None = None
        self._reports = 0
        self._errors: list[str] = []
        self._differ = ReportDiffer("bytes")
        self._truncated = False
        self.version: int | None = None  # of the last terse line read

    @property
    def reports(self) -> int:
        """How many reports were read (the one still open counts once it may be complete)."""
        return self._reports + (1 if self._n is None and self._current else 0)

    def feed(self, line: str) -> list[Record]:
        """Parse one line; returns the records of a report it completes."""
        if line.startswith("fio: "):
            message = fio_error_message(line.rstrip())
            if message is not None and message not in self._errors and len(self._errors) < 5:
                self._errors.append(message)
            return []
        parsed = _parse_line(line)
        if parsed is None:
            if _START_RE.match(line) is not None and line.count(";") >= 20:
                self._truncated = True  # a terse line cut short
            elif (other := _OTHER_VERSION_RE.match(line)) and line.count(";") >= 20:
                raise ParseError(
                    f"fio terse version {other.group(1)}: Pairbench reads versions 2 to 5"
                )
            return []
        self._truncated = False
        self.version = parsed.version
        if parsed.error and len(self._errors) < 5:
            message = f"job {parsed.name}: error {parsed.error}"
            if message not in self._errors:
                self._errors.append(message)
        current = self._current
        if self._n is None:
            if not (current and self._begins_report(parsed)):
                current.append(parsed)
                return []
            self._n = len(current)
            records = self._complete(current)
            current = self._current = []
        else:
            records = []
        current.append(parsed)
        if len(current) >= self._n:
            self._current = []
            records += self._complete(current)
        return records

    def _begins_report(self, line: _Line) -> bool:
        first, last = self._current[0], self._current[-1]
        if (line.name, line.groupid) != (first.name, first.groupid):
            return False
        if (last.name, last.groupid) != (line.name, line.groupid):
            return True  # another job came between: the jobs are listed anew
        spread = abs(line.runtime_ms - first.runtime_ms)
        return spread > CLONE_SPREAD_MS or line.tail != first.tail

    def _complete(self, lines: list[_Line]) -> list[Record]:
        self._last = lines
        self._reports += 1
        slots = [
            SlotReport(
                f"{line.name}.{i}",
                (_cumulative(line.dirs[0]), _cumulative(line.dirs[1])),
                line.groupid,
            )
            for i, line in enumerate(lines)
        ]
        return self._differ.report(slots)

    def close(self) -> Summary:
        """The summary of the last complete report (see the class docstring)."""
        lines = self._last
        complete = self._reports > 0 and not self._current
        if self._n is None and self._current:
            lines, complete = self._current, True
        complete = complete and not self._truncated
        per_group: dict[int, dict[str, float]] = {}
        for groupid, members in by_group((line.groupid, line) for line in lines or []).items():
            values = per_group[groupid] = {}
            for index, name in enumerate(_DIRECTIONS):
                dirs = [line.dirs[index] for line in members]
                _summarise(name, [d for d in dirs if d.io_kib > 0.0 or d.iops > 0.0], values)
        error = "; ".join(self._errors) or None
        return Summary(values=group_values(per_group), complete=complete, error=error)


def _cumulative(d: _Dir) -> Cumulative | None:
    if d.runtime_ms <= 0.0 and d.io_kib <= 0.0:
        return None
    ios = d.iops * d.runtime_ms / 1000.0
    return Cumulative(d.runtime_ms, ios, d.io_kib * 1024.0, d.lat_mean_us * 1000.0)


def _summarise(name: str, dirs: list[_Dir], values: dict[str, float]) -> None:
    if not dirs:
        return
    values[f"{name}_iops"] = math.fsum(d.iops for d in dirs)
    values[f"{name}_bytes_per_s"] = math.fsum(d.bw_kib for d in dirs) * 1024.0
    if len(dirs) == 1:
        values[f"{name}_lat_mean_us"] = dirs[0].lat_mean_us
    else:
        weights = [d.iops * d.runtime_ms for d in dirs]
        total = math.fsum(weights)
        if total > 0.0:
            weighted = math.fsum(w * d.lat_mean_us for w, d in zip(weights, dirs, strict=True))
            values[f"{name}_lat_mean_us"] = weighted / total
    for suffix in ("p50", "p99", "p999"):
        known = [d.percentiles[suffix] for d in dirs if suffix in d.percentiles]
        if known:
            values[f"{name}_lat_{suffix}_us"] = max(known)


def parse_terse_output(text: str) -> tuple[list[Record], Summary]:
    """Parse a whole fio terse output (lines split on "\\n")."""
    return feed_text(FioTerseParser(), text)
