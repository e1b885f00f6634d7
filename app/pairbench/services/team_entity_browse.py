"""The team library's storage suites and campaigns as the CLI shows them: the local lists'
fields (the team's ids) plus who published each and from which computer, and one of each
by UUID with its rows."""

from __future__ import annotations

from typing import Any

from pairbench.analysis.campaign import planned_runs
from pairbench.analysis.campaign_schedule import slot_times
from pairbench.domain.campaign import plan_from_json
from pairbench.library import Library
from pairbench.library.team.entity_list import (
    Published,
    TeamCampaign,
    TeamSuite,
    list_team_campaigns,
    list_team_suites,
    team_campaign,
    team_suite,
)
from pairbench.services.campaign_json import campaign_fields
from pairbench.services.storage_json import suite_row
from pairbench.services.team import configured_url, open_store


def _published(p: Published) -> dict[str, object]:
    return {"uuid": p.uuid, "ran_by": p.ran_by, "origin": p.origin}


def suite_row_json(t: TeamSuite) -> dict[str, object]:
    """A team suite as ``storage list --json`` gives a local one, plus uuid, ran_by, origin."""
    return {**suite_row(t.suite), **_published(t.published)}


def campaign_row_json(t: TeamCampaign) -> dict[str, object]:
    """A team campaign as ``campaign list --json`` gives a local one (its passes and planned
    runs from its plan, as ``show_campaign`` counts them), plus uuid, ran_by, origin."""
    c = t.campaign
    plan = plan_from_json(c.plan)
    passes = len(slot_times(plan.schedule, c.created_at))
    live = len(c.cells) - t.skipped_cells
    fields = campaign_fields(
        c,
        plan,
        passes=passes,
        passes_ended=t.passes_ended,
        runs=t.completed_runs,
        runs_planned=max(t.completed_runs, planned_runs(plan, live, passes)[0]),
        cells_total=len(c.cells),
    )
    return {**fields, **_published(t.published)}


def team_suites(lib: Library) -> list[TeamSuite]:
    """The team library's suites, newest first; ``TeamError`` when it cannot be read."""
    with open_store(configured_url(lib)) as store:
        store.ensure_schema(create=False)
        return list_team_suites(store)


def team_campaigns(lib: Library) -> list[TeamCampaign]:
    """The team library's campaigns, newest first; ``TeamError`` when it cannot be read."""
    with open_store(configured_url(lib)) as store:
        store.ensure_schema(create=False)
        return list_team_campaigns(store)


def team_suite_json(lib: Library, uuid: str) -> dict[str, Any]:
    """One team suite whole: its fields, who published it, and its jobs (runs by UUID)."""
    with open_store(configured_url(lib)) as store:
        store.ensure_schema(create=False)
        shown, jobs = team_suite(store, uuid)
    s = shown.suite
    return {
        **suite_row_json(shown),
        "kind": s.kind,
        "params": s.params,
        "updated_at": s.updated_at,
        "facts": s.facts,
        "verdicts": s.verdicts,
        "tags": s.tags,
        "published_at": shown.published.published_at,
        "jobs": [
            {
                "stage": job.stage,
                "round": job.round,
                "job": job.job,
                "run_uuid": run,
                "status": job.status,
                "figures": job.figures,
            }
            for job, run in jobs
        ],
    }


def team_campaign_json(lib: Library, uuid: str) -> dict[str, Any]:
    """One team campaign whole: its list fields, plan and cells, and the runs (by UUID),
    skipped cells and ended passes it recorded."""
    with open_store(configured_url(lib)) as store:
        store.ensure_schema(create=False)
        detail = team_campaign(store, uuid)
    c = detail.campaign.campaign
    return {
        **campaign_row_json(detail.campaign),
        "plan": c.plan,
        "plan_text": c.plan_text,
        "cells": c.cells,
        "updated_at": c.updated_at,
        "published_at": detail.campaign.published.published_at,
        "campaign_runs": [
            {
                "cell": r.cell,
                "pass": r.occurrence,
                "round": r.round,
                "attempt": r.attempt,
                "run_uuid": r.run_uuid,
                "suite_uuid": r.suite_uuid,
                "status": r.status,
                "value": r.value,
                "at": r.at,
                "error": r.error,
            }
            for r in detail.runs
        ],
        "skipped": {str(cell): why for cell, why in detail.skipped.items()},
        "passes_done": {str(p): s for p, s in detail.passes.items()},
    }
