"""A run watched live from another library through a real PostgreSQL server: bob's
`team watch` hears alice's ping run while it records (its samples growing), then its end;
the finished run replaces the live copy (stored once)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from teamkit import TeamServer

PAIRBENCH = [sys.executable, "-m", "pairbench"]
COUNT = 10  # pings, half a second apart: the run records for about 5 s
PING = ["--pair", "local", "--tool", "ping", "--set", f"count={COUNT}", "--set", "interval=0.5"]
PING += ["--label", "live", "--json"]
WATCH = ["--json", "--until-done", "--timeout", "60"]


def _env(server: TeamServer, role: str) -> dict[str, str]:
    return {**os.environ, "PGPASSWORD": server.password(role), "PYTHONUNBUFFERED": "1"}


def _cli(library: Path, server: TeamServer, role: str, *args: str) -> Any:
    result = subprocess.run(
        [*PAIRBENCH, "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(server, role),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_run_is_watched_live_from_another_library_then_stored_once(
    team_server: TeamServer, tmp_path: Path
) -> None:
    db = f"t_{uuid.uuid4().hex[:10]}"
    team_server.create_database(db)
    alice, bob = tmp_path / "alice.sqlite", tmp_path / "bob.sqlite"
    for lib, role in ((alice, "alice"), (bob, "bob")):
        url = team_server.url(role, dbname=db)
        _cli(lib, team_server, role, "team", "connect", url, "--name", role, "--json")
    watcher = subprocess.Popen(
        [*PAIRBENCH, "--library", str(bob), "team", "watch", *WATCH],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(team_server, "bob"),
    )
    try:
        time.sleep(2.0)  # bob's watcher connects and listens (bounded: its first update waits)
        ran = subprocess.run(
            [*PAIRBENCH, "--library", str(alice), "run", *PING],
            capture_output=True,
            text=True,
            timeout=120,
            env=_env(team_server, "alice"),
        )
        assert ran.returncode == 0, ran.stderr
        out, err = watcher.communicate(timeout=60)
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.communicate(timeout=10)
    assert watcher.returncode == 0, err
    updates = [json.loads(line) for line in out.splitlines() if line.strip()]
    running = [u for u in updates if u["status"] == "running"]
    assert len(running) >= 2, updates  # heard while it recorded, more than once
    assert all(u["ran_by"] == "alice" and u["tool"] == "ping" for u in updates)
    counts = [u["samples"] for u in running]
    assert counts == sorted(counts) and counts[-1] > counts[0] > 0  # the samples grew
    final = updates[-1]
    assert final["status"] == "completed" and final["samples"] >= counts[-1]
    # The finished run replaced the live copy: one run on the server, complete.
    listed = _cli(bob, team_server, "bob", "runs", "list", "--team", "--json")
    assert [r["uuid"] for r in listed] == [final["uuid"]]
    assert listed[0]["status"] == "completed" and listed[0]["label"] == "live"


CAMPAIGN_PLAN = (
    'name = "headless"\npairs = ["local"]\nrepeats = 3\n[[tests]]\n'
    'tool = "ping"\nparams = { count = 8, interval = 0.5 }\n'
)  # three runs of about 4 s each, one after the other


def test_a_detached_campaign_publishes_its_runs_live_as_it_goes(
    team_server: TeamServer, tmp_path: Path
) -> None:
    """A headless campaign (``campaign run --detach``, no terminal) on alice's library: bob
    sees its runs on the team server while they record, and at the end every run once."""
    db = f"t_{uuid.uuid4().hex[:10]}"
    team_server.create_database(db)
    alice, bob = tmp_path / "alice.sqlite", tmp_path / "bob.sqlite"
    for lib, role in ((alice, "alice"), (bob, "bob")):
        url = team_server.url(role, dbname=db)
        _cli(lib, team_server, role, "team", "connect", url, "--name", role, "--json")
    plan = tmp_path / "plan.toml"
    plan.write_text(CAMPAIGN_PLAN, encoding="utf-8")
    started = _cli(alice, team_server, "alice", "campaign", "run", str(plan), "--detach", "--json")
    campaign_id, pid = started["id"], started["pid"]
    try:
        seen_running: set[str] = set()
        seen_done: set[str] = set()
        status = "running"
        for _ in range(300):  # at most about 2 minutes; the campaign takes about 15 s
            listed = _cli(bob, team_server, "bob", "runs", "list", "--team", "--json")
            seen_running |= {r["uuid"] for r in listed if r["status"] == "running"}
            seen_done |= {r["uuid"] for r in listed if r["status"] == "completed"}
            status = _cli(
                alice, team_server, "alice", "campaign", "show", str(campaign_id), "--json"
            )["status"]
            if status != "running" and len(seen_done) >= 3:
                break
            time.sleep(0.3)
        assert status == "completed"
    finally:
        if Path(f"/proc/{pid}").exists():
            os.kill(pid, 15)
    # Heard while running (a live copy), not only at the end.
    assert seen_running, "no run of the campaign was seen running on the team server"
    local_runs = _cli(alice, team_server, "alice", "runs", "list", "--json")
    assert len(local_runs) == 3 and all(r["status"] == "completed" for r in local_runs)
    final = _cli(bob, team_server, "bob", "runs", "list", "--team", "--json")
    # Every run of the campaign once (each live copy replaced by its finished run), alice's.
    assert len(final) == 3 and len({r["uuid"] for r in final}) == 3
    assert all(r["ran_by"] == "alice" and r["status"] == "completed" for r in final)
    assert seen_running <= {r["uuid"] for r in final}
    assert sorted(r["started_at"] for r in final) == sorted(r["started_at"] for r in local_runs)
    # The campaign itself, once it ended: published by the detached process, runs by UUID.
    campaigns = _cli(bob, team_server, "bob", "campaign", "list", "--team", "--json")
    assert [(c["name"], c["status"], c["ran_by"]) for c in campaigns] == [
        ("headless", "completed", "alice")
    ]
    shown = _cli(
        bob, team_server, "bob", "campaign", "show", "--team", campaigns[0]["uuid"], "--json"
    )
    rows = shown["campaign_runs"]
    assert [r["status"] for r in rows] == ["completed"] * 3
    assert {r["run_uuid"] for r in rows} == {r["uuid"] for r in final}
