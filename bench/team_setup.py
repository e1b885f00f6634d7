"""The PostgreSQL server the team library's benchmarks run against (``lab.team_server``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bench.common import NotRunnable
from pairbench.lab import team_server
from pairbench.lab.team_server import TeamServer
from pairbench.library.team.store import TeamStore

ROLE = "alice"  # a writer: it creates the tables, so it may also empty them between rounds


def check() -> None:
    """``NotRunnable`` with the reason when this machine cannot run the team benchmarks."""
    reason = team_server.missing()
    if reason is not None:
        raise NotRunnable(reason)
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise NotRunnable("psycopg is not installed (pip install -e '.[dev]')") from exc


@contextmanager
def running() -> Iterator[TeamServer]:
    """A fresh server in a temporary directory, removed afterwards (``NotRunnable`` first)."""
    check()
    with TeamServer.create() as server:
        yield server


def store(server: TeamServer) -> TeamStore:
    """The writer's team library on ``server``, its schema in place (over TCP, as users)."""
    team = TeamStore.connect(server.url(ROLE), password=server.password(ROLE))
    team.ensure_schema()
    return team


def connect(server: TeamServer) -> Any:
    """A bare psycopg connection as the same role, the same way (autocommit)."""
    import psycopg

    return psycopg.connect(server.url(ROLE), password=server.password(ROLE), autocommit=True)
