"""One fio JSON document as the parsers read it: each ``jobs[]`` entry's cumulative figures
per direction, every number checked to be one fio can print."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Final, NamedTuple

from pairbench.tools.base import ParseError, preview
from pairbench.tools.fio_percentiles import DEFAULT_KEPT, MAX_KEYS, percentile_value

__all__ = ["PERCENTILES", "Dir", "Doc", "Job", "Latency", "read_document"]

# Percentiles fio prints by default (``clat_ns.percentile`` keys) that the summary reports.
PERCENTILES: Final = DEFAULT_KEPT


class Latency(NamedTuple):
    """The percentiles fio printed of one latency (``clat_ns``, ``lat_ns``, ``slat_ns``):
    ns by fio's key (``"99.000000"``), and its json+ histogram when printed."""

    percentiles: Mapping[str, float]
    bins: Mapping[int, float] | None


# Counters are unsigned 64-bit in fio; bigger (or negative, or non-finite) numbers are garbage.
MAX_NUMBER: Final = float(2**64)


class Dir(NamedTuple):
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
    # lat_ns and slat_ns, when fio printed their percentiles (lat_percentiles,
    # slat_percentiles), by their object's name.
    more: Mapping[str, Latency] = {}


class Job(NamedTuple):
    """One ``jobs[]`` entry: a job, or a group with ``--group_reporting``."""

    key: tuple[int, str]
    stream: str
    group: int  # fio's groupid (stonewall / new_group)
    error: int
    dirs: tuple[Dir | None, Dir | None]  # read, write (None: direction absent)
    in_ramp: bool  # still inside its ramp_time (see ramp_seconds)


class Doc(NamedTuple):
    """The parts of one fio JSON document that the parser uses."""

    timestamp_ms: float | None
    jobs: tuple[Job, ...]


def number(obj: Mapping[str, object], key: str, default: float | None = None) -> float:
    """A JSON number in fio's range (0 ≤ x ≤ 2^64, finite) as a float; ParseError otherwise."""
    value = obj.get(key)
    if value is None and default is not None and key not in obj:
        return default
    if type(value) is int or type(value) is float:  # not bool
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if 0.0 <= number <= MAX_NUMBER:
            return number
    raise ParseError(f"fio: JSON field {key!r} is not a fio number: {preview(value, 60)!r}")


def mapping(obj: Mapping[str, object], key: str) -> Mapping[str, object] | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ParseError(f"fio: JSON field {key!r} is not an object")
    return value


def read_document(raw: object) -> Doc:
    """The parts of a decoded document the parser uses; ParseError if it is not fio's."""
    if not isinstance(raw, dict) or not isinstance(raw.get("jobs"), list):
        raise ParseError("fio: JSON document without a 'jobs' list: not fio output")
    timestamp: float | None = None
    if "timestamp_ms" in raw:
        timestamp = number(raw, "timestamp_ms")
    elif "timestamp" in raw:
        timestamp = number(raw, "timestamp") * 1000.0
    global_options = raw.get("global options")
    global_ramp = ramp_seconds(global_options if isinstance(global_options, dict) else {})
    jobs: list[Job] = []
    for index, entry in enumerate(raw["jobs"]):
        if not isinstance(entry, dict):
            raise ParseError(f"fio: jobs[{index}] is not an object")
        name = entry.get("jobname", "job")
        if not isinstance(name, str):
            raise ParseError(f"fio: jobs[{index}].jobname is not a string")
        name = name[:64]
        error = number(entry, "error", 0.0)
        group = number(entry, "groupid", 0.0)
        if group > 2**31:
            raise ParseError(f"fio: jobs[{index}].groupid {group:.0f} is not a group number")
        dirs = (read_direction(entry, "read"), read_direction(entry, "write"))
        options = entry.get("job options")
        ramp = ramp_seconds(options if isinstance(options, dict) else {}) or global_ramp
        in_ramp = ramp > 0.0 and number(entry, "elapsed", 0.0) <= ramp + 1.0
        jobs.append(Job((index, name), f"{name}.{index}", int(group), int(error), dirs, in_ramp))
    return Doc(timestamp, tuple(jobs))


_TIME_RE: Final = re.compile(r"(\d{1,9})(us|ms|s|m|h|d)?")
_TIME_UNITS: Final = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def ramp_seconds(options: Mapping[str, object]) -> float:
    """A job's ``ramp_time`` option ("2", "500ms", "1m") in seconds; 0 if absent or unknown."""
    value = options.get("ramp_time")
    if not isinstance(value, str):
        return 0.0
    match = _TIME_RE.fullmatch(value.strip())
    if match is None:
        return 0.0
    return int(match.group(1)) * _TIME_UNITS[match.group(2) or "s"]


def read_direction(entry: Mapping[str, object], name: str) -> Dir | None:
    obj = mapping(entry, name)
    if obj is None:
        return None
    runtime = number(obj, "runtime")
    ios = number(obj, "total_ios")
    io_bytes = number(obj, "io_bytes")
    # Defaults for documents without iops or bw_bytes (fio prints both; runtime is whole ms, so
    # the quotients stay finite).
    iops = number(obj, "iops", ios * 1000.0 / runtime if runtime >= 1.0 else 0.0)
    bw = number(obj, "bw_bytes", io_bytes * 1000.0 / runtime if runtime >= 1.0 else 0.0)
    lat_mean = lat_n = 0.0
    lat = mapping(obj, "lat_ns")
    if lat is not None:
        lat_mean = number(lat, "mean", 0.0)
        lat_n = number(lat, "N", 0.0)
    clat = read_latency(obj, "clat_ns") or Latency({}, None)
    more = {
        name: latency
        for name in ("lat_ns", "slat_ns")
        if (latency := read_latency(obj, name)) is not None and latency.percentiles
    }
    return Dir(runtime, ios, io_bytes, iops, bw, lat_mean, lat_n, clat.percentiles, clat.bins, more)


def read_latency(obj: Mapping[str, object], name: str) -> Latency | None:
    """The percentiles and json+ bins fio printed in ``obj[name]`` (None: no such object)."""
    latency = mapping(obj, name)
    if latency is None:
        return None
    percentiles: dict[str, float] = {}
    pct = mapping(latency, "percentile")
    if pct is not None:
        for key in list(pct)[:MAX_KEYS]:
            if percentile_value(key) is not None:  # fio prints none else
                percentiles[key] = number(pct, key)
    bins: dict[int, float] | None = None
    raw_bins = mapping(latency, "bins")
    if raw_bins is not None:
        bins = {}
        for key in raw_bins:
            if not (key.isascii() and key.isdigit()) or len(key) > 20:
                raise ParseError(f"fio: {name}.bins key {key[:40]!r} is not a latency")
            bins[int(key)] = number(raw_bins, key)
    return Latency(percentiles, bins)
