"""Following a storage suite as it runs (the window's live view): a finished job's figures,
the convergence lines (the tracked mix's figure per block size per complete round), the
suites that can be resumed, and a stored suite's state to rebuild the plots from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pairbench.analysis.storage_suite import ConvergenceLine as ConvergenceLine
from pairbench.analysis.storage_suite import convergence_lines as convergence_lines
from pairbench.domain.storage import JobKey, StorageTest, SuiteStatus, stages_of
from pairbench.engine.storage_suite import summary_figures
from pairbench.library import Library
from pairbench.services.storage import SuiteShown, show_suite, storage_suites

# A finished job's figures by its place in the suite.
Figures = dict[str, float]
Done = Mapping[JobKey, Mapping[str, float]]


def figure_family(test: StorageTest) -> str:
    """What a test measures, as the suffix of its figures (``iops``, ``bytes_per_s``,
    ``lat_mean_us``): the live view plots ``read_`` and ``write_`` of it."""
    return stages_of(test)[0].metric.removeprefix("write_")


# The figures the suite keeps of a job's run summary (as the scheduler stores them), or None.
job_figures = summary_figures

# A stored suite as the live view starts from it (a resumed suite's plots): its parameters,
# progress and completed jobs' figures.
SuiteState = SuiteShown
suite_state = show_suite


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
