"""A storage suite as the CLI prints it in JSON: a stored suite's list row, and a suite shown
whole — what ``storage show --json`` prints, and ``storage run|resume --json`` too once the
suite ends (one shape for both)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pairbench.analysis.storage_suite import SuiteProgress, verdict_json
from pairbench.analysis.verdicts import count_labels
from pairbench.domain.storage import JobKey, stages_of
from pairbench.library.suites import StoredJob, StoredSuite
from pairbench.services.storage import SuiteShown


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


def steady_json(progress: SuiteProgress) -> dict[str, Any]:
    """The suite's steady state in one object: the rule, whether every stage reached it, the
    last stage's deciding round and window values (each stage's in ``stages``)."""
    stages = progress.stages
    last = stages[-1] if stages else None
    window = last.verdict.window if last is not None else None
    return {
        "rule": progress.params.steady_state.value,
        "reached": bool(stages) and all(s.verdict.reached_at is not None for s in stages),
        "round": last.verdict.reached_at if last is not None else None,
        "window": list(window.values) if window is not None else None,
    }


def _run_order(job: StoredJob) -> tuple[int, int, int, int]:
    """Jobs in the order they ran: a stage's preconditioning passes before its rounds."""
    key = JobKey(job.stage, job.round, job.job)
    if key.precondition:
        return (key.before_stage, 0, job.round, job.job)
    return (job.stage, 1, job.round, job.job)


def _job_json(shown: SuiteShown, job: StoredJob, verdicts: Mapping[int, str]) -> dict[str, Any]:
    key = JobKey(job.stage, job.round, job.job)
    stages = stages_of(shown.params.test)
    if key.precondition:
        stage_name, bs, mix = "precondition", "128k", 0
        if key.before_stage > 0:
            stage_name = f"precondition {stages[key.before_stage].name}"
    else:
        stage = stages[job.stage]
        stage_name, bs, mix = stage.name, stage.jobs[job.job].bs, stage.jobs[job.job].read_pct
    return {
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


def suite_json(shown: SuiteShown, verdicts: Mapping[int, str] | None = None) -> dict[str, Any]:
    """``storage show --json`` (and ``storage run|resume --json`` at the end): the suite,
    its steady state (``rounds``, ``steady_state``, each stage's verdict and what limited its
    runs), its jobs in the order they ran (round, mix, block size, figures, what limited each:
    ``verdicts``, run id → "device (server)"), its tables and columns."""
    suite, params, progress = shown.suite, shown.params, shown.progress
    verdicts = verdicts or {}
    limits = stage_verdicts(shown, verdicts)
    return {
        "id": suite.id,
        "kind": suite.kind,
        "host": suite.host,
        "test": params.test.value,
        "status": suite.status,
        "label": suite.label,
        "created_at": suite.created_at,
        "ended_at": suite.ended_at,
        "error": suite.error,
        "params": params.to_json(),
        "facts": suite.facts,
        "rounds": sum(len(s.values) for s in progress.stages),
        "steady_state": steady_json(progress),
        "stages": [
            {**verdict_json(s), "limited_by": limits.get(s.stage.name, "")} for s in progress.stages
        ],
        "jobs": [_job_json(shown, job, verdicts) for job in sorted(shown.jobs, key=_run_order)],
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
