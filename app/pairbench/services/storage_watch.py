"""Following a storage suite as it runs (the window's live view): a finished job's figures,
the convergence lines (the tracked mix's figure per block size per complete round), the
suites that can be resumed, and a stored suite's state to rebuild the plots from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pairbench.analysis.storage_suite import SuiteProgress
from pairbench.domain import Run, RunStatus
from pairbench.domain.storage import JobKey, StorageTest, SuiteParams, SuiteStatus, stages_of
from pairbench.engine.storage_suite import summary_figures
from pairbench.library import Library
from pairbench.library.suites import StoredSuite
from pairbench.services.storage import show_suite, storage_suites

# A finished job's figures by its place in the suite.
Figures = dict[str, float]
Done = Mapping[JobKey, Mapping[str, float]]


def job_figures(run: Run) -> Figures | None:
    """The figures the suite keeps of a job's run summary (as the scheduler stores them),
    or None when the run did not complete or measured nothing."""
    return summary_figures(run)


@dataclass(frozen=True, slots=True)
class ConvergenceLine:
    """One line of the convergence plot: a block size's figure (the stage's tracking metric
    on the tracked mix) at each complete round of its stage."""

    stage: int
    bs: str
    metric: str
    rounds: tuple[int, ...]
    values: tuple[float, ...]


def _round_complete(stage: int, jobs: int, round_no: int, done: Done) -> bool:
    return all(JobKey(stage, round_no, j) in done for j in range(jobs))


def convergence_lines(params: SuiteParams, done: Done) -> list[ConvergenceLine]:
    """The convergence plot's lines after the jobs in ``done``: per stage, one line per
    block size of the tracked mix, a point per complete round (from round 1 up to the first
    round not complete)."""
    lines: list[ConvergenceLine] = []
    for index, stage in enumerate(stages_of(params.test)):
        tracked = [
            (j, job)
            for j, job in enumerate(stage.jobs)
            if job.read_pct == stage.tracked.read_pct and job.sequential == stage.tracked.sequential
        ]
        rounds: list[int] = []
        round_no = 1
        while _round_complete(index, len(stage.jobs), round_no, done):
            rounds.append(round_no)
            round_no += 1
        for j, job in tracked:
            values = tuple(
                float(done[JobKey(index, r, j)].get(stage.metric, float("nan"))) for r in rounds
            )
            lines.append(ConvergenceLine(index, job.bs, stage.metric, tuple(rounds), values))
    return lines


def figure_family(test: StorageTest) -> str:
    """What a test measures, as the suffix of its figures (``iops``, ``bytes_per_s``,
    ``lat_mean_us``): the live view plots ``read_`` and ``write_`` of it."""
    return stages_of(test)[0].metric.removeprefix("write_")


@dataclass(frozen=True, slots=True)
class SuiteState:
    """A stored suite as the live view starts from it (a resumed suite's plots)."""

    suite: StoredSuite
    params: SuiteParams
    progress: SuiteProgress
    done: dict[JobKey, Figures]


def suite_state(lib: Library, suite_id: int) -> SuiteState:
    """The suite, its parameters, progress and completed jobs' figures; ``LibraryError``
    when there is no such suite."""
    shown = show_suite(lib, suite_id)
    done = {
        JobKey(j.stage, j.round, j.job): dict(j.figures)
        for j in shown.jobs
        if j.status == RunStatus.COMPLETED.value
    }
    return SuiteState(shown.suite, shown.params, shown.progress, done)


@dataclass(frozen=True, slots=True)
class SuiteRow:
    """A stored suite in the window's list of suites to resume."""

    id: int
    test: str
    host: str
    target: str
    status: str
    label: str
    error: str | None
    created_at: float

    @property
    def interrupted(self) -> bool:
        return self.status == SuiteStatus.INTERRUPTED.value

    @property
    def title(self) -> str:
        label = f" “{self.label}”" if self.label else ""
        return f"#{self.id} {self.test} on {self.host}: {self.target}{label}"


def resumable_suites(lib: Library) -> list[SuiteRow]:
    """Suites that stopped before the end (cancelled, interrupted, failed), newest first;
    suites running (here or in another process) and completed ones are left out."""
    ended = {s.value for s in SuiteStatus if s.resumable and s is not SuiteStatus.RUNNING}
    return [
        SuiteRow(
            s.id,
            str(s.params.get("test", "")),
            s.host,
            str(s.params.get("target", "")),
            s.status,
            s.label,
            s.error,
            s.created_at,
        )
        for s in storage_suites(lib)
        if s.status in ended
    ]


def eta_seconds(jobs_left: int, round_seconds: float, overhead_s: float, in_job_s: float) -> float:
    """Seconds left: each job left lasts a round plus the overhead measured per job; the job
    under way has run ``in_job_s`` already."""
    if jobs_left <= 0:
        return 0.0
    return max(0.0, jobs_left * (round_seconds + max(0.0, overhead_s)) - in_job_s)
