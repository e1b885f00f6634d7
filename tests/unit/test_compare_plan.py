"""``plan_compare``: runs picked in several places (pinned, selected, either source) are
compared once each; a team copy of a local run counts as the local run; deleted runs are
listed, not loaded."""

from __future__ import annotations

import time
import uuid

from pairbench.domain import RunSpec, RunStatus
from pairbench.library import Library
from pairbench.library.runs import create_run, delete_runs, finish_run
from pairbench.library.team import local
from pairbench.services.compare_refs import TeamRef, plan_compare


def _run(lib: Library) -> int:
    run_id = create_run(lib, RunSpec("local", "iperf3", {}), started_at=time.time())
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={}, complete=True)
    return run_id


def test_each_run_once_in_the_order_first_picked(library: Library) -> None:
    a, b = _run(library), _run(library)
    t1, t2 = str(uuid.uuid4()), str(uuid.uuid4())
    plan = plan_compare(library, [b, TeamRef(t1), a, b, TeamRef(t1.upper()), TeamRef(t2)])
    assert plan.refs == [b, TeamRef(t1), a, TeamRef(t2)]
    assert plan.missing == [] and plan.merged == {}


def test_a_team_copy_of_a_local_run_is_the_local_run(library: Library) -> None:
    a, b = _run(library), _run(library)
    copy = local.run_uuid(library, b)
    other = str(uuid.uuid4())
    plan = plan_compare(library, [a, TeamRef(copy.upper()), TeamRef(other), b])
    assert plan.refs == [a, b, TeamRef(other)]  # b in its team copy's place
    assert plan.merged == {copy.upper(): b}


def test_deleted_runs_are_listed_and_left_out(library: Library) -> None:
    a, b, c = _run(library), _run(library), _run(library)
    delete_runs(library, [b])
    plan = plan_compare(library, [a, b, c, b])
    assert plan.refs == [a, c] and plan.missing == [b]


def test_without_team_runs_nothing_is_written(library: Library) -> None:
    a, b = _run(library), _run(library)
    query = "SELECT id, uuid FROM runs WHERE id IN (?, ?) ORDER BY id"
    before = library.conn.execute(query, (a, b)).fetchall()
    changes = library.conn.total_changes
    plan_compare(library, [a, b])
    assert library.conn.total_changes == changes
    assert library.conn.execute(query, (a, b)).fetchall() == before  # UUIDs from creation
