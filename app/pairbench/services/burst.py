"""Burst analyses of stored runs: analyse one run again, and the per-instance-type table."""

from __future__ import annotations

from pairbench.analysis.burst import BurstEstimate, BurstGroup, group_estimates
from pairbench.domain.failures import AnalysisError as AnalysisError
from pairbench.engine.burst import ANALYSIS_KIND
from pairbench.engine.burst import analyze_stored_burst as analyze_stored_burst
from pairbench.library import Library, LibraryError
from pairbench.library.analyses import list_analyses
from pairbench.library.hosts import get_pair
from pairbench.library.runs import get_run


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
