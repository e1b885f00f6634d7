"""The burst probe: a long iperf3 TCP run that ends itself once the burst-credit step is known,
an optional refill phase, and the burst analysis of stored runs.

Use (CLI and GUI alike)::

    spec = burst_probe_spec(pair, max_duration_s=3600, streams=2)
    prepared = await prepare(pair, spec, connector)
    outcome = await run_burst_probe(lib, prepared, after_step_s=30, on_estimate=show)

``on_estimate(estimate)`` is called on the engine's loop after every aggregate interval with
the live ``BurstEstimate`` (the GUI's bridge turns it into a signal). The run is stored like any
other; when the probe stops it, it is ``completed`` with the note "stopped by the burst probe
…", and its burst analysis is stored with it (``analyses`` kind ``burst``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pairbench.analysis.burst import BurstEstimate, BurstParams, learnt_interval
from pairbench.analysis.burst_allowance import confirming, onsets_of
from pairbench.analysis.burst_model import BurstModel, analyze_series
from pairbench.domain import HostPair, Record, Run, RunSpec, RunStatus
from pairbench.domain.failures import AnalysisError
from pairbench.engine.execute import Prepared, execute_run
from pairbench.engine.observer import RunObserver
from pairbench.library import Library
from pairbench.library.analyses import store_analysis
from pairbench.library.series import SeriesArrays, load_series

ANALYSIS_KIND = "burst"
REFILL_KIND = "burst_refill"
PROBE_TAG = "probe"
DEFAULT_AFTER_STEP_S = 30.0
DEFAULT_MAX_DURATION_S = 3600
DEFAULT_STREAMS = 2
STREAM, METRIC = "sum", "throughput_bps"
# The refilled bucket counts as full (the refill rate is then only a lower bound) above this
# share of the first phase's bucket.
FULL_SHARE = 0.95
# Extra seconds a refill phase may run beyond the burst it expects (a safety margin).
REFILL_SLACK_S = 20.0

EstimateCallback = Callable[[BurstEstimate], None]


def burst_probe_spec(
    pair: HostPair,
    *,
    max_duration_s: int = DEFAULT_MAX_DURATION_S,
    streams: int = DEFAULT_STREAMS,
    label: str = "",
    phase: str = "burst",
) -> RunSpec:
    """The probe's iperf3 run: TCP, ``streams`` streams, 1 s intervals (iperf3's adapter always
    asks for them), ``max_duration_s`` at most. The run carries the pair's tags (so the
    instance type stays with it) plus ``probe=burst`` and ``phase``."""
    if max_duration_s < 1 or streams < 1:
        raise ValueError("the probe needs a duration and at least one stream")
    return RunSpec(
        pair=pair.name,
        tool="iperf3",
        params={"duration": str(int(max_duration_s)), "streams": str(int(streams))},
        label=label or "burst probe",
        tags={**pair.tags, PROBE_TAG: "burst", "phase": phase},
    )


def stop_note(after_step_s: float, estimate: BurstEstimate) -> str:
    """The note a probe-stopped run is stored with."""
    step = "" if estimate.step_t is None else f"; step at {estimate.step_t:.1f} s"
    return f"stopped by the burst probe {after_step_s:g} s after the step was confirmed{step}"


class BurstProbe:
    """A ``StopCondition``: feeds the aggregate throughput to a ``BurstModel`` and ends the run
    ``after_step_s`` seconds (run time) after the step is confirmed and still holds."""

    def __init__(
        self,
        after_step_s: float = DEFAULT_AFTER_STEP_S,
        *,
        params: BurstParams | None = None,
        on_estimate: EstimateCallback | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not after_step_s >= 0:
            raise ValueError("after_step_s must be ≥ 0")
        self.after_step_s = float(after_step_s)
        self.model = BurstModel(params)
        self.on_estimate = on_estimate
        self._clock = clock
        # Wall-clock time of the run's t = 0 (the traffic's start), from the first interval.
        self.traffic_started_at: float | None = None

    @property
    def estimate(self) -> BurstEstimate:
        """The latest live estimate."""
        return self.model.estimate

    def check(self, records: list[Record]) -> str | None:
        """Update the model; a note when the run has measured enough."""
        estimate = self.model.update_records(records, stream=STREAM, metric=METRIC)
        if estimate is None:
            return None
        if self.traffic_started_at is None:
            self.traffic_started_at = self._clock() - estimate.t
        if self.on_estimate is not None:
            self.on_estimate(estimate)
        confirmed_at = estimate.confirmed_at
        if confirmed_at is not None and estimate.t - confirmed_at >= self.after_step_s:
            return stop_note(self.after_step_s, estimate)
        return None


@dataclass(frozen=True, slots=True)
class RefillResult:
    """What an idle pause gave back: ``refilled_bits`` over ``idle_s`` → ``refill_bps``.

    ``full``: the bucket came back (nearly) full, so the pause was long enough to fill it
    and ``refill_bps`` is only a lower bound. ``refill_ratio`` = refill rate ÷ baseline (a
    credit bucket refills at the baseline rate, so ≈ 1).
    """

    after_run: int
    idle_s: float
    refilled_bits: float | None
    refill_bps: float | None
    baseline_bps: float | None
    refill_ratio: float | None
    full: bool

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class BurstProbeOutcome:
    """The probe's runs and estimates (the refill phase's when it ran)."""

    run: Run
    estimate: BurstEstimate
    refill_run: Run | None = None
    refill_estimate: BurstEstimate | None = None
    refill: RefillResult | None = None


async def run_burst_probe(
    lib: Library,
    prepared: Prepared,
    *,
    after_step_s: float = DEFAULT_AFTER_STEP_S,
    refill_idle_s: float = 0.0,
    params: BurstParams | None = None,
    observer: RunObserver | None = None,
    cancel: asyncio.Event | None = None,
    on_estimate: EstimateCallback | None = None,
) -> BurstProbeOutcome:
    """Run the probe (``prepared`` from ``burst_probe_spec``); store each run's analysis.

    With ``refill_idle_s`` > 0 and a step found, the link then rests that long and a second,
    shorter run measures how much credit came back (the refill rate); its run is stored with
    ``phase=refill`` and a ``burst_refill`` analysis. ``cancel`` ends either phase or the
    pause.
    """
    cancel = cancel or asyncio.Event()
    # Each analysis is stored before the run is announced finished (``on_stored``): whoever
    # hears "finished" (the window, a campaign) finds it in the library.
    estimates: dict[int, BurstEstimate] = {}

    def analyse(stored: Run) -> None:
        estimates[stored.id] = analyze_stored_burst(lib, stored.id, params=params, missing_ok=True)

    probe = BurstProbe(after_step_s, params=params, on_estimate=on_estimate)
    run = await execute_run(
        lib, prepared, observer=observer, cancel=cancel, stop=probe, on_stored=analyse
    )
    estimate = estimates[run.id]
    if (
        refill_idle_s <= 0
        or not estimate.detected
        or run.status is not RunStatus.COMPLETED
        or cancel.is_set()
    ):
        return BurstProbeOutcome(run, estimate)
    phase_one_end = _traffic_end(lib, run.id, probe)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(cancel.wait(), refill_idle_s)
    if cancel.is_set():
        return BurstProbeOutcome(run, estimate)
    refill_prepared = _refill_prepared(
        prepared, estimate, refill_idle_s, after_step_s, run.id, params or BurstParams()
    )
    refill_probe = BurstProbe(after_step_s, params=params, on_estimate=on_estimate)
    refill: RefillResult | None = None

    def analyse_refill(stored: Run) -> None:
        nonlocal refill
        analyse(stored)
        if phase_one_end is not None and refill_probe.traffic_started_at is not None:
            idle = refill_probe.traffic_started_at - phase_one_end
            refill = measure_refill(lib, run.id, estimate, stored.id, estimates[stored.id], idle)
            store_analysis(lib, stored.id, REFILL_KIND, refill.to_json())

    refill_run = await execute_run(
        lib,
        refill_prepared,
        observer=observer,
        cancel=cancel,
        stop=refill_probe,
        on_stored=analyse_refill,
    )
    return BurstProbeOutcome(run, estimate, refill_run, estimates[refill_run.id], refill)


def _traffic_end(lib: Library, run_id: int, probe: BurstProbe) -> float | None:
    """Wall-clock end of a run's traffic: its start plus its last interval's end."""
    series = _throughput(lib, run_id)
    if probe.traffic_started_at is None or series is None or series.t.size == 0:
        return None
    return probe.traffic_started_at + float(series.t[-1])


def _refill_prepared(
    prepared: Prepared,
    first: BurstEstimate,
    idle_s: float,
    after_step_s: float,
    run_id: int,
    params: BurstParams,
) -> Prepared:
    """The refill phase's spec: only as long as the burst the pause can give back, + margin."""
    assert first.baseline_bps is not None and first.burst_bps is not None
    gained = idle_s * first.baseline_bps
    if first.bucket_bits is not None:
        gained = min(gained, first.bucket_bits)
    expected_burst = gained / max(first.burst_bps - first.baseline_bps, 1.0)
    confirm_s = params.confirm_intervals + 2.0
    duration = math.ceil(expected_burst * 1.5 + confirm_s + after_step_s + REFILL_SLACK_S)
    spec = prepared.spec
    limit = int(spec.params.get("duration", str(DEFAULT_MAX_DURATION_S)))
    new_spec = dataclasses.replace(
        spec,
        params={**spec.params, "duration": str(min(duration, limit))},
        label=f"burst probe: refill after {idle_s:g} s idle (run {run_id})",
        tags={**spec.tags, "phase": "refill", "refill_of": str(run_id)},
    )
    return dataclasses.replace(prepared, spec=new_spec)


def measure_refill(
    lib: Library,
    first_run: int,
    first: BurstEstimate,
    refill_run: int,
    refill: BurstEstimate,
    idle_s: float,
) -> RefillResult:
    """How much credit the pause gave back: the refill run's bucket, or, when its burst was
    too short for a step, its throughput above the first baseline until it fell to it."""
    refilled: float | None = refill.bucket_bits if refill.detected else None
    if refilled is None and first.baseline_bps is not None and first.burst_bps is not None:
        series = _throughput(lib, refill_run)
        if series is not None and series.t.size:
            refilled = excess_until_drop(series.t, series.v, first.baseline_bps, first.burst_bps)
    rate = None if refilled is None or idle_s <= 0 else refilled / idle_s
    baseline = first.baseline_bps
    ratio = None if rate is None or not baseline else rate / baseline
    full = (
        refilled is not None
        and first.bucket_bits is not None
        and refilled >= FULL_SHARE * first.bucket_bits
    )
    return RefillResult(first_run, idle_s, refilled, rate, baseline, ratio, full)


def excess_until_drop(
    t: np.ndarray[Any, np.dtype[np.float64]],
    v: np.ndarray[Any, np.dtype[np.float64]],
    baseline_bps: float,
    burst_bps: float,
) -> float:
    """Bits sent above ``baseline_bps`` from the start until the first interval below the
    midpoint between baseline and burst (that interval included)."""
    dt = np.diff(np.concatenate([[0.0], t]))
    mid = (baseline_bps + burst_bps) / 2
    below = np.flatnonzero(v < mid)
    end = int(below[0]) + 1 if below.size else v.size
    return float(np.dot(np.maximum(v[:end] - baseline_bps, 0.0), dt[:end]))


def _throughput(lib: Library, run_id: int) -> SeriesArrays | None:
    for series in load_series(lib, run_id):
        if series.stream == STREAM and series.metric == METRIC:
            return series
    return None


def analyze_stored_burst(
    lib: Library,
    run_id: int,
    *,
    params: BurstParams | None = None,
    store: bool = True,
    missing_ok: bool = False,
) -> BurstEstimate:
    """The burst estimate of a stored run's aggregate throughput, stored with the run.

    ``AnalysisError`` when the run has no aggregate ``throughput_bps`` series (unless
    ``missing_ok``: then an empty estimate, not stored).
    """
    every = load_series(lib, run_id)
    series = next((s for s in every if (s.stream, s.metric) == (STREAM, METRIC)), None)
    if series is None or series.t.size == 0:
        if missing_ok:
            return BurstModel(params).estimate
        raise AnalysisError(f"run {run_id} has no aggregate throughput series to analyse")
    if params is None:  # the default knobs, for the series' own interval (0.1 s, 1 s, ...)
        params = BurstParams().for_interval(learnt_interval(np.diff(series.t, prepend=0.0)))
    estimate = analyze_series(series.t, series.v, params=params)
    if store:
        payload = {
            **estimate.to_json(),
            "stream": STREAM,
            "metric": METRIC,
            "params": dataclasses.asdict(params),
            "allowance": allowance_payload(estimate, every),
        }
        store_analysis(lib, run_id, ANALYSIS_KIND, payload)
    return estimate


def allowance_payload(
    estimate: BurstEstimate, series: Sequence[SeriesArrays]
) -> dict[str, Any] | None:
    """What the NIC's bandwidth allowance counters say of the step: the onset that confirms
    it (``confirmed``, ``role``, ``counter``, ``onset_t``, ``sentence``), or that none rose near
    it; None when no host's NIC has them."""
    has = [s for s in series if s.stream.endswith(":nic") and "allowance_exceeded" in s.metric]
    if not has:
        return None
    found = confirming(estimate.step_t if estimate.detected else None, onsets_of(has))
    if found is None or estimate.step_t is None:
        return {"confirmed": False}
    return {
        "confirmed": True,
        "role": found.role,
        "counter": found.counter,
        "onset_t": found.t,
        "sentence": found.sentence(estimate.step_t),
    }
