"""services.storage_watch: a job's kept figures, the convergence lines (a point per complete
round per block size of the tracked mix), the suites to resume and the ETA."""

from __future__ import annotations

from pairbench.domain import Run, RunSpec, RunStatus
from pairbench.domain.storage import JobKey, StorageTest, SuiteParams, stages_of
from pairbench.library import Library
from pairbench.library.suites import create_suite, finish_suite, record_job
from pairbench.services.storage_watch import (
    convergence_lines,
    eta_seconds,
    figure_family,
    job_figures,
    resumable_suites,
    suite_state,
)

SPEC = RunSpec("local", "fio", {})


def _run(status: RunStatus, summary: dict[str, float]) -> Run:
    return Run(1, SPEC, status, 0.0, 1.0, summary=summary)


def test_job_figures_keep_the_suite_figures_of_a_completed_measuring_run() -> None:
    summary = {"write_iops": 10.0, "write_bytes_per_s": 5.0, "write_lat_p50_us": 3.0}
    assert job_figures(_run(RunStatus.COMPLETED, summary)) == {
        "write_iops": 10.0,
        "write_bytes_per_s": 5.0,
    }
    assert job_figures(_run(RunStatus.CANCELLED, summary)) is None
    assert job_figures(_run(RunStatus.COMPLETED, {"write_iops": 0.0})) is None


def test_convergence_lines_have_a_point_per_complete_round() -> None:
    params = SuiteParams(StorageTest.LATENCY, "/dev/x")
    stage = stages_of(StorageTest.LATENCY)[0]
    done: dict[JobKey, dict[str, float]] = {}
    # Rounds 1 and 2 complete; round 3 lacks its last job.
    for r in (1, 2, 3):
        for j in range(len(stage.jobs)):
            if r == 3 and j == len(stage.jobs) - 1:
                continue
            done[JobKey(0, r, j)] = {"write_lat_mean_us": 100.0 * r + j}
    lines = convergence_lines(params, done)
    tracked = [(j, job) for j, job in enumerate(stage.jobs) if job.read_pct == 0]
    assert [line.bs for line in lines] == [job.bs for _j, job in tracked]
    for line, (j, _job) in zip(lines, tracked, strict=True):
        assert line.rounds == (1, 2)
        assert line.values == (100.0 + j, 200.0 + j)
        assert line.metric == "write_lat_mean_us"


def test_throughput_lines_come_from_each_stage() -> None:
    params = SuiteParams(StorageTest.THROUGHPUT, "/dev/x")
    done = {JobKey(0, 1, 0): {}, JobKey(0, 1, 1): {"write_bytes_per_s": 7.0}}
    lines = convergence_lines(params, done)
    assert [(line.stage, line.bs, line.rounds, line.values) for line in lines] == [
        (0, "1m", (1,), (7.0,)),
        (1, "128k", (), ()),
    ]
    assert figure_family(StorageTest.THROUGHPUT) == "bytes_per_s"
    assert figure_family(StorageTest.IOPS) == "iops"


def test_resumable_suites_leave_out_running_and_completed(library: Library) -> None:
    params = SuiteParams(StorageTest.THROUGHPUT, "/mnt/d", size=2**24).to_json()
    ids = {status: create_suite(library, "storage", "local", params) for status in
           ("completed", "cancelled", "interrupted", "failed", "running")}  # fmt: skip
    for status, suite_id in ids.items():
        if status != "running":
            finish_suite(library, suite_id, status, error=f"why {status}")
    rows = resumable_suites(library)
    assert [row.id for row in rows] == [ids["failed"], ids["interrupted"], ids["cancelled"]]
    interrupted = next(row for row in rows if row.interrupted)
    assert interrupted.id == ids["interrupted"] and interrupted.error == "why interrupted"
    assert interrupted.target == "/mnt/d" and interrupted.test == "throughput"


def test_suite_state_has_the_completed_jobs(library: Library) -> None:
    params = SuiteParams(StorageTest.THROUGHPUT, "/mnt/d", size=2**24)
    suite_id = create_suite(library, "storage", "local", params.to_json())
    record_job(library, suite_id, (0, 1, 0), None, "completed", {"read_iops": 2.0})
    record_job(library, suite_id, (0, 1, 1), None, "cancelled", {})
    state = suite_state(library, suite_id)
    assert state.params == params
    assert state.done == {JobKey(0, 1, 0): {"read_iops": 2.0}}


def test_eta_counts_jobs_left_rounds_and_overhead() -> None:
    # 6 jobs left of 2 s rounds with 0.5 s overhead each, 1 s into the current job.
    assert eta_seconds(6, 2.0, 0.5, 1.0) == 6 * 2.5 - 1.0
    assert eta_seconds(0, 2.0, 0.5, 1.0) == 0.0
    assert eta_seconds(1, 1.0, -3.0, 5.0) == 0.0
