"""What a workload can do with a burst bucket, and the burst estimates of several runs grouped.

``workload_fit`` answers whether a workload stays within the burst; ``group_estimates`` takes
the estimates of several runs of one kind as one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from pairbench.analysis.burst import BurstEstimate, _finite_or_none, refill_time_s


@dataclass(frozen=True, slots=True)
class WorkloadFit:
    """Whether a workload fits a burst-credit link, and how long and how often it can burst.

    The workload runs at ``steady_bps`` and now and then needs ``need_bps``. Credits (bits)
    accrue at ``baseline − steady`` while steady and drain at ``need − baseline`` while
    bursting (the baseline keeps refilling during a burst). ``max_burst_s`` is the longest
    burst from a full bucket; ``refill_s`` the steady time that fills an empty one;
    ``period_s`` = one full burst plus its refill; ``duty_cycle`` the long-run share of time at
    ``need_bps``. With ``burst_length_s`` given, ``every_s`` is the shortest cycle of such bursts.
    """

    fits: bool
    reason: str
    baseline_bps: float
    burst_bps: float
    bucket_bits: float
    steady_bps: float
    need_bps: float
    refill_bps: float
    drain_bps: float
    max_burst_s: float
    refill_s: float
    period_s: float
    duty_cycle: float
    burst_seconds_per_hour: float
    burst_length_s: float | None = None
    every_s: float | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (infinity becomes null)."""
        return {k: _finite_or_none(v) for k, v in asdict(self).items()}


def workload_fit(
    *,
    baseline_bps: float,
    burst_bps: float,
    bucket_bits: float,
    steady_bps: float,
    need_bps: float,
    burst_length_s: float | None = None,
) -> WorkloadFit:
    """Will a workload (steady use plus bursts at ``need_bps``) fit this link's credits?"""
    for name, value in (
        ("baseline", baseline_bps),
        ("burst rate", burst_bps),
        ("bucket", bucket_bits),
        ("steady use", steady_bps),
        ("need", need_bps),
    ):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite number ≥ 0, got {value!r}")
    if burst_bps < baseline_bps:
        raise ValueError("the burst rate cannot be below the baseline")
    if burst_length_s is not None and not burst_length_s > 0:
        raise ValueError("the burst length must be positive")
    refill = baseline_bps - steady_bps
    drain = need_bps - baseline_bps
    max_burst = math.inf if drain <= 0 else bucket_bits / drain
    refill_s = refill_time_s(bucket_bits, baseline_bps, steady_bps)
    if drain <= 0:
        duty = 1.0
    elif refill <= 0:
        duty = 0.0
    else:
        duty = refill / (need_bps - steady_bps)
    every = None
    if burst_length_s is not None and drain > 0:
        every = math.inf if refill <= 0 else burst_length_s + burst_length_s * drain / refill
    fits, reason = _verdict(
        baseline_bps, burst_bps, steady_bps, need_bps, max_burst, refill_s, burst_length_s
    )
    return WorkloadFit(
        fits=fits,
        reason=reason,
        baseline_bps=baseline_bps,
        burst_bps=burst_bps,
        bucket_bits=bucket_bits,
        steady_bps=steady_bps,
        need_bps=need_bps,
        refill_bps=refill,
        drain_bps=max(drain, 0.0),
        max_burst_s=max_burst,
        refill_s=refill_s,
        period_s=max_burst + refill_s,
        duty_cycle=duty,
        burst_seconds_per_hour=duty * 3600,
        burst_length_s=burst_length_s,
        every_s=every,
    )


def _verdict(
    baseline: float,
    burst: float,
    steady: float,
    need: float,
    max_burst: float,
    refill_s: float,
    length: float | None,
) -> tuple[bool, str]:
    if need > burst:
        return False, "the need is above the burst rate: the link never goes that fast"
    if steady > baseline:
        return False, "the steady use is above the baseline: it drains the bucket by itself"
    if need <= baseline:
        return True, "the need is within the baseline: no credits are used"
    if steady == baseline:
        return False, (
            f"the steady use equals the baseline: credits never come back; a full bucket "
            f"gives one burst of {_secs(max_burst)}"
        )
    if length is not None and length > max_burst:
        return False, f"a {length:g} s burst needs more than a full bucket ({_secs(max_burst)})"
    return True, (
        f"bursts of up to {_secs(max_burst)} from a full bucket, which refills in "
        f"{_secs(refill_s)} at the steady use"
    )


def _secs(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.2g} s"


@dataclass(frozen=True, slots=True)
class BurstGroup:
    """Burst runs of one group (e.g. one instance type), like the field study's table.

    Rates are medians over the runs; ``bucket_bits`` and ``burst_seconds`` are the largest
    (a run can start with a full or a partly drained bucket, never with more than full).
    """

    group: str
    runs: tuple[int, ...]
    burst_bps: float
    baseline_bps: float
    bucket_bits: float
    burst_seconds: float

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data = asdict(self)
        data["runs"] = list(self.runs)
        return data


def group_estimates(rows: Iterable[tuple[str, int, BurstEstimate]]) -> list[BurstGroup]:
    """(group, run id, estimate) rows → one ``BurstGroup`` per group, by group name; runs
    without a confirmed step are left out."""
    grouped: dict[str, list[tuple[int, BurstEstimate]]] = {}
    for group, run_id, estimate in rows:
        if estimate.detected:
            grouped.setdefault(group, []).append((run_id, estimate))
    out: list[BurstGroup] = []
    for group in sorted(grouped):
        members = grouped[group]
        out.append(
            BurstGroup(
                group=group,
                runs=tuple(run_id for run_id, _ in members),
                burst_bps=_median(e.burst_bps for _, e in members),
                baseline_bps=_median(e.baseline_bps for _, e in members),
                bucket_bits=max(e.bucket_bits or 0.0 for _, e in members),
                burst_seconds=max(e.burst_seconds or 0.0 for _, e in members),
            )
        )
    return out


def _median(values: Iterable[float | None]) -> float:
    kept = [v for v in values if v is not None]
    return float(np.median(kept)) if kept else math.nan
