"""library.campaigns on a real SQLite file: a campaign's plan and cells stored whole, its runs
listed once each, runs it had not listed adopted from their tags, skips and passes kept,
claimed by one process at a time, recovered as interrupted when its process died."""

from __future__ import annotations

import pytest

from pairbench.analysis.campaign import LOST
from pairbench.domain import RunSpec, RunStatus
from pairbench.domain.campaign import Cell, RunKey, plan_to_json
from pairbench.engine.campaign_state import adopt_tagged_runs, attempts_of, trailing_failures
from pairbench.library import Library, LibraryError
from pairbench.library.campaigns import (
    claim_campaign,
    create_campaign,
    delete_campaign,
    end_pass,
    ended_passes,
    finish_campaign,
    get_campaign,
    list_campaigns,
    record_campaign_run,
    skip_cell,
    skipped_cells,
)
from pairbench.library.runs import create_run, finish_run, get_run
from pairbench.services.campaign_plan import parse_plan

PLAN = parse_plan(
    'name = "z"\npairs = ["local"]\nrepeats = 2\n[[tests]]\ntool = "ping"\n'
    "params = { count = [1, 2] }\n"
)
CELLS = [
    Cell(i, "local", 0, "ping", "ping", {"count": c}, {"count": c}, "rtt_avg_ms")
    for i, c in enumerate(("1", "2"))
]


def _campaign(lib: Library) -> int:
    return create_campaign(lib, "z", plan_to_json(PLAN), [c.to_json() for c in CELLS], 42)


def _run(lib: Library, key: RunKey, campaign_id: int, status: RunStatus, rtt: float) -> int:
    run_id = create_run(lib, RunSpec("local", "ping", {}, "", key.tags(campaign_id)))
    summary = {"rtt_avg_ms": rtt} if status is RunStatus.COMPLETED else {}
    finish_run(lib, run_id, status, summary=summary, complete=True)
    return run_id


def test_a_campaign_is_stored_whole_and_its_runs_listed_once(library: Library) -> None:
    cid = _campaign(library)
    stored = get_campaign(library, cid)
    assert stored.status == "running" and stored.seed == 42
    assert [Cell.from_json(c) for c in stored.cells] == CELLS
    run_id = _run(library, RunKey(0, 0, 1, 1), cid, RunStatus.COMPLETED, 0.5)
    for _ in range(2):  # recorded twice (a retry of the bookkeeping): listed once
        record_campaign_run(library, cid, (0, 0, 1, 1), run_id, "completed", 0.5, 10.0)
    attempts = attempts_of(library, cid)
    assert [(a.run_id, a.value, a.key) for a in attempts] == [(run_id, 0.5, RunKey(0, 0, 1, 1))]
    skip_cell(library, cid, 1, "preflight failed")
    skip_cell(library, cid, 1, "again")  # the first reason stays
    assert skipped_cells(library, cid) == {1: "preflight failed"}
    end_pass(library, cid, 0, "done", 11.0)
    assert ended_passes(library, cid) == {0: "done"}


def test_runs_the_campaign_had_not_listed_are_adopted_from_their_tags(library: Library) -> None:
    cid = _campaign(library)
    done = _run(library, RunKey(0, 0, 1, 1), cid, RunStatus.COMPLETED, 0.25)
    cut = _run(library, RunKey(1, 0, 1, 1), cid, RunStatus.INTERRUPTED, 0.0)
    other = _run(library, RunKey(0, 0, 1, 1), cid + 1, RunStatus.COMPLETED, 9.0)
    notes = adopt_tagged_runs(library, cid, CELLS)
    assert len(notes) == 2 and f"run {cut}" in notes[1]
    by_run = {a.run_id: a for a in attempts_of(library, cid)}
    assert set(by_run) == {done, cut}  # another campaign's run is not taken
    assert by_run[done].status == "completed" and by_run[done].value == 0.25
    assert by_run[cut].status == LOST  # cut short by the kill: not a failure of the pair
    assert adopt_tagged_runs(library, cid, CELLS) == []  # nothing twice
    assert trailing_failures(attempts_of(library, cid), CELLS, "local") == 0
    assert get_run(library, other).tags["campaign"] == str(cid + 1)


def test_failures_in_a_row_count_back_from_the_latest_run(library: Library) -> None:
    cid = _campaign(library)
    record_campaign_run(library, cid, (0, 0, 1, 1), None, "completed", 1.0, 1.0)
    record_campaign_run(library, cid, (1, 0, 1, 1), None, "failed", None, 2.0, "refused")
    record_campaign_run(library, cid, (1, 0, 1, 2), None, "cancelled", None, 3.0)
    record_campaign_run(library, cid, (0, 0, 2, 1), None, "stalled", None, 4.0, "quiet")
    assert trailing_failures(attempts_of(library, cid), CELLS, "local") == 2


def test_one_process_at_a_time_and_a_dead_owner_means_interrupted(library: Library) -> None:
    cid = _campaign(library)
    with pytest.raises(LibraryError, match="running in another Pairbench process"):
        claim_campaign(library, cid)  # its owner (this process) is alive: not twice
    library.conn.execute(
        "UPDATE campaigns SET owner_pid = 1, owner_token = 'not-init' WHERE id = ?", (cid,)
    )
    stored = get_campaign(library, cid)
    assert (
        stored.status == "interrupted" and stored.error and "stopped unexpectedly" in stored.error
    )
    claim_campaign(library, cid)
    assert get_campaign(library, cid).status == "running"
    with pytest.raises(LibraryError, match="still running"):
        delete_campaign(library, cid, with_runs=True)
    finish_campaign(library, cid, "cancelled", error="cancelled by the user")
    run_id = _run(library, RunKey(0, 0, 1, 1), cid, RunStatus.COMPLETED, 1.0)
    record_campaign_run(library, cid, (0, 0, 1, 1), run_id, "completed", 1.0, 1.0)
    assert delete_campaign(library, cid, with_runs=True) == [run_id]
    assert list_campaigns(library) == []
    with pytest.raises(LibraryError, match="no run"):
        get_run(library, run_id)


def test_a_discard_names_its_own_run_even_after_an_earlier_run_was_deleted(
    library: Library,
) -> None:
    from dataclasses import replace

    from pairbench.services.campaign_json import cells_json
    from pairbench.services.campaigns import show_campaign

    plan = replace(PLAN, outliers="mad:3")
    cid = create_campaign(library, "z", plan_to_json(plan), [c.to_json() for c in CELLS], 1)
    values = [100.0, 101.0, 99.0, 100.5, 400.0]
    run_ids: list[int | None] = []
    for k, value in enumerate(values):
        run_id = _run(library, RunKey(0, 0, k + 1, 1), cid, RunStatus.COMPLETED, value)
        record_campaign_run(library, cid, (0, 0, k + 1, 1), run_id, "completed", value, float(k))
        run_ids.append(run_id)
    library.conn.execute("DELETE FROM runs WHERE id = ?", (run_ids[0],))  # run_id → NULL
    [cell, _] = cells_json(show_campaign(library, cid))
    assert cell["n"] == len(values)  # the deleted run's figure still counts
    assert [(d["run_id"], d["value"]) for d in cell["discarded"]] == [(run_ids[-1], 400.0)]
    assert cell["runs"] == run_ids[1:]
