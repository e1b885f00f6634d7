"""A team server whose ``pb_meta.schema_version`` is no version number (changed by hand or by
another program: ``abc``, empty, ``2.5``, ``-1``): every team command refuses with one line
naming what it found and what it expects, and touches nothing (no traceback, no "schema -1").
Real PostgreSQL (a database of each case's own), the CLI in-process."""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.library.team.schema import SCHEMA_VERSION, SchemaVersionError, parse_version
from teamkit import TeamServer
from testkit import FIXTURES

IPERF3_JSON = FIXTURES / "iperf3" / "tcp_t5_json.out"


def _cli(library: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(["--library", str(library), *argv], Environment(stdout=out, stderr=err))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("found", ["abc", "", "2.5", "-1", " 2", "²"])
def test_a_schema_version_that_is_no_number_is_refused_in_one_line(
    team_server: TeamServer, team_passwords: Path, tmp_path: Path, found: str
) -> None:
    db = f"o_{uuid.uuid4().hex[:10]}"
    team_server.create_database(db)
    url = team_server.url("alice", dbname=db)
    library = tmp_path / "library.sqlite"
    assert _cli(library, "team", "connect", url, "--no-auto")[0] == 0  # tables made
    assert _cli(library, "import", "iperf3", str(IPERF3_JSON))[0] == 0
    with team_server.admin(db) as conn:
        conn.execute("UPDATE pb_meta SET value = %s WHERE key = 'schema_version'", (found,))
    said = f"pb_meta.schema_version is {found!r}, expected a whole number from 1 to"
    for argv in (
        ("team", "push", "--all"),
        ("runs", "list", "--team"),
        ("storage", "list", "--team"),
        ("campaign", "list", "--team"),
        ("team", "watch", "--timeout", "0.1"),
        ("team", "connect", url),
    ):
        code, out, err = _cli(library, *argv)
        assert code == 1, (argv, out, err)
        [line] = err.strip().splitlines()  # one line, no traceback
        assert said in line and "schema -1" not in line, (argv, line)
    code, out, err = _cli(library, "team", "status", "--json")
    status = json.loads(out)
    assert code == 1 and status["reachable"] is True and status["schema"] is None
    assert said in status["error"] and status["pending"] == 1
    code, out, _ = _cli(library, "team", "status")
    assert code == 1 and said in out and "schema -1" not in out
    with team_server.admin(db) as conn:  # nothing was touched
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
        assert conn.execute("SELECT value FROM pb_meta").fetchall() == [(found,)]


def test_only_ascii_digits_are_a_version() -> None:
    assert parse_version("2") == 2 and parse_version("02") == 2 and parse_version(3) == 3
    for bad in ("abc", "", "2.5", "-1", "+1", " 2", "2 ", "²", "1e3", "٣"):
        with pytest.raises(SchemaVersionError):
            parse_version(bad)
    assert SCHEMA_VERSION >= 2
