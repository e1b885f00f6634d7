"""Two libraries on this machine (two users, alice and bob) and one real PostgreSQL server,
through the CLI: each connects without a secret kept, runs real ping runs that its outbox
publishes automatically, and lists the other's runs with who ran them; a run published twice
is stored once; runs made while the server is down wait in the outbox and are published once
it is back; a read-only member lists but cannot publish; a wrong password is said so."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from teamkit import TeamServer

PAIRBENCH = [sys.executable, "-m", "pairbench"]
PING = ["run", "--pair", "local", "--tool", "ping", "--set", "count=2", "--set", "interval=0.2"]


def _cli(
    library: Path, server: TeamServer, role: str, *args: str, password: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``pairbench --library LIBRARY ARGS`` with libpq's password for ``role`` in its
    environment (as a user's ~/.pgpass would give it), nothing else."""
    env = {**os.environ, "PGPASSWORD": server.password(role) if password is None else password}
    env.pop("PGPASSFILE", None)
    return subprocess.run(
        [*PAIRBENCH, "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def _database(server: TeamServer) -> str:
    """A team library of its own for one test (the server is shared by the session)."""
    name = f"t_{uuid.uuid4().hex[:10]}"
    server.create_database(name)
    return name


def _json(result: subprocess.CompletedProcess[str]) -> Any:
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_two_users_publish_to_one_server_and_see_each_others_runs(
    team_server: TeamServer, tmp_path: Path
) -> None:
    db = _database(team_server)
    alice, bob = tmp_path / "alice.sqlite", tmp_path / "bob.sqlite"
    for lib, role in ((alice, "alice"), (bob, "bob")):
        url = team_server.url(role, dbname=db)
        st = _json(_cli(lib, team_server, role, "team", "connect", url, "--name", role, "--json"))
        assert st["reachable"] and st["can_publish"] and st["url"] == url
        # The library holds the address and nothing secret.
        with sqlite3.connect(lib) as conn:
            settings = dict(conn.execute("SELECT key, value FROM settings"))
        assert team_server.password(role) not in json.dumps(settings)
    ran = _cli(alice, team_server, "alice", *PING, "--label", "alice's ping", "--json")
    assert ran.returncode == 0, ran.stderr
    assert "team: published 1 run(s)" in ran.stderr  # the outbox, right after the run
    assert _cli(bob, team_server, "bob", *PING, "--label", "bob's ping").returncode == 0
    for lib, role in ((alice, "alice"), (bob, "bob")):
        listed = _json(_cli(lib, team_server, role, "runs", "list", "--team", "--json"))
        by_label = {r["label"]: r for r in listed}
        assert set(by_label) == {"alice's ping", "bob's ping"}
        assert by_label["alice's ping"]["ran_by"] == "alice"
        assert by_label["bob's ping"]["ran_by"] == "bob"
        local = _json(_cli(lib, team_server, role, "runs", "list", "--json"))
        [mine] = local
        theirs = by_label[mine["label"]]
        assert {k: v for k, v in theirs.items() if k not in ("id", "uuid", "ran_by", "origin")} == {
            k: v for k, v in mine.items() if k != "id"
        }
    # Published twice: stored once.
    again = _json(_cli(alice, team_server, "alice", "team", "push", "1", "--json"))
    none = {"pushed": [], "skipped": [], "pending": 0}  # no suite or campaign here
    assert again == {
        "pushed": [],
        "skipped": [1],
        "pending": 0,
        "error": None,
        "suites": none,
        "campaigns": none,
    }
    assert len(_json(_cli(bob, team_server, "bob", "runs", "list", "--team", "--json"))) == 2
    # The same filters as the local list.
    mine = _json(
        _cli(bob, team_server, "bob", "runs", "list", "--team", "--label", "bob's ping", "--json")
    )
    assert [r["ran_by"] for r in mine] == ["bob"]


def test_offline_runs_wait_in_the_outbox_and_are_published_once_the_server_is_back(
    team_server: TeamServer, tmp_path: Path
) -> None:
    lib = tmp_path / "offline.sqlite"
    url = team_server.url("alice", dbname=_database(team_server))
    _json(_cli(lib, team_server, "alice", "team", "connect", url, "--json"))
    team_server.stop()
    try:
        ran = _cli(lib, team_server, "alice", *PING, "--label", "offline")
        assert ran.returncode == 0, ran.stderr  # the run itself is not held up
        assert "1 run(s) wait in the outbox" in ran.stderr
        st = _cli(lib, team_server, "alice", "team", "status", "--json")
        assert st.returncode != 0 and json.loads(st.stdout)["pending"] == 1
        assert json.loads(st.stdout)["reachable"] is False
    finally:
        team_server.start()
    pushed = _json(_cli(lib, team_server, "alice", "team", "push", "--json"))
    assert len(pushed["pushed"]) == 1 and pushed["pending"] == 0
    again = _json(_cli(lib, team_server, "alice", "team", "push", "--all", "--json"))
    assert again["pushed"] == [] and again["pending"] == 0
    listed = _json(_cli(lib, team_server, "alice", "runs", "list", "--team", "--json"))
    assert [r["label"] for r in listed].count("offline") == 1


def test_a_reader_lists_but_cannot_publish_and_a_wrong_password_is_said(
    team_server: TeamServer, tmp_path: Path
) -> None:
    db = _database(team_server)
    writer = tmp_path / "writer.sqlite"
    first = team_server.url("alice", dbname=db)  # a writer makes the tables
    _json(_cli(writer, team_server, "alice", "team", "connect", first, "--json"))
    lib = tmp_path / "reader.sqlite"
    url = team_server.url("reader", dbname=db)
    wrong = _cli(lib, team_server, "reader", "team", "connect", url, password="not-it")
    assert wrong.returncode != 0 and "password" in wrong.stderr.lower()
    st = _json(_cli(lib, team_server, "reader", "team", "connect", url, "--json"))
    assert st["reachable"] and st["can_publish"] is False
    assert _cli(lib, team_server, "reader", *PING, "--label", "reader's").returncode == 0
    refused = _cli(lib, team_server, "reader", "team", "push", "--json")
    body = json.loads(refused.stdout)
    assert refused.returncode != 0 and body["pending"] == 1 and body["pushed"] == []
    assert "reader" in body["error"]
    listed = _json(_cli(lib, team_server, "reader", "runs", "list", "--team", "--json"))
    assert "reader's" not in {r["label"] for r in listed}
