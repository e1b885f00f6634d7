"""A campaign as the CLI prints it in JSON: its list fields (shared with the team
library's list), and shown whole with each cell's statistics."""

from __future__ import annotations

from pairbench.domain.campaign import Plan
from pairbench.library.campaigns import StoredCampaign
from pairbench.services.campaigns import CampaignShown


def cells_json(shown: CampaignShown) -> list[dict[str, object]]:
    """Each cell with its pair, test, parameters, n, mean, ci95, cv and discards."""
    out: list[dict[str, object]] = []
    for row in shown.rows:
        stats = row.verdict.stats
        ci = stats.ci if stats is not None else None
        out.append(
            {
                "cell": row.cell.index,
                "pair": row.cell.pair,
                "test": row.cell.test_name,
                "tool": row.cell.tool,
                "params": dict(row.cell.params),
                "axes": dict(row.cell.axes),
                "metric": row.cell.metric,
                "status": row.status,
                "reason": row.reason,
                "n": row.verdict.n,
                "mean": None if stats is None else stats.mean,
                "ci95": None if ci is None else [ci.low, ci.high],
                "cv": None if stats is None else stats.cv,
                "discarded": [
                    {
                        "run_id": row.judged[d.index].run_id,
                        "suite_id": row.judged[d.index].suite_id,
                        "value": d.value,
                        "reason": d.reason,
                    }
                    for d in row.verdict.discarded
                ],
                "runs": list(row.run_ids),
                "suites": list(row.suite_ids),
                "failures": row.failures,
            }
        )
    return out


def campaign_fields(
    c: StoredCampaign,
    plan: Plan,
    *,
    passes: int,
    passes_ended: int,
    runs: int,
    runs_planned: int,
    cells_total: int,
) -> dict[str, object]:
    """A campaign as ``campaign list --json`` lists it (the team's list adds who published
    it): its fields, its plan's order, repeats and schedule, and its progress."""
    return {
        "id": c.id,
        "name": c.name,
        "label": c.label,
        "status": c.status,
        "paused": c.paused,
        "created_at": c.created_at,
        "ended_at": c.ended_at,
        "error": c.error,
        "seed": c.seed,
        "order": plan.order.value,
        "repeats": plan.repeats.describe(),
        "schedule": plan.schedule.describe(),
        "passes": passes,
        "passes_ended": passes_ended,
        "runs": runs,
        "runs_planned": runs_planned,
        "cells_total": cells_total,
    }


def campaign_json(shown: CampaignShown, *, with_cells: bool = True) -> dict[str, object]:
    """A campaign as ``campaign show --json`` prints it."""
    out = campaign_fields(
        shown.campaign,
        shown.plan,
        passes=shown.passes,
        passes_ended=len(shown.passes_ended),
        runs=shown.runs_done,
        runs_planned=shown.runs_planned,
        cells_total=len(shown.rows),
    )
    if with_cells:
        out["cells"] = cells_json(shown)
    return out
