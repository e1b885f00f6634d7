"""A storage suite as the CLI prints it in JSON: a stored suite's list row, a finished run's
outcome (``storage run|resume --json``) and a suite shown whole (``storage show --json``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pairbench.analysis.storage_suite import verdict_json
from pairbench.analysis.verdicts import count_labels
from pairbench.domain.storage import JobKey, SuiteParams, stages_of
from pairbench.library.suites import StoredSuite
from pairbench.services.storage import SuiteOutcome, SuiteShown


def suite_row(suite: StoredSuite) -> dict[str, Any]:
    """A suite as ``storage list --json`` lists it (the team's list adds who published it)."""
    return {
        "id": suite.id,
        "host": suite.host,
        "test": suite.params.get("test"),
        "target": suite.params.get("target"),
        "status": suite.status,
        "label": suite.label,
        "created_at": suite.created_at,
        "ended_at": suite.ended_at,
        "error": suite.error,
    }


def outcome_json(outcome: SuiteOutcome, params: SuiteParams) -> dict[str, Any]:
    """``storage run|resume --json``: id, status, test, rounds and the steady state."""
    stages = outcome.progress.stages
    reached = bool(stages) and all(s.verdict.reached_at is not None for s in stages)
    last = stages[-1] if stages else None
    window = last.verdict.window if last is not None else None
    return {
        "id": outcome.suite_id,
        "status": outcome.status.value,
        "test": params.test.value,
        "rounds": sum(len(s.values) for s in stages),
        "steady_state": {
            "reached": reached,
            "round": last.verdict.reached_at if last is not None else None,
            "window": list(window.values) if window is not None else None,
        },
        "stages": [verdict_json(s) for s in stages],
        "error": outcome.error,
    }


def suite_json(shown: SuiteShown, verdicts: Mapping[int, str] | None = None) -> dict[str, Any]:
    """``storage show --json``: the suite, its jobs (round, mix, block size, figures, what
    limited each: ``verdicts``, run id → "device (server)") and its tables."""
    verdicts = verdicts or {}
    limits = stage_verdicts(shown, verdicts)
    suite, params = shown.suite, shown.params
    stages = stages_of(params.test)
    jobs = []
    for job in shown.jobs:
        key = JobKey(job.stage, job.round, job.job)
        if key.precondition:
            stage_name, bs, mix = "precondition", "128k", 0
        else:
            stage = stages[job.stage]
            stage_name, bs, mix = stage.name, stage.jobs[job.job].bs, stage.jobs[job.job].read_pct
        jobs.append(
            {
                "stage": stage_name,
                "round": job.round,
                "block_size": bs,
                "read_pct": mix,
                "mix": f"{mix}/{100 - mix}",
                "run_id": job.run_id,
                "status": job.status,
                "figures": job.figures,
                "limited_by": verdicts.get(job.run_id) if job.run_id is not None else None,
            }
        )
    return {
        "id": suite.id,
        "kind": suite.kind,
        "host": suite.host,
        "status": suite.status,
        "label": suite.label,
        "created_at": suite.created_at,
        "ended_at": suite.ended_at,
        "error": suite.error,
        "params": params.to_json(),
        "facts": suite.facts,
        "stages": [
            {**verdict_json(s), "limited_by": limits.get(s.stage.name, "")}
            for s in shown.progress.stages
        ],
        "jobs": jobs,
        "tables": {
            t.name: [
                {"block_size": c.bs, "read_pct": c.read_pct, "value": c.value, "unit": t.unit}
                for c in t.cells
                if math.isfinite(c.value)
            ]
            for t in shown.tables
        },
        "columns": shown.columns,
    }


def stage_verdicts(shown: SuiteShown, verdicts: Mapping[int, str]) -> dict[str, str]:
    """Per stage (by name), what limited its jobs' runs ("device (server) ×12, cpu ×1")."""
    stages = stages_of(shown.params.test)
    labels: dict[str, list[str]] = {}
    for job in shown.jobs:
        key = JobKey(job.stage, job.round, job.job)
        if key.precondition or job.run_id is None or job.stage >= len(stages):
            continue
        labels.setdefault(stages[job.stage].name, []).append(verdicts.get(job.run_id, ""))
    return {name: count_labels(found) for name, found in labels.items()}
