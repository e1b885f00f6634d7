"""Two libraries (alice and bob) and one real PostgreSQL server, through the CLI: each
publishes its campaign and storage suite with `team push`, lists the other's with
`campaign list --team` / `storage list --team` (the local lists' fields plus who ran them),
reads one whole with `show --team UUID`; pushed again, nothing is stored twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from team_entity_kit import make_campaign, make_suite

from pairbench.library import Library
from teamkit import TeamServer

PAIRBENCH = [sys.executable, "-m", "pairbench"]
TEAM_ONLY = ("id", "uuid", "ran_by", "origin")


def _cli(library: Path, server: TeamServer, role: str, *args: str) -> Any:
    """``pairbench --library LIBRARY ARGS`` as ``role`` (libpq's password in its
    environment); its last line of stdout as JSON (the command must succeed)."""
    env = {**os.environ, "PGPASSWORD": server.password(role)}
    env.pop("PGPASSFILE", None)
    done = subprocess.run(
        [*PAIRBENCH, "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_two_libraries_publish_campaigns_and_suites_and_list_each_others(
    team_server: TeamServer, tmp_path: Path
) -> None:
    db = f"c_{uuid.uuid4().hex[:10]}"
    team_server.create_database(db)
    made: dict[str, tuple[int, int]] = {}
    jobs: dict[str, int] = {}
    paths = {role: tmp_path / f"{role}.sqlite" for role in ("alice", "bob")}
    for role, path in paths.items():
        url = team_server.url(role, dbname=db)
        _cli(path, team_server, role, "team", "connect", url, "--name", role, "--json")
        with Library.open(path) as lib:  # as a storage command and a campaign would store them
            suite_id, suite_runs = make_suite(lib, label=f"{role}'s disk")
            cid, campaign_runs = make_campaign(lib, name=f"{role}'s study", suite_id=suite_id)
        made[role] = (suite_id, cid)
        jobs[role] = len(suite_runs)
        st = _cli(path, team_server, role, "team", "status", "--json")
        assert (st["suites_waiting"], st["campaigns_waiting"]) == (1, 1)
        pushed = _cli(path, team_server, role, "team", "push", "--json")
        assert (
            pushed["error"] is None
            and pushed["pending"] == 0
            and sorted(pushed["pushed"]) == sorted(suite_runs + campaign_runs)
        )
        assert pushed["suites"] == {"pushed": [suite_id], "skipped": [], "pending": 0}
        assert pushed["campaigns"] == {"pushed": [cid], "skipped": [], "pending": 0}
    for role, path in paths.items():
        other = "bob" if role == "alice" else "alice"
        campaigns = _cli(path, team_server, role, "campaign", "list", "--team", "--json")
        by_name = {c["name"]: c for c in campaigns}
        assert set(by_name) == {"alice's study", "bob's study"}
        assert by_name[f"{other}'s study"]["ran_by"] == other
        [mine] = _cli(path, team_server, role, "campaign", "list", "--json")
        theirs = by_name[mine["name"]]
        assert {k: v for k, v in theirs.items() if k not in TEAM_ONLY} == {
            k: v for k, v in mine.items() if k != "id"
        }
        suites = _cli(path, team_server, role, "storage", "list", "--team", "--json")
        assert {s["label"]: s["ran_by"] for s in suites} == {
            "alice's disk": "alice",
            "bob's disk": "bob",
        }
        [local_suite] = _cli(path, team_server, role, "storage", "list", "--json")
        [team_suite] = [s for s in suites if s["label"] == local_suite["label"]]
        assert {k: v for k, v in team_suite.items() if k not in TEAM_ONLY} == {
            k: v for k, v in local_suite.items() if k != "id"
        }
        # The other's campaign whole: its cells' runs and its suite by UUID.
        shown = _cli(
            path,
            team_server,
            role,
            "campaign",
            "show",
            "--team",
            by_name[f"{other}'s study"]["uuid"],
            "--json",
        )
        their_suite = next(s for s in suites if s["ran_by"] == other)
        assert their_suite["uuid"] in {r["suite_uuid"] for r in shown["campaign_runs"]}
        suite = _cli(
            path, team_server, role, "storage", "show", "--team", their_suite["uuid"], "--json"
        )
        assert len(suite["jobs"]) == jobs[other] and all(j["run_uuid"] for j in suite["jobs"])
    # Pushed again by id: already on the server, nothing doubled.
    suite_id, cid = made["alice"]
    again = _cli(
        paths["alice"],
        team_server,
        "alice",
        "team",
        "push",
        f"suite:{suite_id}",
        f"campaign:{cid}",
        "--json",
    )
    assert again["suites"]["skipped"] == [suite_id] and again["campaigns"]["skipped"] == [cid]
    assert again["pushed"] == [] and again["suites"]["pushed"] == again["campaigns"]["pushed"] == []
    listed = _cli(paths["bob"], team_server, "bob", "campaign", "list", "--team", "--json")
    assert len(listed) == 2


PLAN = """name = "tiny"
pairs = ["local"]
repeats = 1
[[tests]]
tool = "ping"
params = { count = [1], interval = [0.2] }
"""


def test_a_campaign_run_here_is_published_as_it_ends(
    team_server: TeamServer, tmp_path: Path
) -> None:
    db = f"r_{uuid.uuid4().hex[:10]}"
    team_server.create_database(db)
    lib = tmp_path / "alice.sqlite"
    _cli(
        lib, team_server, "alice", "team", "connect", team_server.url("alice", dbname=db), "--json"
    )
    plan = tmp_path / "tiny.toml"
    plan.write_text(PLAN)
    env = {**os.environ, "PGPASSWORD": team_server.password("alice")}
    env.pop("PGPASSFILE", None)
    ran = subprocess.run(
        [*PAIRBENCH, "--library", str(lib), "campaign", "run", str(plan), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    outcome = json.loads(ran.stdout.strip().splitlines()[-1])
    assert "team: published 0 suite(s), 1 campaign(s)" in ran.stderr  # right after the command
    [listed] = _cli(lib, team_server, "alice", "campaign", "list", "--team", "--json")
    assert (listed["name"], listed["status"], listed["runs"]) == (
        "tiny",
        outcome["status"],
        len(outcome["runs"]),
    )
    st = _cli(lib, team_server, "alice", "team", "status", "--json")
    assert st["campaigns_waiting"] == 0 and st["pending"] == 0
