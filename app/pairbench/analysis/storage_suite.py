"""Where a storage suite stands, from the jobs it finished: the next job (preconditioning
passes before a stage, then its rounds), each stage's tracking values and steady-state
verdict by the suite's rule (PTS, or CloudHarmony's arithmetic), and CloudHarmony's own
check of the deciding window (its ``ss_*`` fields)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from pairbench.analysis.cloudharmony import (
    ReferenceWindow,
    reference_verdict,
    reference_window,
    ss_window_fields,
    verification_percent,
)
from pairbench.analysis.cloudharmony_columns import tracking_value
from pairbench.analysis.steady_state import (
    SteadyParams,
    SteadyState,
    SteadyVerdict,
    WindowCheck,
    steady_state,
)
from pairbench.domain.storage import (
    Job,
    JobKey,
    Stage,
    SteadyRule,
    StorageTest,
    SuiteParams,
    precondition_stage,
    stages_of,
)

# A finished job's figures by its place in the suite (only completed jobs count).
Done = Mapping[JobKey, Mapping[str, float]]
# Pairbench's unit of a tracking value per CloudHarmony's (µs per ms; B/s per MiB/s).
_TO_PAIRBENCH = {
    StorageTest.IOPS: 1.0,
    StorageTest.LATENCY: 1000.0,
    StorageTest.THROUGHPUT: 2.0**20,
}


def steady_params(params: SuiteParams) -> SteadyParams:
    """The steady-state rule's parameters of a suite (window 5, its excursions and rounds)."""
    return SteadyParams(
        data_excursion=params.data_excursion,
        slope_excursion=params.slope_excursion,
        max_rounds=params.max_rounds,
    )


@dataclass(frozen=True, slots=True)
class StageProgress:
    """One stage: its tracking value per complete round (Pairbench's units), the verdict
    after them by the suite's rule, and CloudHarmony's check of the deciding window (in its
    units; None before a window, or when a value of it is missing)."""

    index: int
    stage: Stage
    values: tuple[float, ...]
    verdict: SteadyVerdict
    reference: ReferenceWindow | None = None
    rule: SteadyRule = SteadyRule.PTS

    @property
    def finished(self) -> bool:
        return self.verdict.state is not SteadyState.PENDING

    @property
    def window_rounds(self) -> tuple[int, ...]:
        """The rounds the tables average: the deciding window, else the last complete
        rounds (at most 5) of a stage that was stopped early."""
        window = self.verdict.window
        if window is not None:
            return tuple(range(window.round - len(window.values) + 1, window.round + 1))
        count = len(self.values)
        return tuple(range(max(1, count - 4), count + 1))


@dataclass(frozen=True, slots=True)
class SuiteProgress:
    """Every stage's progress, the preconditioning passes done before the first stage, and
    the next job (None: the suite is finished)."""

    params: SuiteParams
    precondition_done: int
    stages: tuple[StageProgress, ...]
    next_job: JobKey | None

    @property
    def finished(self) -> bool:
        return self.next_job is None


def complete_rounds(stage_index: int, stage: Stage, done: Done) -> int:
    """How many rounds of the stage, from round 1 on, have every job finished (a round
    under way, or one whose job must run again, ends the count)."""
    count = 0
    while all(JobKey(stage_index, count + 1, j) in done for j in range(len(stage.jobs))):
        count += 1
    return count


@dataclass(frozen=True, slots=True)
class ConvergenceLine:
    """One line of the convergence plot: a block size's figure (the stage's tracking metric
    on the tracked mix) at each complete round of its stage (NaN where a job lacks it)."""

    stage: int
    bs: str
    metric: str
    rounds: tuple[int, ...]
    values: tuple[float, ...]


def convergence_lines(params: SuiteParams, done: Done) -> list[ConvergenceLine]:
    """The convergence plot's lines after the jobs in ``done`` (the window's live plot and
    the report's chart): per stage, one line per block size of the tracked mix, a point per
    complete round."""
    lines: list[ConvergenceLine] = []
    for index, stage in enumerate(stages_of(params.test)):
        rounds = tuple(range(1, complete_rounds(index, stage, done) + 1))
        tracked = stage.tracked
        for j, job in enumerate(stage.jobs):
            if (job.read_pct, job.sequential) != (tracked.read_pct, tracked.sequential):
                continue
            values = tuple(
                float(done[JobKey(index, r, j)].get(stage.metric, math.nan)) for r in rounds
            )
            lines.append(ConvergenceLine(index, job.bs, stage.metric, rounds, values))
    return lines


def _shown(window: ReferenceWindow, values: tuple[float, ...], factor: float) -> WindowCheck:
    """CloudHarmony's check of a window, in Pairbench's units for plots and tables (its
    figures × ``factor``, its verdicts as it decided them)."""
    fitted_first = window.y_intercept + window.slope * window.first_round
    return WindowCheck(
        round=window.end_round,
        values=values[window.first_round - 1 : window.end_round],
        mean=window.average * factor,
        data_excursion=window.largest_data_excursion * factor,
        data_limit=window.max_data_excursion * factor,
        slope=window.slope * factor,
        intercept=fitted_first * factor,
        slope_excursion=window.largest_slope_excursion * factor,
        slope_limit=window.max_slope_excursion * factor,
        data_ok=window.data_ok,
        slope_ok=window.slope_ok,
        rule=SteadyRule.CLOUDHARMONY.value,
    )


def stage_progress(params: SuiteParams, index: int, stage: Stage, done: Done) -> StageProgress:
    """A stage's tracking values after the jobs in ``done`` and its verdict by the suite's
    rule, with CloudHarmony's check of the deciding window."""
    tracked = stage.job_index(stage.tracked)
    figures = [
        done[JobKey(index, r, tracked)] for r in range(1, complete_rounds(index, stage, done) + 1)
    ]
    values = tuple(float(f.get(stage.metric, 0.0)) for f in figures)
    theirs = [tracking_value(params.test, f) for f in figures]
    verification = verification_percent(params.slope_excursion)
    if params.steady_state is SteadyRule.CLOUDHARMONY:
        found = reference_verdict(theirs, params.max_rounds, verification)
        window = found.window
        shown = _shown(window, values, _TO_PAIRBENCH[params.test]) if window else None
        verdict = SteadyVerdict(found.state, found.rounds, shown)
        return StageProgress(index, stage, values, verdict, window, params.steady_state)
    verdict = steady_state(values, steady_params(params))
    reference = None
    if verdict.window is not None:
        end = verdict.window.round
        if all(math.isfinite(v) for v in theirs[end - 5 : end]):
            reference = reference_window(theirs, end, verification)
    return StageProgress(index, stage, values, verdict, reference, params.steady_state)


def _passes_done(stage: int, done: Done) -> int:
    """Preconditioning passes finished before stage ``stage`` (1, 2, ... in a row)."""
    count = 0
    while JobKey(precondition_stage(stage), count + 1, 0) in done:
        count += 1
    return count


def suite_progress(params: SuiteParams, done: Done) -> SuiteProgress:
    """Where the suite stands after the jobs in ``done``."""
    next_job: JobKey | None = None
    stages: list[StageProgress] = []
    for index, stage in enumerate(stages_of(params.test)):
        passes = _passes_done(index, done)
        if next_job is None and passes < params.precondition_passes_before(index):
            next_job = JobKey(precondition_stage(index), passes + 1, 0)
        progress = stage_progress(params, index, stage, done)
        stages.append(progress)
        if next_job is None and not progress.finished:
            round_no = len(progress.values) + 1
            job = next(j for j in range(len(stage.jobs)) if JobKey(index, round_no, j) not in done)
            next_job = JobKey(index, round_no, job)
    return SuiteProgress(params, _passes_done(0, done), tuple(stages), next_job)


def job_of(params: SuiteParams, key: JobKey) -> Job:
    """The fio job at ``key`` (a preconditioning pass: sequential 128 KiB writes)."""
    if key.precondition:
        return Job("128k", 0, sequential=True)
    return stages_of(params.test)[key.stage].jobs[key.job]


def jobs_total(params: SuiteParams, progress: SuiteProgress, done: Done) -> tuple[int, int]:
    """Jobs done and jobs planned so far: a finished stage counts its rounds, a running one
    at least the window (5 rounds) and the round under way, one not begun its window;
    preconditioning included."""
    window = steady_params(params).window
    planned = 0
    for stage in progress.stages:
        rounds = len(stage.values) if stage.finished else max(window, len(stage.values) + 1)
        planned += params.precondition_passes_before(stage.index)
        planned += rounds * len(stage.stage.jobs)
    return len(done), planned


def _window_json(window: WindowCheck) -> dict[str, object]:
    return {
        "end_round": window.round,
        "values": list(window.values),
        "mean": window.mean,
        "data_excursion": window.data_excursion,
        "data_limit": window.data_limit,
        "data_ok": window.data_ok,
        "slope": window.slope,
        "intercept": window.intercept,
        "slope_excursion": window.slope_excursion,
        "slope_limit": window.slope_limit,
        "slope_ok": window.slope_ok,
    }


def verdict_json(progress: StageProgress) -> dict[str, object]:
    """A stage's verdict as stored and printed: the rule that decided it, state, rounds, the
    deciding round and window (values, mean, both excursions against their limits, the
    fitted line, in Pairbench's units), and CloudHarmony's ``ss_*`` fields of that window
    (written, as CloudHarmony does, only when it calls the window steady)."""
    verdict = progress.verdict
    window = verdict.window
    return {
        "stage": progress.stage.name,
        "tracking": progress.stage.metric_label,
        "rule": progress.rule.value,
        "state": verdict.state.value,
        "reached": verdict.state is SteadyState.REACHED,
        "rounds": len(progress.values),
        "round": verdict.reached_at,
        "values": list(progress.values),
        "window": None if window is None else _window_json(window),
        "cloudharmony": ss_window_fields(progress.reference),
    }
