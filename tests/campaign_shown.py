"""Campaigns as ``show_campaign`` presents them, built in memory for the report's tests:
cells of a plan, completed runs (start time, value) per cell, verdicts by the plan's
policies, skipped cells."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pairbench.analysis.campaign import COMPLETED, Attempt, cell_verdict
from pairbench.domain.campaign import (
    Cell,
    PairSelector,
    Plan,
    RepeatPolicy,
    RunKey,
    Schedule,
    TestPlan,
    plan_to_json,
)
from pairbench.library.campaigns import StoredCampaign
from pairbench.services.campaigns import CampaignShown, CellRow

T0 = 1_760_000_000.0  # a fixed start (epoch seconds)


def make_plan(
    pairs: Sequence[str], *, outliers: str = "mad:3", schedule: Schedule | None = None
) -> Plan:
    return Plan(
        name="study",
        pairs=PairSelector(tuple(pairs)),
        tests=(
            TestPlan("iperf3", "iperf3", {"streams": ("1", "4")}),
            TestPlan("ping", "ping", {}),
        ),
        repeats=RepeatPolicy(3, 8, 0.05),
        outliers=outliers,
        schedule=schedule or Schedule(),
    )


def make_cells(pairs: Sequence[str]) -> list[Cell]:
    """Per pair: iperf3 streams=1, iperf3 streams=4 (throughput) and ping (RTT)."""
    cells: list[Cell] = []
    for pair in pairs:
        for test, name, axes, metric in (
            (0, "iperf3", {"streams": "1"}, "throughput_bps"),
            (0, "iperf3", {"streams": "4"}, "throughput_bps"),
            (1, "ping", {}, "rtt_avg_ms"),
        ):
            cells.append(Cell(len(cells), pair, test, name, name, dict(axes), dict(axes), metric))
    return cells


def make_shown(
    plan: Plan,
    cells: Sequence[Cell],
    runs: Mapping[int, Sequence[tuple[float, float]]],
    *,
    skipped: Mapping[int, str] | None = None,
) -> CampaignShown:
    """``runs``: cell → (start time, value) of its completed runs (any order); run ids are
    given in start order over the whole campaign."""
    skipped = dict(skipped or {})
    every = sorted((at, cell, value) for cell, rs in runs.items() for at, value in rs)
    attempts = [
        Attempt(RunKey(cell, 1, k + 1, 1), 100 + k, COMPLETED, value, at)
        for k, (at, cell, value) in enumerate(every)
    ]
    rows = []
    for cell in cells:
        mine = sorted((a for a in attempts if a.key.cell == cell.index), key=lambda a: a.at)
        values = [a.value for a in mine if a.value is not None]
        verdict = cell_verdict(values, plan)
        if cell.index in skipped:
            status, reason = "skipped", skipped[cell.index]
        elif not values:
            status, reason = "pending", ""
        else:
            status, reason = "done", verdict.why
        ids = tuple(a.run_id for a in mine if a.run_id is not None)
        rows.append(CellRow(cell, status, reason, verdict, ids, 0, tuple(mine)))
    stored = StoredCampaign(
        id=7,
        name=plan.name,
        plan=plan_to_json(plan),
        plan_text="",
        cells=[c.to_json() for c in cells],
        seed=1,
        status="completed",
        paused=False,
        created_at=T0,
        updated_at=T0,
        ended_at=T0 + 60,
        label="test",
        error=None,
    )
    done = len(attempts)
    return CampaignShown(stored, plan, rows, attempts, 1, {1: "completed"}, done, done)
