"""This library's side of publishing suites and campaigns, without a server: the triggers
queue one that ends (or changes once ended) while automatic publishing is on, one published
and changed since waits again, a running one never waits, UUIDs are kept once given, and a
deleted entity leaves nothing behind."""

from __future__ import annotations

import pytest

from pairbench.domain import RunSpec
from pairbench.library import Library, LibraryError
from pairbench.library.campaigns import claim_campaign, create_campaign, finish_campaign
from pairbench.library.runs import create_run
from pairbench.library.suites import create_suite, delete_suite, finish_suite, record_job
from pairbench.library.team import entity_local as local
from pairbench.library.team import local as runs_local
from pairbench.services.team_entities import blocked, parse_ref, prepare


def _suite(lib: Library, *, finish: bool = True) -> int:
    suite_id = create_suite(lib, "storage", "local", {"test": "iops"})
    if finish:
        finish_suite(lib, suite_id, "completed")
    return suite_id


def _campaign(lib: Library) -> int:
    return create_campaign(lib, "c", {}, [], 1)


def _queued(lib: Library) -> list[tuple[str, int]]:
    return [(q.kind, q.entity_id) for q in local.entity_outbox(lib)]


def test_with_automatic_publishing_ended_entities_are_queued(library: Library) -> None:
    before = _suite(library)  # ended before automatic publishing was on: not queued
    runs_local.set_setting(library, runs_local.AUTO, "on")
    running = _suite(library, finish=False)
    cid = _campaign(library)
    assert _queued(library) == []
    done = _suite(library)
    finish_campaign(library, cid, "failed", error="x")
    finish_suite(library, running, "cancelled")
    # Suites first (a campaign refers to them), each once.
    queued = _queued(library)
    assert sorted(queued[:2]) == [("suite", running), ("suite", done)]
    assert queued[2:] == [("campaign", cid)]
    assert ("suite", before) not in _queued(library)
    assert local.queue_unpublished_entities(library) == 1  # `team push --all`: the one left
    delete_suite(library, done, with_runs=False)
    assert ("suite", done) not in _queued(library)


def test_a_published_entity_waits_again_once_changed_and_not_while_running(
    library: Library,
) -> None:
    cid = _campaign(library)
    finish_campaign(library, cid, "completed")
    key = local.entity_uuid(library, "campaign", cid)
    assert local.entity_uuid(library, "campaign", cid) == key  # kept
    updated = local.status_of(library, "campaign", cid)
    assert updated is not None
    local.queue_entities(library, "campaign", [cid])
    local.mark_entity_published(library, "campaign", cid, key, "srv", updated[1])
    assert local.is_current(library, "campaign", cid)
    assert local.waiting_count(library, "campaign") == 0
    assert local.queue_entities(library, "campaign", [cid]) == []  # as it stands: not again
    claim_campaign(library, cid)  # resumed: it runs, so it does not wait
    assert local.waiting_count(library, "campaign") == 0
    with pytest.raises(LibraryError, match="still running"):
        local.queue_entities(library, "campaign", [cid])
    finish_campaign(library, cid, "completed")
    assert not local.is_current(library, "campaign", cid)
    assert local.waiting_count(library, "campaign") == 1
    assert local.queue_changed(library) == 1
    assert _queued(library) == [("campaign", cid)]
    local.forget_entities(library)  # another server
    assert local.published_uuid(library, "campaign", cid) is None


def test_an_entity_waits_for_its_runs_and_queues_them(library: Library) -> None:
    suite_id = create_suite(library, "storage", "local", {"test": "iops"})
    run_id = create_run(library, RunSpec("local", "fio"))
    record_job(library, suite_id, (0, 1, 0), run_id, "running", {})
    finish_suite(library, suite_id, "interrupted", error="killed")
    prepare(library, [("suite", suite_id)], every=False)
    assert blocked(library, "suite", suite_id) == f"its run {run_id} is still running"
    assert runs_local.outbox(library) == []  # a running run is not queued
    library.conn.execute("UPDATE runs SET status = 'interrupted' WHERE id = ?", (run_id,))
    prepare(library, [], every=False)
    assert [q.run_id for q in runs_local.outbox(library)] == [run_id]
    assert "not published yet" in blocked(library, "suite", suite_id)
    with pytest.raises(LibraryError, match="no suite with id 99"):
        prepare(library, [("suite", 99)], every=False)


def test_push_ids_name_runs_suites_and_campaigns() -> None:
    assert parse_ref("12") == 12
    assert parse_ref("suite:3") == ("suite", 3)
    assert parse_ref("campaign:2") == ("campaign", 2)
    for bad in ("run:1", "suite:x", "x", "suite:"):
        with pytest.raises(ValueError):
            parse_ref(bad)
