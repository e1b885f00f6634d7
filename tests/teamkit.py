"""The team library's tests' PostgreSQL server: ``lab.team_server`` as a session fixture.

``team_server`` (session-scoped) is ``pairbench.lab.team_server.TeamServer`` (database
``pairbench``; writers ``alice`` and ``bob``, read-only ``reader``) with ``admin()``, a
superuser psycopg connection for the tests' own checks. A machine without PostgreSQL or
psycopg skips (fails under CI) saying what is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pairbench.lab import LabError
from pairbench.lab import team_server as lab_server
from testkit import require

DATABASE = lab_server.DATABASE


class TeamServer(lab_server.TeamServer):
    """The lab's server, plus a superuser connection for the tests."""

    def admin(self, dbname: str = DATABASE) -> Any:
        """A superuser connection over the server's unix socket (autocommit)."""
        import psycopg

        return psycopg.connect(self.admin_conninfo(dbname), autocommit=True)


@pytest.fixture(scope="session")
def team_server() -> Iterator[TeamServer]:
    """The session's PostgreSQL server (database ``pairbench``; alice, bob, reader)."""
    reason = lab_server.missing()
    require(reason is None, reason or "")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        require(False, "psycopg is not installed (pip install -e '.[dev]')")
    server = TeamServer.create()
    try:
        server.init()
    except LabError as exc:
        server.remove()
        pytest.fail(f"cannot start PostgreSQL: {exc}")
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture
def team_passwords(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, team_server: TeamServer
) -> Path:
    """libpq finds every role's password in a ~/.pgpass of the test's own, as a user keeps
    it (one process may act as alice and bob at once: PGPASSWORD would give both one)."""
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.delenv("PGSERVICE", raising=False)
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(
        "".join(
            f"*:{team_server.port}:*:{role}:{team_server.password(role)}\n"
            for role in (*lab_server.WRITERS, *lab_server.READERS)
        )
    )
    pgpass.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    return pgpass
