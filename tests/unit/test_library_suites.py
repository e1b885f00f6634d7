"""library.suites on a real SQLite file: a suite and its jobs stored, replaced on a re-run,
claimed by one process at a time, recovered as interrupted when its process died, deleted
with or without its runs; services.storage refuses bad requests before touching anything."""

from __future__ import annotations

import dataclasses

import pytest

from pairbench.domain import RunSpec, RunStatus
from pairbench.domain.storage import JobKey, StorageTest, SuiteParams
from pairbench.library import Library, LibraryError
from pairbench.library.runs import create_run, finish_run, get_run
from pairbench.library.suites import (
    claim_suite,
    create_suite,
    delete_suite,
    finish_suite,
    get_suite,
    list_suites,
    record_job,
    set_suite_verdicts,
    suite_jobs,
)
from pairbench.services.storage import SuiteRequest, check_request, show_suite
from pairbench.services.storage_json import suite_json

PARAMS = SuiteParams(StorageTest.THROUGHPUT, "/dev/loop7", size=2**26, precondition_passes=1)


def _run(lib: Library) -> int:
    run_id = create_run(lib, RunSpec("local", "fio", {"rw": "write"}))
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={"write_iops": 1.0}, complete=True)
    return run_id


def test_a_suite_and_its_jobs_are_stored_and_replaced(library: Library) -> None:
    suite_id = create_suite(library, "storage", "lab-server", PARAMS.to_json(), label="nvme")
    first, again = _run(library), _run(library)
    record_job(library, suite_id, (0, 1, 1), first, "interrupted", {})
    record_job(library, suite_id, (-1, 1, 0), _run(library), "completed", {"write_iops": 5})
    record_job(library, suite_id, (0, 1, 1), again, "completed", {"nan": float("nan"), "x": 2})
    jobs = suite_jobs(library, suite_id)
    assert [(j.stage, j.round, j.job) for j in jobs] == [(-1, 1, 0), (0, 1, 1)]
    assert jobs[1].run_id == again and jobs[1].status == "completed"
    assert jobs[1].figures == {"x": 2.0}  # not-a-number figures are not kept
    suite = get_suite(library, suite_id)
    assert suite.status == "running" and suite.label == "nvme" and suite.host == "lab-server"
    assert SuiteParams.from_json(suite.params) == PARAMS
    set_suite_verdicts(library, suite_id, {"throughput 1m": {"state": "pending"}})
    finish_suite(library, suite_id, "cancelled", error="cancelled")
    ended = get_suite(library, suite_id)
    assert ended.status == "cancelled" and ended.ended_at is not None
    assert ended.verdicts == {"throughput 1m": {"state": "pending"}}
    assert [s.id for s in list_suites(library, "storage")] == [suite_id]
    assert list_suites(library, "campaign") == []


def test_show_and_its_json(library: Library) -> None:
    suite_id = create_suite(library, "storage", "local", PARAMS.to_json())
    record_job(library, suite_id, (-1, 1, 0), _run(library), "completed", {"write_iops": 5.0})
    for r in range(1, 3):
        record_job(library, suite_id, (0, r, 0), _run(library), "completed", {"read_iops": 1.0})
        record_job(library, suite_id, (0, r, 1), _run(library), "completed", {"write_iops": 1.0})
    shown = show_suite(library, suite_id)
    assert shown.progress.next_job == JobKey(0, 3, 0)
    data = suite_json(shown)
    assert [(j["stage"], j["round"], j["mix"]) for j in data["jobs"]][:3] == [
        ("precondition", 1, "0/100"),
        ("throughput 1m", 1, "100/0"),
        ("throughput 1m", 1, "0/100"),
    ]
    assert data["stages"][0]["rounds"] == 2 and data["stages"][0]["state"] == "pending"
    assert set(data["tables"]) == {"throughput 1m"}


def test_one_process_at_a_time_and_a_dead_owner_means_interrupted(library: Library) -> None:
    suite_id = create_suite(library, "storage", "local", PARAMS.to_json())
    with pytest.raises(LibraryError, match="running in another Pairbench process"):
        claim_suite(library, suite_id)  # its owner (this process) is alive
    library.conn.execute(
        "UPDATE suites SET owner_pid = 999999999, owner_token = 'gone' WHERE id = ?", (suite_id,)
    )
    suite = get_suite(library, suite_id)
    assert suite.status == "interrupted" and "stopped unexpectedly" in (suite.error or "")
    claim_suite(library, suite_id)
    claimed = get_suite(library, suite_id)
    assert claimed.status == "running" and claimed.error is None and claimed.ended_at is None


def test_delete_keeps_or_removes_the_runs(library: Library) -> None:
    keep = create_suite(library, "storage", "local", PARAMS.to_json())
    drop = create_suite(library, "storage", "local", PARAMS.to_json())
    kept_run, dropped_run = _run(library), _run(library)
    record_job(library, keep, (0, 1, 0), kept_run, "completed", {})
    record_job(library, drop, (0, 1, 0), dropped_run, "completed", {})
    with pytest.raises(LibraryError, match="still running"):
        delete_suite(library, keep, with_runs=False)
    finish_suite(library, keep, "completed")
    finish_suite(library, drop, "failed", error="x")
    assert delete_suite(library, keep, with_runs=False) == []
    assert get_run(library, kept_run).id == kept_run
    assert delete_suite(library, drop, with_runs=True) == [dropped_run]
    with pytest.raises(LibraryError):
        get_run(library, dropped_run)
    assert list_suites(library) == []
    with pytest.raises(LibraryError, match="no suite with id"):
        get_suite(library, keep)


REQUEST = SuiteRequest("local", StorageTest.IOPS, "/srv/bench", size=2**30)


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"target": "/dev/nvme1n1"}, "DESTROYS its data"),
        ({"target": "/dev/nvme1n1", "confirm": "/dev/nvme0n1"}, "--confirm /dev/nvme1n1"),
        ({"size": 0}, "needs the test file's size"),
        ({"target": "srv/bench"}, "absolute path"),
        ({"target": "/srv/../etc"}, "normalised"),
        ({"target": "/srv/a b; rm -rf /"}, "absolute path"),
        ({"target": "/"}, "a device (/dev/...) or a directory"),
        ({"threads": 0}, "threads"),
        ({"iodepth": 5000}, "iodepth"),
        ({"round_seconds": 0}, "round seconds"),
        ({"max_rounds": 4}, "max rounds"),
        ({"precondition_passes": 6}, "precondition passes"),
    ],
)
def test_bad_requests_are_refused_with_a_clear_reason(
    changes: dict[str, object], needle: str
) -> None:
    with pytest.raises(ValueError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        check_request(dataclasses.replace(REQUEST, **changes))


def test_a_good_request_passes() -> None:
    check_request(REQUEST)
    check_request(dataclasses.replace(REQUEST, target="/dev/loop3", confirm="/dev/loop3", size=0))
