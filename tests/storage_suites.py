"""Storage suites for report tests, stored through the library API (no fio needed): every
job a finished fio run whose figures come from a function of (stage, round, job)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pairbench.domain import RunSpec, RunStatus
from pairbench.domain.storage import Job, StorageTest, SuiteParams, block_size_bytes, stages_of
from pairbench.library import Library
from pairbench.library.runs import create_run, finish_run
from pairbench.library.suites import create_suite, finish_suite, record_job, set_suite_facts

Figures = Callable[[int, int, Job], Mapping[str, float]]


def params_of(test: StorageTest, **changes: Any) -> SuiteParams:
    """A small suite's parameters (one precondition pass, 1 s rounds, 8 rounds at most)."""
    values: dict[str, Any] = dict(
        test=test,
        target="/var/tmp/pb",
        size=2**24,
        threads=2,
        iodepth=8,
        round_seconds=1,
        max_rounds=8,
        precondition_passes=1,
    )
    values.update(changes)
    return SuiteParams(**values)


def iops_figure(bs: str, read_pct: int, round_no: int, factor: float = 1.0) -> dict[str, float]:
    """IOPS falling with block size, writes dropping 10 % from round 1 to 3 then flat."""
    total = factor * 4_000_000 / (block_size_bytes(bs) / 512) ** 0.5
    total *= (1.0 + 0.05 * max(0, 3 - round_no)) * (1.0 + read_pct / 100)
    reads = total * read_pct / 100
    writes = total - reads
    out = {"read_iops": reads, "write_iops": writes}
    out["read_bytes_per_s"] = reads * block_size_bytes(bs)
    out["write_bytes_per_s"] = writes * block_size_bytes(bs)
    if reads:
        out["read_lat_mean_us"] = 50.0 + block_size_bytes(bs) / 1024
    if writes:
        out["write_lat_mean_us"] = 80.0 + block_size_bytes(bs) / 512 + max(0, 3 - round_no)
    return {k: v for k, v in out.items() if v}


def default_figures(factor: float = 1.0) -> Figures:
    def figures(stage: int, round_no: int, job: Job) -> Mapping[str, float]:
        return iops_figure(job.bs, job.read_pct, round_no, factor)

    return figures


def store_suite(
    lib: Library,
    params: SuiteParams,
    rounds: int,
    *,
    figures: Figures | None = None,
    host: str = "lab-server",
    label: str = "",
    facts: Mapping[str, Any] | None = None,
    status: str = "completed",
) -> int:
    """A suite with its preconditioning and ``rounds`` full rounds of every stage stored."""
    figures = figures or default_figures()
    suite_id = create_suite(lib, "storage", host, params.to_json(), label=label)
    set_suite_facts(lib, suite_id, dict(facts or {"kind": "file", "direct": True}))

    def job_run(job: Job, values: Mapping[str, float]) -> int:
        run_id = create_run(lib, RunSpec("local", "fio", {"rw": job.rw, "bs": job.bs}))
        finish_run(lib, run_id, RunStatus.COMPLETED, summary=dict(values), complete=True)
        return run_id

    for p in range(1, params.precondition_passes + 1):
        pre = {"write_iops": 100.0, "write_bytes_per_s": 100.0 * 2**17}
        record_job(lib, suite_id, (-1, p, 0), job_run(Job("128k", 0, True), pre), "completed", pre)
    for s, stage in enumerate(stages_of(params.test)):
        for r in range(1, rounds + 1):
            for j, job in enumerate(stage.jobs):
                values = dict(figures(s, r, job))
                record_job(lib, suite_id, (s, r, j), job_run(job, values), "completed", values)
    finish_suite(lib, suite_id, status)
    return suite_id
