"""How burst credits read in the terminal: an estimate, the workload calculator's answer, a
stored analysis (``analyze``, ``probe burst``, ``runs show``)."""

from __future__ import annotations

import math
from typing import Any

from pairbench.analysis.burst import BurstEstimate
from pairbench.analysis.burst_workload import WorkloadFit
from pairbench.domain.units import SI_BYTES, format_bits, format_quantity
from pairbench.services.fio_histogram import HISTOGRAM_KIND, describe_histogram
from pairbench.services.fio_logs import LOGS_KIND, describe_logs


def format_size_bits(bits: float) -> str:
    """A bucket in bits and in bytes, e.g. ``17.0 Gbit (2.13 GB)``."""
    if not math.isfinite(bits):
        return "—"
    return f"{format_quantity('bit', bits)} ({format_quantity(SI_BYTES, bits / 8)})"


def format_duration(seconds: float) -> str:
    """``42 s``, ``12.5 min``, ``3.2 h``, ``never``."""
    if not math.isfinite(seconds):
        return "never"
    if seconds < 120:
        return f"{seconds:.3g} s"
    if seconds < 7200:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 3600:.3g} h"


def describe_estimate(estimate: BurstEstimate) -> list[str]:
    """The lines ``analyze burst`` and ``probe burst`` print for an estimate."""
    if estimate.burst_bps is None:
        return ["no throughput measured"]
    if not estimate.detected:
        state = "a step suspected, not confirmed" if estimate.state.value == "suspected" else ""
        return [
            f"no step from burst to baseline{f' ({state})' if state else ''}: "
            f"{format_bits(estimate.burst_bps)} over {estimate.t - estimate.start_t:.0f} s"
        ]
    e = estimate
    assert e.baseline_bps is not None and e.step_t is not None and e.burst_bps is not None
    step_t = e.step_t
    lines = [
        f"burst rate    {format_bits(e.burst_bps)} ± {format_bits(e.burst_bps_err or 0)}",
        f"baseline      {format_bits(e.baseline_bps)} ± {format_bits(e.baseline_bps_err or 0)}",
        f"burst time    {e.burst_seconds or 0:.1f} s ± {e.burst_seconds_err or 0:.1f} s"
        f" (the step at {e.step_t:.1f} s)",
        f"bucket        {format_size_bits(e.bucket_bits or 0)} "
        f"± {format_quantity('bit', e.bucket_bits_err or 0)}",
    ]
    refill = e.refill_seconds()
    if refill is not None:
        lines.append(
            f"refill        at the baseline rate: full again after ~{format_duration(refill)} idle"
        )
    if e.confirmed_at is not None:
        lines.append(
            f"confirmed at  {e.confirmed_at:.1f} s ({e.confirmed_at - step_t:.1f} s after the step)"
        )
    return lines


def allowance_lines(payload: dict[str, Any]) -> list[str]:
    """What the NIC's allowance counters said of a stored burst analysis's step."""
    allowance = payload.get("allowance")
    if not isinstance(allowance, dict):
        return []
    if allowance.get("confirmed"):
        return [f"allowance     {allowance.get('sentence', '')}"]
    return ["allowance     no bandwidth allowance counter rose near the step"]


def describe_fit(fit: WorkloadFit) -> list[str]:
    """The calculator's answer for people."""
    lines = [f"{'fits' if fit.fits else 'does not fit'}: {fit.reason}"]
    if fit.drain_bps <= 0:
        return lines
    lines += [
        f"  credits refill at    {format_bits(fit.refill_bps)} (baseline − steady use)",
        f"  bursting drains      {format_bits(fit.drain_bps)} (need − baseline)",
        f"  longest burst        {format_duration(fit.max_burst_s)} from a full bucket",
        f"  refill from empty    {format_duration(fit.refill_s)}",
        f"  at the need          {fit.duty_cycle:.2%} of the time in the long run "
        f"({fit.burst_seconds_per_hour:.0f} s per hour)",
    ]
    if fit.burst_length_s is not None and fit.every_s is not None:
        label = f"a {fit.burst_length_s:g} s burst"
        lines.append(f"  {label:<20} at most once every {format_duration(fit.every_s)}")
    return lines


def describe_analysis(kind: str, payload: dict[str, Any]) -> list[str]:
    """Lines for a stored analysis (``runs show``): burst estimates as ``analyze burst``
    prints them, anything else as ``key value`` lines."""
    if kind == "burst":
        try:
            return describe_estimate(BurstEstimate.from_json(payload)) + allowance_lines(payload)
        except (KeyError, TypeError, ValueError):
            pass  # written by another version: show it raw
    if kind == "burst_refill" and payload.get("refill_bps") is not None:
        ratio = payload.get("refill_ratio")
        return [
            f"refill        {format_bits(float(payload['refill_bps']))} after "
            f"{float(payload.get('idle_s') or 0):.1f} s idle (after run {payload.get('after_run')})"
            + (f", {float(ratio):.2f} × baseline" if ratio else "")
            + (" (at least: the bucket was full again)" if payload.get("full") else "")
        ]
    if kind == HISTOGRAM_KIND:
        return describe_histogram(payload)
    if kind == LOGS_KIND:
        return describe_logs(payload)
    return [f"{key:<13} {value}" for key, value in payload.items()]
