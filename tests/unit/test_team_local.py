"""This library's side of a team library, without a server: the outbox the triggers fill
while automatic publishing is on (a run that finishes, one imported finished), runs queued by
hand, each run's UUID kept once given, and the server's address kept without its password."""

from __future__ import annotations

import pytest

from pairbench.domain import RunSpec, RunStatus
from pairbench.library import Library, LibraryError
from pairbench.library.runs import create_run, delete_run, finish_run
from pairbench.library.team import local
from pairbench.services.team import TeamSetupError, configured_url, split_url


def _finished(lib: Library, status: RunStatus = RunStatus.COMPLETED) -> int:
    run_id = create_run(lib, RunSpec("local", "ping"))
    finish_run(lib, run_id, status, summary={"rtt_avg_ms": 1.0}, complete=True)
    return run_id


def test_with_automatic_publishing_every_run_that_ends_is_queued(library: Library) -> None:
    before = _finished(library)  # ended before automatic publishing was on: not queued
    local.set_setting(library, local.AUTO, "on")
    running = create_run(library, RunSpec("local", "ping"))
    assert [q.run_id for q in local.outbox(library)] == []  # a running run waits
    done = _finished(library)
    interrupted = _finished(library, RunStatus.INTERRUPTED)  # stored as what it was
    finish_run(library, running, RunStatus.FAILED, summary={}, complete=False, error="refused")
    assert sorted(q.run_id for q in local.outbox(library)) == sorted([done, interrupted, running])
    local.set_setting(library, local.AUTO, "off")
    late = _finished(library)
    assert len(local.outbox(library)) == 3
    assert before not in {q.run_id for q in local.outbox(library)}
    assert local.queue_unpublished(library) == [before, late]  # the rest is queued already


def test_runs_queued_by_hand_published_once_and_kept_in_the_outbox_on_failure(
    library: Library,
) -> None:
    a, b = _finished(library), _finished(library)
    running = create_run(library, RunSpec("local", "ping"))
    with pytest.raises(LibraryError, match="still running"):
        local.queue_runs(library, [a, running])
    with pytest.raises(LibraryError, match="no run with id 999"):
        local.queue_runs(library, [999])
    assert local.queue_runs(library, [a, b, a]) == [a, b]
    assert local.queue_runs(library, [a]) == []  # queued already
    local.mark_failed(library, a, "server gone")
    [qa, qb] = local.outbox(library)
    assert (qa.run_id, qa.tries, qa.last_error) == (a, 1, "server gone") and qb.tries == 0
    uuid = local.run_uuid(library, a)
    assert local.run_uuid(library, a) == uuid and local.run_uuid(library, b) != uuid
    local.mark_published(library, a, uuid, "postgresql://alice@db/pb")
    assert [q.run_id for q in local.outbox(library)] == [b]
    assert local.is_published(library, a) and local.published_count(library) == 1
    assert local.queue_runs(library, [a]) == []  # published: not queued again
    delete_run(library, b)  # a deleted run leaves the outbox with it
    assert local.outbox(library) == []


@pytest.mark.parametrize(
    ("url", "clean", "password"),
    [
        (
            "postgresql://alice@db.example/pairbench",
            "postgresql://alice@db.example/pairbench",
            None,
        ),
        (
            "postgresql://alice:s3cr%40t@db.example:5433/pairbench?sslmode=require",
            "postgresql://alice@db.example:5433/pairbench?sslmode=require",
            "s3cr@t",
        ),
        ("postgres://bob:x@[::1]:5432/team", "postgres://bob@[::1]:5432/team", "x"),
    ],
)
def test_the_servers_address_is_kept_without_its_password(
    url: str, clean: str, password: str | None
) -> None:
    assert split_url(url) == (clean, password)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("mysql://alice@db/pairbench", "a PostgreSQL address"),
        ("postgresql://alice@db.example", "names no database"),
        ("host=db user=alice", "a PostgreSQL address"),
    ],
)
def test_an_address_that_is_not_a_postgresql_url_is_refused(url: str, words: str) -> None:
    with pytest.raises(TeamSetupError, match=words):
        split_url(url)


def test_a_library_without_a_team_says_how_to_connect_one(library: Library) -> None:
    with pytest.raises(TeamSetupError, match="team connect"):
        configured_url(library)
