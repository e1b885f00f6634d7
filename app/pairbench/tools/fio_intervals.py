"""Per-interval fio records from successive cumulative reports (normal text and terse forms)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Final, Literal, NamedTuple

from pairbench.domain import Record
from pairbench.tools.fio_groups import group_records

__all__ = ["MIN_INTERVAL_MS", "Cumulative", "ReportDiffer", "SlotReport"]

# As in fio_json: an interval shorter than this (ms of runtime) is merged into the next one.
MIN_INTERVAL_MS: Final = 100.0

_DIRECTIONS: Final = ("read", "write")


class Cumulative(NamedTuple):
    """One direction of one job (or group) in one report: figures since the job started."""

    runtime_ms: float
    ios: float  # I/Os to date
    io_bytes: float  # bytes to date
    lat_mean_ns: float | None  # mean total latency to date (None: not printed)


class SlotReport(NamedTuple):
    """One job (or group) of one report: its stream name, its read and write figures, and
    fio's group number (``stonewall``, ``new_group``)."""

    stream: str
    dirs: tuple[Cumulative | None, Cumulative | None]
    group: int = 0


class _Interval(NamedTuple):
    iops: float
    bytes_per_s: float
    weight: float  # I/Os of the interval (weights the latency mean across jobs)
    lat_mean_ns: float | None


_ZERO: Final = Cumulative(0.0, 0.0, 0.0, 0.0)

# One constant metrics tuple per combination a record carries (the recorder keys on it).
_METRICS_TUPLES: dict[tuple[str, ...], tuple[str, ...]] = {}


class ReportDiffer:
    """Differences successive reports, slot by slot (the n-th job or group of a report is the
    n-th of the next), into one record per stream per report.

    ``exact`` names the counter the form prints exactly: ``"ios"`` (the normal text's
    ``issued rwts`` counts; its sizes have three digits) or ``"bytes"`` (terse's KiB; its
    IOPS are whole numbers). The interval's change of that counter is measured; the other
    one's follows from the ratio of the two in the current report (the mean I/O size), and
    the interval's mean latency is Δ(mean × counter) / Δcounter. Rates are per Δruntime of the
    direction (fio's own denominator). A counter that went down (fio reset its statistics
    after ``ramp_time``) starts the interval from zero; one shorter than ``MIN_INTERVAL_MS``
    is merged into the next. ``t`` is the report's largest runtime in seconds (these forms
    print no time stamp), with several groups the sum of each group's largest (every job's
    runtime starts at 0: groups after a ``stonewall`` run one after another); a report that
    does not advance it gives no records.

    Streams: ``"sum"`` (IOPS and bandwidth summed, latency weighted by I/Os) and, with more
    than one slot, each slot's own stream. Slots of several groups: ``"group<N>"`` per group
    instead of ``"sum"``, and a stream per slot of a group of more than one (``fio_groups``).
    """

    __slots__ = ("_bases", "_exact", "_last_t")

    def __init__(self, exact: Literal["ios", "bytes"]) -> None:
        self._exact = exact
        self._bases: dict[tuple[int, int], Cumulative] = {}
        self._last_t: float | None = None

    def report(self, slots: Sequence[SlotReport], groups: Iterable[int] = ()) -> list[Record]:
        """The records of one complete report (empty when it gives no interval); ``groups``:
        fio's group numbers known besides the slots' (a text dump lists only the jobs that
        have started, its header every group)."""
        per_slot: list[list[_Interval | None]] = []
        group_runtime: dict[int, float] = {}
        advanced = False
        for index, slot in enumerate(slots):
            intervals: list[_Interval | None] = []
            for d, cur in enumerate(slot.dirs):
                if cur is None:
                    intervals.append(None)
                    continue
                group_runtime[slot.group] = max(group_runtime.get(slot.group, 0.0), cur.runtime_ms)
                key = (index, d)
                interval, self._bases[key] = self._interval(cur, self._bases.get(key, _ZERO))
                advanced = advanced or interval is not None
                intervals.append(interval)
            per_slot.append(intervals)
        t = math.fsum(group_runtime.values()) / 1000.0
        if not advanced or (self._last_t is not None and t <= self._last_t):
            return []
        self._last_t = t
        return group_records(
            (
                (slot.group, slot.stream, intervals)
                for slot, intervals in zip(slots, per_slot, strict=True)
            ),
            lambda stream, by_dir: _record(stream, t, by_dir),
            groups,
        )

    def _interval(self, cur: Cumulative, base: Cumulative) -> tuple[_Interval | None, Cumulative]:
        """The interval from ``base`` to ``cur`` (None if none yet) and the next base."""
        if cur.runtime_ms < base.runtime_ms or cur.ios < base.ios or cur.io_bytes < base.io_bytes:
            base = _ZERO
        dt_ms = cur.runtime_ms - base.runtime_ms
        if dt_ms <= 0.0 or cur.ios <= 0.0 or cur.io_bytes <= 0.0:
            return None, cur
        if dt_ms < MIN_INTERVAL_MS:
            return None, base
        if self._exact == "ios":
            done, before, now = cur.ios - base.ios, base.ios, cur.ios
            ios = done
            io_bytes = done * cur.io_bytes / cur.ios
        else:
            done, before, now = cur.io_bytes - base.io_bytes, base.io_bytes, cur.io_bytes
            io_bytes = done
            ios = done * cur.ios / cur.io_bytes
        if done <= 0.0:
            return None, cur
        lat: float | None = None
        if cur.lat_mean_ns is not None and (base.lat_mean_ns is not None or before <= 0.0):
            lat = (cur.lat_mean_ns * now - (base.lat_mean_ns or 0.0) * before) / done
            lat = max(lat, 0.0)  # printed means are rounded: never a negative latency
        interval = _Interval(ios * 1000.0 / dt_ms, io_bytes * 1000.0 / dt_ms, ios, lat)
        return interval, cur


def _record(stream: str, t: float, by_dir: list[list[_Interval | None]]) -> Record | None:
    """One stream's record from the intervals of its slots, per direction; None if empty."""
    names: list[str] = []
    values: list[float] = []
    for index, name in enumerate(_DIRECTIONS):
        parts = [iv for iv in by_dir[index] if iv is not None]
        if not parts:
            continue
        names += (f"{name}_iops", f"{name}_bytes_per_s")
        values += (math.fsum(p.iops for p in parts), math.fsum(p.bytes_per_s for p in parts))
        with_lat = [p for p in parts if p.lat_mean_ns is not None and p.weight > 0.0]
        weight = math.fsum(p.weight for p in with_lat)
        if with_lat and len(with_lat) == len(parts) and weight > 0.0:
            mean = math.fsum(p.weight * (p.lat_mean_ns or 0.0) for p in with_lat) / weight
            names.append(f"{name}_lat_mean_us")
            values.append(mean / 1000.0)
    if not names:
        return None
    key = tuple(names)
    return Record(stream, t, _METRICS_TUPLES.setdefault(key, key), tuple(values))
