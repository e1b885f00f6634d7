"""Storage suites and campaigns made in a local library through the library's own API (no
lab, no tools), as the engine stores them, for the team library's entity tests."""

from __future__ import annotations

from pairbench.domain import RunSpec, RunStatus
from pairbench.domain.campaign import Cell, plan_to_json
from pairbench.domain.storage import StorageTest, SuiteParams
from pairbench.library import Library
from pairbench.library.campaigns import (
    create_campaign,
    end_pass,
    finish_campaign,
    record_campaign_run,
    skip_cell,
)
from pairbench.library.runs import create_run, finish_run
from pairbench.library.suites import create_suite, finish_suite, record_job, set_suite_verdicts
from pairbench.services.campaign_plan import parse_plan

PARAMS = SuiteParams(StorageTest.IOPS, "/dev/loop7", size=2**26, precondition_passes=1)
PLAN = parse_plan(
    'name = "z"\npairs = ["local"]\nrepeats = 2\n[[tests]]\ntool = "ping"\n'
    "params = { count = [1, 2, 3] }\n"
)
CELLS = [
    Cell(i, "local", 0, "ping", "ping", {"count": c}, {"count": c}, "rtt_avg_ms")
    for i, c in enumerate(("1", "2", "3"))
]


def finished_run(lib: Library, tool: str = "ping", value: float = 1.0) -> int:
    run_id = create_run(lib, RunSpec("local", tool, {"count": "1"}))
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={"rtt_avg_ms": value}, complete=True)
    return run_id


def make_suite(lib: Library, *, label: str = "", jobs: int = 2) -> tuple[int, list[int]]:
    """A completed storage suite of ``jobs`` jobs, each a finished run; (its id, the runs)."""
    suite_id = create_suite(lib, "storage", "local", PARAMS.to_json(), label=label)
    runs = []
    for job in range(jobs):
        run_id = finished_run(lib, "fio", 100.0 + job)
        record_job(lib, suite_id, (0, 1, job), run_id, "completed", {"read_iops": 1000.0 + job})
        runs.append(run_id)
    set_suite_verdicts(lib, suite_id, {"iops": {"state": "steady", "round": 1}})
    finish_suite(lib, suite_id, "completed")
    return suite_id, runs


def make_campaign(
    lib: Library, *, name: str = "study", label: str = "", suite_id: int | None = None
) -> tuple[int, list[int]]:
    """A completed campaign: two cells ran a run each (one more run for cell 0), cell 2
    skipped or, with ``suite_id``, ran that suite; its pass ended. (Its id, its runs.)"""
    cid = create_campaign(
        lib, name, plan_to_json(PLAN), [c.to_json() for c in CELLS], 7, label=label
    )
    runs = []
    for at, cell in enumerate((0, 1, 0)):
        value = 0.25 * (at + 1)
        run_id = finished_run(lib, value=value)
        where = (cell, 0, 1 + at // 2, 1)
        record_campaign_run(lib, cid, where, run_id, "completed", value, 100.0 + at)
        runs.append(run_id)
    if suite_id is None:
        skip_cell(lib, cid, 2, "preflight: ping refused")
    else:
        record_campaign_run(
            lib, cid, (2, 0, 1, 1), None, "completed", 5.0, 110.0, suite_id=suite_id
        )
    end_pass(lib, cid, 0, "done", 120.0)
    finish_campaign(lib, cid, "completed")
    return cid, runs
