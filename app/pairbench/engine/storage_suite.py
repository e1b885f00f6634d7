"""The storage suite's scheduler: preconditioning passes, then rounds of fio jobs until each
stage is steady or out of rounds (a stage prepared again — throughput's 128 KiB — is first
purged and preconditioned once more). Every job is a stored run; the suite's jobs table says
which ones finished, so a stopped suite goes on from its next job as if nothing happened."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from pairbench.analysis.storage_suite import (
    StageProgress,
    SuiteProgress,
    job_of,
    jobs_total,
    suite_progress,
    verdict_json,
)
from pairbench.domain import LineSource, Run, RunSpec, RunStatus
from pairbench.domain.failures import LibraryFullError, RunError, TargetChangedError
from pairbench.domain.storage import Job, JobKey, SuiteParams, SuiteStatus, stages_of
from pairbench.engine.execute import Prepared, execute_run
from pairbench.engine.host_lock import HostLocks
from pairbench.engine.observer import RunObserver
from pairbench.library import Library
from pairbench.library.series import load_raw_output
from pairbench.library.suites import (
    StoredJob,
    finish_suite,
    get_suite,
    record_job,
    set_suite_facts,
    set_suite_verdicts,
    suite_jobs,
)
from pairbench.tools.fio_extremes import first_job_figures, latency_max_us

PRECONDITION_RUNTIME_S = 7 * 86_400  # fio's limit for a pass that ends when it wrote the range
# The figures of a fio job that the suite keeps (its tables and tracking variables use them).
FIGURES = (
    "read_iops",
    "write_iops",
    "read_bytes_per_s",
    "write_bytes_per_s",
    "read_lat_mean_us",
    "write_lat_mean_us",
    "read_lat_p99_us",
    "write_lat_p99_us",
    "read_lat_p999_us",
    "write_lat_p999_us",
)


class SuiteObserver(Protocol):
    """What a suite reports as it goes (from the engine thread; return quickly)."""

    def on_job_started(self, key: JobKey, name: str, done: int, planned: int) -> None: ...

    def on_job_finished(self, key: JobKey, run: Run) -> None: ...

    def on_round(self, stage: StageProgress) -> None:
        """A round of a stage is complete: its tracking values and verdict so far."""
        ...


class NullSuiteObserver:
    """Hears nothing."""

    def on_job_started(self, key: JobKey, name: str, done: int, planned: int) -> None:
        return None

    def on_job_finished(self, key: JobKey, run: Run) -> None:
        return None

    def on_round(self, stage: StageProgress) -> None:
        return None


@dataclass(frozen=True, slots=True)
class SuiteOutcome:
    """How a suite run (or resumed) ended, with where it stands."""

    suite_id: int
    status: SuiteStatus
    progress: SuiteProgress
    error: str | None = None


def job_params(
    params: SuiteParams, suite_id: int, key: JobKey, test_file: str = ""
) -> dict[str, str]:
    """The fio run parameters of the job at ``key``: on the device, or on ``test_file`` (in
    the suite's own directory, ``engine.storage_files``; the suite made it, so it is
    confirmed); without one, a directory suite's jobs name the target directory (only for
    checks: ``run_suite`` refuses to run that way)."""
    job = job_of(params, key)
    # Preconditioning runs one thread at the suite's depth whatever the test (CloudHarmony's
    # wipc: numjobs 1, its oio_per_thread); the latency test's jobs run at depth 1.
    out = {
        "rw": job.rw,
        "bs": job.bs,
        "iodepth": str(params.iodepth if key.precondition else params.job_iodepth()),
        "numjobs": "1" if key.precondition else str(params.job_threads()),
        "runtime": str(PRECONDITION_RUNTIME_S if key.precondition else params.round_seconds),
        "time_based": "false" if key.precondition else "true",
        "size": str(params.size),
        "direct": "true" if params.direct else "false",
        "ioengine": params.ioengine,
        "group_reporting": "true",
        "refill_buffers": "true",
        "norandommap": "true",
    }
    if job.rw in ("randrw", "rw"):
        out["rwmixread"] = str(job.read_pct)
    if params.on_device:
        out["device"] = params.target
        out["confirm_destroy"] = params.target
    elif test_file:
        out["file"] = test_file
        out["confirm_destroy"] = test_file
    else:
        out["directory"] = params.target
    return out


def job_label(suite_id: int, key: JobKey, job: Job, params: SuiteParams) -> str:
    if key.precondition and key.before_stage == 0:
        return f"storage {suite_id}: precondition pass {key.round}"
    if key.precondition:
        stage = stages_of(params.test)[key.before_stage]
        return f"storage {suite_id}: precondition pass {key.round} before {stage.name}"
    stage = stages_of(params.test)[key.stage]
    return f"storage {suite_id}: {stage.name} round {key.round}, {job.name}"


def job_spec(
    pair: str, suite_id: int, params: SuiteParams, key: JobKey, test_file: str = ""
) -> RunSpec:
    """The run of one job: fio on the suite's host, tagged with its place in the suite."""
    job = job_of(params, key)
    stage = "precondition" if key.precondition else stages_of(params.test)[key.stage].name
    tags = {
        "suite": str(suite_id),
        "suite_stage": stage,
        "suite_round": str(key.round),
        "suite_job": job.name,
    }
    return RunSpec(
        pair,
        "fio",
        job_params(params, suite_id, key, test_file),
        job_label(suite_id, key, job, params),
        tags,
    )


def completed_jobs(jobs: Iterable[StoredJob]) -> dict[JobKey, dict[str, float]]:
    """Of a suite's stored jobs, the completed ones and their figures (jobs to run again
    left out)."""
    return {
        JobKey(j.stage, j.round, j.job): j.figures
        for j in jobs
        if j.status == RunStatus.COMPLETED.value
    }


def done_jobs(lib: Library, suite_id: int) -> dict[JobKey, dict[str, float]]:
    """The suite's completed jobs and their figures, as stored."""
    return completed_jobs(suite_jobs(lib, suite_id))


def summary_figures(run: Run) -> dict[str, float] | None:
    """The suite's figures in a job's run summary, or None when the run did not complete
    or measured nothing (no IOPS at all)."""
    if run.status is not RunStatus.COMPLETED:
        return None
    figures = {name: float(run.summary[name]) for name in FIGURES if name in run.summary}
    if figures.get("read_iops", 0.0) + figures.get("write_iops", 0.0) <= 0.0:
        return None
    return figures


def output_figures(summary: dict[str, float], lines: Iterable[str]) -> dict[str, float]:
    """A job's figures: those of its summary, the largest latencies and fio's own figures of
    its first job, from its output's last fio document (``lines``: fio's stdout)."""
    kept = list(lines)
    return {**summary, **latency_max_us(kept), **first_job_figures(kept)}


def _figures(lib: Library, run: Run) -> dict[str, float] | None:
    """The job's figures (``output_figures``), or None when its run did not measure."""
    figures = summary_figures(run)
    if figures is None:
        return None
    stdout = LineSource.CLIENT_OUT.value
    lines = (
        line
        for source, text in load_raw_output(lib, run.id)
        if source == stdout
        for line in text.split("\n")
    )
    return output_figures(figures, lines)


_SUITE_END = {
    RunStatus.CANCELLED: SuiteStatus.CANCELLED,
    RunStatus.INTERRUPTED: SuiteStatus.INTERRUPTED,
}


# Purges the suite's target (a note of how); raises ``RunError`` when nothing works, and
# ``TargetChangedError`` when the target is no longer as the suite checked it.
Purge = Callable[[], Coroutine[Any, Any, str]]


def purges_before(params: SuiteParams, key: JobKey) -> bool:
    """Whether the target is purged again before the job at ``key``: the first job of a
    stage's own preparation (its first preconditioning pass, else its first job)."""
    stage = key.before_stage if key.precondition else key.stage
    if stage < 1 or not params.purge_before(stage) or key.round != 1:
        return False
    return key.precondition or (key.job == 0 and params.precondition_passes_before(stage) == 0)


async def _purge_again(
    lib: Library, suite_id: int, params: SuiteParams, key: JobKey, purge: Purge
) -> tuple[SuiteStatus, str] | None:
    """Purge before a stage prepared again, the note kept in the suite's facts; None: go on.
    A purge that fails is noted and the suite goes on, as CloudHarmony's does; a target no
    longer as the suite checked it (``TargetChangedError``: nothing touched) ends it failed,
    a library too full to note the purge ends it interrupted (both resumable)."""
    stage = stages_of(params.test)[key.before_stage if key.precondition else key.stage]
    try:
        note = await purge()
    except TargetChangedError as exc:
        return SuiteStatus.FAILED, f"before {stage.name}: {exc}"
    except RunError as exc:
        note = f"not purged: {exc}"
    try:
        with lib.disk_errors():
            facts = dict(get_suite(lib, suite_id).facts)
            facts[f"purge before {stage.name}"] = note
            set_suite_facts(lib, suite_id, facts)
    except LibraryFullError as exc:
        return SuiteStatus.INTERRUPTED, f"purge before {stage.name}: {exc}"
    return None


async def run_suite(
    lib: Library,
    suite_id: int,
    params: SuiteParams,
    prepared: Prepared,
    *,
    observer: SuiteObserver | None = None,
    run_observer: RunObserver | None = None,
    cancel: asyncio.Event | None = None,
    test_file: str = "",
    locks: HostLocks | None = None,
    purge: Purge | None = None,
) -> SuiteOutcome:
    """Run the suite's remaining jobs, one at a time, and end it: completed when every stage
    is steady or out of rounds; cancelled, interrupted or failed (resumable) when a job did
    not complete. ``prepared`` is fio on the suite's host, probed (its spec is replaced);
    ``test_file`` a directory suite's file (in its own directory); ``locks`` the host's lock,
    held by the caller for the whole suite (else each job takes it); ``purge`` purges the
    target again before a stage prepared again."""
    if not params.on_device and not test_file:
        raise ValueError("a directory suite runs on its test file, and none was given")
    observer = observer or NullSuiteObserver()
    cancel = cancel or asyncio.Event()
    done = done_jobs(lib, suite_id)
    progress = suite_progress(params, done)
    while progress.next_job is not None:
        key = progress.next_job
        if cancel.is_set():
            return _end(lib, suite_id, SuiteStatus.CANCELLED, progress, "cancelled")
        if purge is not None and purges_before(params, key):
            stopped = await _purge_again(lib, suite_id, params, key, purge)
            if stopped is not None:
                return _end(lib, suite_id, stopped[0], progress, stopped[1])
        spec = job_spec(prepared.pair.name, suite_id, params, key, test_file)
        finished, planned = jobs_total(params, progress, done)
        observer.on_job_started(key, spec.label, finished, planned)
        job_prepared = replace(
            prepared, spec=replace(spec, params=prepared.tool.resolve(spec.params))
        )
        try:
            run = await execute_run(
                lib, job_prepared, observer=run_observer, cancel=cancel, held=locks
            )
        except RunError as exc:  # the job could not start: the library's disk full interrupts
            full = isinstance(exc.cause, LibraryFullError)
            end = SuiteStatus.INTERRUPTED if full else SuiteStatus.FAILED
            return _end(lib, suite_id, end, progress, str(exc))
        except asyncio.CancelledError:  # the task itself (a window closing): the run is stored
            _end(lib, suite_id, SuiteStatus.CANCELLED, progress, "cancelled")
            raise
        observer.on_job_finished(key, run)
        figures = _figures(lib, run)
        where = (key.stage, key.round, key.job)
        failed = run.status if run.status is not RunStatus.COMPLETED else RunStatus.FAILED
        try:
            with lib.disk_errors():
                if figures is None:
                    record_job(lib, suite_id, where, run.id, failed.value, {})
                else:
                    record_job(lib, suite_id, where, run.id, RunStatus.COMPLETED.value, figures)
                    done[key] = figures
                    before, progress = progress, suite_progress(params, done)
                    _report_rounds(lib, suite_id, before, progress, observer)
        except LibraryFullError as exc:  # the job's run is stored; a resume runs it again
            return _end(lib, suite_id, SuiteStatus.INTERRUPTED, progress, f"{spec.label}: {exc}")
        if figures is None:
            reason = run.error or f"the job's run {run.id} measured nothing"
            end = _SUITE_END.get(run.status, SuiteStatus.FAILED)
            return _end(lib, suite_id, end, progress, f"{spec.label}: {reason}")
    return _end(lib, suite_id, SuiteStatus.COMPLETED, progress, None)


def _report_rounds(
    lib: Library,
    suite_id: int,
    before: SuiteProgress,
    after: SuiteProgress,
    observer: SuiteObserver,
) -> None:
    """Store the verdicts and tell the observer when a round of a stage became complete."""
    grown = [
        stage
        for old, stage in zip(before.stages, after.stages, strict=True)
        if len(stage.values) > len(old.values)
    ]
    if not grown:
        return
    set_suite_verdicts(lib, suite_id, verdicts(after))
    for stage in grown:
        observer.on_round(stage)


def verdicts(progress: SuiteProgress) -> dict[str, object]:
    """Every stage's verdict by stage name, as stored with the suite."""
    return {stage.stage.name: verdict_json(stage) for stage in progress.stages}


def _end(
    lib: Library,
    suite_id: int,
    status: SuiteStatus,
    progress: SuiteProgress,
    error: str | None,
) -> SuiteOutcome:
    kept = f"suite {suite_id} could not be stored as {status.value}: it is marked interrupted"
    with lib.disk_errors(f"{kept} the next time the library is opened with room"):
        set_suite_verdicts(lib, suite_id, verdicts(progress))
        finish_suite(lib, suite_id, status.value, error=error)
    return SuiteOutcome(suite_id, status, progress, error)
