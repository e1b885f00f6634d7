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
