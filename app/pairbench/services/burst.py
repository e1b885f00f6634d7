"""Burst credits: the probe's run spec and settings, analyses of stored runs (one run again,
and the per-instance-type table). Running the probe is ``services.running``'s."""

from __future__ import annotations

from typing import Any

from pairbench.analysis.burst import BurstEstimate, BurstParams
from pairbench.analysis.burst_workload import BurstGroup, group_estimates
from pairbench.domain import HostPair, RunSpec
from pairbench.domain.failures import AnalysisError as AnalysisError
from pairbench.engine import burst as probe
from pairbench.engine.burst import ANALYSIS_KIND
from pairbench.engine.burst import DEFAULT_AFTER_STEP_S as DEFAULT_AFTER_STEP_S
from pairbench.engine.burst import DEFAULT_MAX_DURATION_S as DEFAULT_MAX_DURATION_S
from pairbench.engine.burst import DEFAULT_STREAMS as DEFAULT_STREAMS
from pairbench.engine.burst import METRIC as METRIC
from pairbench.engine.burst import STREAM as STREAM
from pairbench.engine.burst import BurstProbeOutcome as BurstProbeOutcome
from pairbench.library import Library, LibraryError
from pairbench.library.analyses import analyses_of_runs, get_analysis, list_analyses
from pairbench.library.hosts import get_pair
from pairbench.library.runs import get_run


def burst_probe_spec(
    pair: HostPair,
    *,
    max_duration_s: int = DEFAULT_MAX_DURATION_S,
    streams: int = DEFAULT_STREAMS,
    label: str = "",
) -> RunSpec:
    """The probe's iperf3 run on ``pair``: TCP, ``streams`` streams, 1 s intervals, at most
    ``max_duration_s``; tagged with the pair's tags plus ``probe=burst`` and
    ``phase=burst``. ``ValueError`` without a duration or a stream."""
    return probe.burst_probe_spec(pair, max_duration_s=max_duration_s, streams=streams, label=label)


def analyze_stored_burst(
    lib: Library,
    run_id: int,
    *,
    params: BurstParams | None = None,
    store: bool = True,
    missing_ok: bool = False,
) -> BurstEstimate:
    """Analyse a stored run's aggregate throughput again: burst rate, baseline, burst time
    and bucket; stored with the run (``store``). ``AnalysisError`` when the run has no
    aggregate ``throughput_bps`` series (``missing_ok``: an empty estimate, not stored)."""
    return probe.analyze_stored_burst(
        lib, run_id, params=params, store=store, missing_ok=missing_ok
    )


def stored_burst(lib: Library, run_id: int) -> dict[str, Any] | None:
    """The run's stored burst analysis (with what the NIC's allowance counters said)."""
    return get_analysis(lib, run_id, ANALYSIS_KIND)


def stored_steps(lib: Library, run_ids: list[int]) -> dict[int, BurstEstimate]:
    """The stored burst analyses of these runs that found a step (confirmed), by run id:
    what a run list shows as the run's headline (burst → baseline) instead of one mean."""
    found: dict[int, BurstEstimate] = {}
    for run_id, payload in analyses_of_runs(lib, ANALYSIS_KIND, run_ids).items():
        try:
            estimate = BurstEstimate.from_json(payload)
        except (KeyError, TypeError, ValueError):
            continue  # an analysis this version cannot read: the run shows its mean
        if estimate.detected and estimate.burst_bps is not None and estimate.baseline_bps:
            found[run_id] = estimate
    return found


def burst_groups(lib: Library, tag: str = "type") -> list[BurstGroup]:
    """Stored burst analyses grouped by a tag (the run's, else its pair's current one):
    the per-instance-type table. Refill-phase runs are left out (their bucket is partial)."""
    rows: list[tuple[str, int, BurstEstimate]] = []
    pair_tags: dict[str, dict[str, str]] = {}
    for run_id, payload in list_analyses(lib, ANALYSIS_KIND):
        try:
            run = get_run(lib, run_id)
            estimate = BurstEstimate.from_json(payload)
        except (LibraryError, KeyError, TypeError, ValueError):
            continue  # a run deleted meanwhile, or an analysis this version cannot read
        if run.tags.get("phase") == "refill":
            continue
        if run.spec.pair not in pair_tags:
            try:
                pair_tags[run.spec.pair] = dict(get_pair(lib, run.spec.pair).tags)
            except LibraryError:
                pair_tags[run.spec.pair] = {}
        group = run.tags.get(tag) or pair_tags[run.spec.pair].get(tag) or f"({tag} not set)"
        rows.append((group, run_id, estimate))
    return group_estimates(rows)
