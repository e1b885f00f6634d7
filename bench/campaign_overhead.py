"""campaign_overhead: what a campaign adds around its runs (target ≤ 1.05 with 5 s runs).

A campaign of 5 s iperf3 runs on ``local`` (2 cells × 2 repeats, interleaved, no pause)
runs through ``services.campaigns`` in process. The headline is the campaign's wall time
(from its creation to its end) ÷ the sum of its runs' durations (each stored run from its
start to its end): what remains above 1 is the scheduler's share — preflight, picking the
next run, connecting and probing, recording the verdicts. Medians of several campaigns.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from bench.common import Out, Verdict, fmt, median, spread
from pairbench.library import Library
from pairbench.services.campaign_plan import parse_plan
from pairbench.services.campaigns import show_campaign, start_campaign
from pairbench.services.runs import show_run

NAME = "campaign_overhead"
TARGET_RATIO = 1.05
RUN_S = 5
PLAN = f"""
name = "overhead"
pairs = ["local"]
repeats = 2
[[tests]]
tool = "iperf3"
params = {{ duration = {RUN_S}, streams = [1, 2] }}
"""


def _campaign(lib: Library) -> tuple[float, float, int]:
    """(wall seconds, sum of the runs' durations, runs)."""
    outcome = asyncio.run(start_campaign(lib, parse_plan(PLAN)))
    shown = show_campaign(lib, outcome.campaign_id)
    durations = []
    for run_id in outcome.run_ids:
        run = show_run(lib, run_id).run
        durations.append((run.ended_at or run.started_at) - run.started_at)
    campaign = shown.campaign
    wall = (campaign.ended_at or campaign.updated_at) - campaign.created_at
    return wall, sum(durations), len(durations)


def run(quick: bool, out: Out) -> Verdict:
    repeats = 1 if quick else 3
    ratios: list[float] = []
    per_run: list[float] = []
    with (
        tempfile.TemporaryDirectory(prefix="pb-bench-campaign-") as tmp,
        Library.open(Path(tmp) / "library.sqlite") as lib,
    ):
        for _ in range(repeats):
            wall, runs, count = _campaign(lib)
            ratios.append(wall / runs)
            per_run.append((wall - runs) / count)
    out(f"  campaign wall / sum of run durations: {', '.join(fmt(r) for r in ratios)}")
    out(f"  scheduler's share per run: {spread(per_run, 1e3, 'ms')}")
    return Verdict(
        NAME,
        median(ratios),
        TARGET_RATIO,
        f"the sum of its {RUN_S} s runs",
        info=f"{fmt(median(per_run) * 1e3)} ms per run",
    )
