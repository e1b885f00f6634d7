"""storage_suite: the storage suite's orchestration overhead and its resume cost, with real fio.

Throughput suites (two stages, 1 s rounds, 5 rounds each unless steady later, one
preconditioning pass before each stage, a 32 MiB test file) run on ``local`` through
``services.storage``, in process. The headline is the suite's wall time ÷ the sum of its
jobs' runtimes (each job's stored run, from its start to its end: fio's own start-up and
exit included, which is about 0.3 s per fio process whatever the orchestrator), so what
remains above 1 is what the suite adds between jobs: storing jobs, steady-state checks,
picking the next job, the purge before the 128 KiB stage (a new test file).
For information: the jobs' runtimes ÷ their fio measuring time (what a fio process costs
beyond ``--runtime``), and the resume cost — a suite cancelled after its third job, then
resumed: seconds from ``resume_suite`` to its first job, against a fresh start's seconds
from ``start_suite`` to its first job (both connect, check the target and probe fio).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import tempfile
import time
from pathlib import Path

from bench.common import Out, Verdict, fmt, median, spread
from pairbench.domain import Run
from pairbench.domain.storage import JobKey, StorageTest, SuiteParams
from pairbench.engine.storage_suite import job_params
from pairbench.library import Library
from pairbench.library.suites import get_suite, suite_jobs
from pairbench.services.runs import show_run
from pairbench.services.storage import SuiteRequest, resume_suite, start_suite
from pairbench.tools.base import Capabilities, CommandContext
from pairbench.tools.fio import TOOL

NAME = "storage_suite"
TARGET_RATIO = 1.10
ROUND_S = 1


class _Clock:
    """Notes when the first job starts; cancels after ``cancel_after`` finished jobs."""

    def __init__(self, cancel: asyncio.Event | None = None, cancel_after: int = 0) -> None:
        self.first_job: float | None = None
        self.finished = 0
        self._cancel = cancel
        self._after = cancel_after

    def on_job_started(self, key: JobKey, name: str, done: int, planned: int) -> None:
        if self.first_job is None:
            self.first_job = time.perf_counter()

    def on_job_finished(self, key: JobKey, run: Run) -> None:
        self.finished += 1
        if self._cancel is not None and self.finished >= self._after:
            self._cancel.set()

    def on_round(self, stage: object) -> None:
        return None


def _request(directory: Path) -> SuiteRequest:
    return SuiteRequest(
        host="local",
        test=StorageTest.THROUGHPUT,
        target=str(directory),
        size=32 * 2**20,
        threads=1,
        iodepth=4,
        round_seconds=ROUND_S,
        max_rounds=8,
        precondition_passes=1,
    )


def _suite_figures(lib: Library, suite_id: int) -> tuple[float, float, int]:
    """(wall seconds, sum of the jobs' run durations, jobs)."""
    suite = get_suite(lib, suite_id)
    durations = []
    for job in suite_jobs(lib, suite_id):
        if job.run_id is not None:
            run = show_run(lib, job.run_id).run
            durations.append((run.ended_at or run.started_at) - run.started_at)
    wall = (suite.ended_at or suite.updated_at) - suite.created_at
    return wall, sum(durations), len(durations)


def _full_suite(lib: Library, directory: Path) -> tuple[float, float, int, float]:
    clock = _Clock()
    start = time.perf_counter()
    outcome = asyncio.run(start_suite(lib, _request(directory), observer=clock))
    to_first = (clock.first_job or start) - start
    wall, jobs, count = _suite_figures(lib, outcome.suite_id)
    return wall, jobs, count, to_first


def _resume_cost(lib: Library, directory: Path) -> float:
    cancel = asyncio.Event()
    outcome = asyncio.run(
        start_suite(lib, _request(directory), observer=_Clock(cancel, 3), cancel=cancel)
    )
    clock = _Clock()
    start = time.perf_counter()
    asyncio.run(resume_suite(lib, outcome.suite_id, observer=clock))
    return (clock.first_job or start) - start


def _bare_fio(directory: Path, repeats: int) -> list[float]:
    """Seconds of the suite's 128 KiB write job as a bare fio command (no Pairbench)."""
    req = _request(directory)
    params = SuiteParams(req.test, req.target, req.size, 1, req.iodepth, ROUND_S)
    resolved = TOOL.resolve(job_params(params, 0, JobKey(1, 1, 1), str(directory / "bare.dat")))
    argv = TOOL.commands(
        resolved, Capabilities("fio"), CommandContext("", 0, str(directory))
    ).client
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True, timeout=60)
        times.append(time.perf_counter() - start)
    return times


def run(quick: bool, out: Out) -> Verdict:
    repeats = 1 if quick else 3
    parent = "/var/tmp" if os.path.isdir("/var/tmp") else None  # O_DIRECT: not tmpfs
    walls: list[float] = []
    ratios: list[float] = []
    per_job: list[float] = []
    to_first: list[float] = []
    resumes: list[float] = []
    with tempfile.TemporaryDirectory(prefix="pb-bench-storage-", dir=parent) as tmp:
        directory = Path(tmp) / "target"
        directory.mkdir()
        with Library.open(Path(tmp) / "library.sqlite") as lib:
            for _ in range(repeats):
                wall, jobs, count, first = _full_suite(lib, directory)
                walls.append(wall)
                ratios.append(wall / jobs)
                per_job.append(jobs / count)
                to_first.append(first)
                resumes.append(_resume_cost(lib, directory))
            bare = _bare_fio(directory, 3)
    ratio = median(ratios)
    out(f"  suite wall time: {spread(walls, 1.0, 's')}")
    out(f"  wall / sum of job runtimes: {', '.join(fmt(r) for r in ratios)}")
    out(
        f"  one job's run ({ROUND_S} s of fio measuring): {spread(per_job, 1.0, 's')} "
        f"({fmt(median(per_job) / ROUND_S)}x its --runtime: fio's own start-up and exit)"
    )
    out(
        f"  the same job as a bare fio command: {spread(bare, 1.0, 's')}; Pairbench adds "
        f"{fmt((median(per_job) - median(bare)) * 1e3)} ms per job inside its run (host lock, "
        "leftover check, work directory, parsing, storing)"
    )
    out(f"  fresh start to first job: {spread(to_first, 1e3, 'ms')}")
    out(
        f"  resume to first job: {spread(resumes, 1e3, 'ms')} "
        f"({fmt(median(resumes) / median(to_first))}x a fresh start)"
    )
    return Verdict(
        NAME,
        ratio,
        TARGET_RATIO,
        "the sum of its jobs' runtimes",
        info=f"resume cost {fmt(median(resumes) * 1e3)} ms",
    )
