"""A run reaching the team library by two ways is stored there once: it has its UUID from its
creation, an evidence bundle carries it and the library importing the bundle keeps it, and a
copy of a library file holds the same runs. Real PostgreSQL (the session's server, a
database of the test's own), the real CLI in-process."""

from __future__ import annotations

import io
import json
import shutil
import uuid
from pathlib import Path
from typing import Any

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from teamkit import TeamServer
from testkit import FIXTURES

IPERF3_JSON = FIXTURES / "iperf3" / "tcp_t5_json.out"
PING = FIXTURES / "ping" / "c20_s1400_i02.out"


def _cli(library: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(["--library", str(library), *argv], Environment(stdout=out, stderr=err))
    return code, out.getvalue(), err.getvalue()


def _json(library: Path, *argv: str) -> Any:
    code, out, err = _cli(library, *argv)
    assert code == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _team(server: TeamServer) -> str:
    name = f"u_{uuid.uuid4().hex[:10]}"
    server.create_database(name)
    return name


def _server_runs(server: TeamServer, db: str) -> list[tuple[str, str]]:
    """(uuid, ran_by) of every run the server holds, read as its superuser."""
    with server.admin(db) as conn:
        rows = conn.execute("SELECT uuid::text, ran_by FROM runs ORDER BY id").fetchall()
    return [(str(u), str(r)) for u, r in rows]


def test_a_bundle_imported_by_a_colleague_is_one_run_on_the_team_server(
    team_server: TeamServer, team_passwords: Path, tmp_path: Path
) -> None:
    db = _team(team_server)
    alice, bob, carol = (tmp_path / f"{n}.sqlite" for n in ("alice", "bob", "carol"))
    # alice imports two runs and bundles them before she ever publishes.
    assert _cli(alice, "import", "iperf3", str(IPERF3_JSON))[0] == 0
    assert _cli(alice, "import", "ping", str(PING))[0] == 0
    bundle = str(tmp_path / "b.zip")
    code, _, err = _cli(
        alice, "export", "1", "2", "--format", "bundle", "--no-charts", "--out", bundle
    )
    assert code == 0, err
    for lib in (bob, carol):  # two colleagues import it
        assert len(_json(lib, "import-bundle", bundle, "--json")["imported"]) == 2
    # Then everyone publishes: bob first, then alice, then carol.
    for lib, role in ((bob, "bob"), (alice, "alice"), (carol, "bob")):
        url = team_server.url(role, dbname=db)
        _json(lib, "team", "connect", url, "--name", lib.stem, "--no-auto", "--json")
    first = _json(bob, "team", "push", "--all", "--json")
    assert len(first["pushed"]) == 2 and first["error"] is None
    for lib in (alice, carol):
        later = _json(lib, "team", "push", "--all", "--json")
        assert later["pushed"] == [] and sorted(later["skipped"]) == [1, 2], later
    stored = _server_runs(team_server, db)
    assert len(stored) == 2 and {by for _, by in stored} == {"bob"}
    listed = _json(alice, "runs", "list", "--team", "--json")
    assert sorted(r["uuid"] for r in listed) == sorted(u for u, _ in stored)


def test_a_library_copied_before_its_first_publish_is_published_once(
    team_server: TeamServer, team_passwords: Path, tmp_path: Path
) -> None:
    db = _team(team_server)
    mine = tmp_path / "mine.sqlite"
    assert _cli(mine, "import", "iperf3", str(IPERF3_JSON))[0] == 0
    laptop = tmp_path / "laptop.sqlite"
    shutil.copyfile(mine, laptop)  # closed: the file holds every committed page
    for lib in (mine, laptop):
        url = team_server.url("alice", dbname=db)
        _json(lib, "team", "connect", url, "--name", lib.stem, "--no-auto", "--json")
    assert _json(mine, "team", "push", "--all", "--json")["pushed"] == [1]
    assert _json(laptop, "team", "push", "--all", "--json")["skipped"] == [1]
    # A run the copy records afterwards is a run of its own.
    assert _cli(laptop, "import", "ping", str(PING))[0] == 0
    assert _json(laptop, "team", "push", "--all", "--json")["pushed"] == [2]
    assert len(_server_runs(team_server, db)) == 2
