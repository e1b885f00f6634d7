"""A team server that is stuck, for real: its backend or its postmaster frozen (SIGSTOP; the
kernel still answers keepalives), or its runs table locked by another session (LOCK TABLE).
Every call ends within its bound with a one-line reason (who holds the lock; no answer), the
runs wait in the outbox and go once each when the server is back, and no local work (an
import, a run, `team status`) waits on the server. Real PostgreSQL (the session's server and
a database of each test's own; the frozen-postmaster test runs a server of its own), the real
CLI in child processes; every stopped process is continued in a `finally`."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.lab import team_server as lab_server
from pairbench.library import Library
from pairbench.library.recorder import Recorder
from pairbench.library.runs import create_run, finish_run
from teamkit import TeamServer
from testkit import FIXTURES, require

PAIRBENCH = [sys.executable, "-m", "pairbench"]
PING = ["run", "--pair", "local", "--tool", "ping", "--set", "count=2", "--set", "interval=0.2"]
IPERF3_JSON = FIXTURES / "iperf3" / "tcp_t5_json.out"
# Hang bounds, well past what each command takes here (and short of what it took when it
# waited on the locked table: 12 s for an import, 25 s for `team status`, 30 s for a run).
LOCAL_BOUND_S = 10.0
RUN_BOUND_S = 15.0


def _database(server: TeamServer) -> str:
    name = f"s_{uuid.uuid4().hex[:10]}"
    server.create_database(name)
    return name


def _library(path: Path, runs: int) -> None:
    """``runs`` finished runs, never published."""
    with Library.open(path) as lib:
        for n in range(runs):
            run_id = create_run(lib, RunSpec("local", "iperf3", {}, label=f"run {n}"))
            recorder = Recorder(lib, run_id)
            recorder.add([Record("sum", i * 1.0, ("throughput_bps",), (1e9,)) for i in range(5)])
            recorder.flush()
            finish_run(lib, run_id, RunStatus.COMPLETED, summary={}, complete=True)


def _cli(
    library: Path,
    server: TeamServer,
    *args: str,
    timeout: float = 120.0,
    answer_s: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """``pairbench --library LIBRARY ARGS`` as alice (``answer_s``: PAIRBENCH_TEAM_TIMEOUT;
    otherwise the product's own bounds)."""
    env = {**os.environ, "PGPASSWORD": server.password("alice")}
    env.pop("PGPASSFILE", None)
    env.pop("PAIRBENCH_TEAM_TIMEOUT", None)
    if answer_s is not None:
        env["PAIRBENCH_TEAM_TIMEOUT"] = str(answer_s)
    return subprocess.run(
        [*PAIRBENCH, "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def _last_json(text: str) -> Any:
    return json.loads(text.strip().splitlines()[-1])


def _server_runs(server: TeamServer, db: str) -> tuple[int, int]:
    """How many runs the server holds, and how many distinct UUIDs."""
    with server.admin(db) as conn:
        row = conn.execute("SELECT count(*), count(DISTINCT uuid) FROM runs").fetchone()
    return int(row[0]), int(row[1])


def _outbox(library: Path) -> int:
    with sqlite3.connect(library) as conn:
        return int(conn.execute("SELECT count(*) FROM team_outbox").fetchone()[0])


@contextlib.contextmanager
def _frozen(pid: int) -> Iterator[None]:
    """The process stopped (SIGSTOP) while inside; always continued after."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def _push_until_done(library: Path, server: TeamServer) -> dict[str, Any]:
    """Push until nothing waits (a session the server has not ended yet may hold a run's row
    a moment after the freeze); bounded."""
    deadline = time.monotonic() + 60
    while True:
        pushed = _cli(library, server, "team", "push", "--json")
        body: dict[str, Any] = _last_json(pushed.stdout)
        if body["pending"] == 0 or time.monotonic() > deadline:
            return body
        time.sleep(0.5)


@pytest.mark.timeout(180)
def test_a_frozen_backend_ends_the_push_within_its_bound_and_the_runs_wait(
    team_server: TeamServer, tmp_path: Path
) -> None:
    db = _database(team_server)
    library = tmp_path / "library.sqlite"
    _library(library, 2)
    url = team_server.url("alice", dbname=db)
    assert _cli(library, team_server, "team", "connect", url, "--no-auto").returncode == 0
    env = {**os.environ, "PGPASSWORD": team_server.password("alice")}
    env["PAIRBENCH_TEAM_TIMEOUT"] = "4"
    with team_server.admin(db) as holder, team_server.admin(db) as watcher:
        # Hold the table so the push's backend is caught waiting, then freeze that backend:
        # once the lock is released it holds it, and says nothing more.
        holder.execute("BEGIN")
        holder.execute("LOCK TABLE runs")
        push = subprocess.Popen(
            [*PAIRBENCH, "--library", str(library), "team", "push", "--all", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            backend = None
            deadline = time.monotonic() + 30
            while backend is None:
                assert push.poll() is None, push.communicate()
                assert time.monotonic() < deadline, "the push never waited on the lock"
                row = watcher.execute(
                    "SELECT pid FROM pg_stat_activity WHERE datname = %s AND "
                    "application_name = 'pairbench' AND wait_event_type = 'Lock'",
                    (db,),
                ).fetchone()
                backend = None if row is None else int(row[0])
                time.sleep(0.02)
            with _frozen(backend):
                holder.execute("COMMIT")
                out, err = push.communicate(timeout=60)  # keepalives alone: no end
        finally:
            if push.poll() is None:
                push.kill()
                push.communicate()
    assert push.returncode == 1, (out, err)
    body = _last_json(out)
    assert body["pushed"] == [] and body["pending"] == 2, body
    assert "did not answer for 6 s" in body["error"] and "frozen" in body["error"], body
    assert err == ""  # --json: the reason is in the object
    assert _outbox(library) == 2
    # Back: each run once.
    done = _push_until_done(library, team_server)
    assert done["pending"] == 0 and sorted(done["pushed"]) == [1, 2], done
    assert _server_runs(team_server, db) == (2, 2)


@pytest.fixture
def own_server() -> Iterator[TeamServer]:
    """A server of this test's own: its postmaster is frozen (the session's serves others)."""
    require(lab_server.missing() is None, str(lab_server.missing()))
    server = TeamServer.create()
    try:
        server.init()
        yield server
    finally:
        server.remove()


@pytest.mark.timeout(180)
def test_a_frozen_postmaster_is_said_within_the_connection_bound(
    own_server: TeamServer, tmp_path: Path
) -> None:
    library = tmp_path / "library.sqlite"
    _library(library, 1)
    url = own_server.url("alice")
    assert _cli(library, own_server, "team", "connect", url).returncode == 0  # automatic
    postmaster = int((own_server.data / "postmaster.pid").read_text().split()[0])
    with _frozen(postmaster):
        st = _cli(library, own_server, "team", "status", "--json", answer_s=2, timeout=60)
        push = ("team", "push", "--all", "--json")
        pushed = _cli(library, own_server, *push, answer_s=2, timeout=60)
        # The publish after an import, with the product's own bound.
        imported = _cli(library, own_server, "import", "iperf3", str(IPERF3_JSON), timeout=60)
    status = _last_json(st.stdout)
    assert st.returncode == 1 and status["reachable"] is False, st
    assert status["state"] == "not answering" and "no answer" in status["error"], status
    body = _last_json(pushed.stdout)
    assert pushed.returncode == 1 and body["pushed"] == [] and body["pending"] == 1, body
    assert "no answer" in body["error"], body
    assert imported.returncode == 0 and imported.stdout.startswith("imported "), imported
    assert "2 run(s) wait in the outbox" in imported.stderr and "no answer" in imported.stderr
    assert _outbox(library) == 2
    done = _push_until_done(library, own_server)
    assert sorted(done["pushed"]) == [1, 2] and done["pending"] == 0, done


@pytest.mark.timeout(240)
def test_a_locked_runs_table_holds_up_no_local_work_and_is_named(
    team_server: TeamServer, tmp_path: Path
) -> None:
    db = _database(team_server)
    library = tmp_path / "library.sqlite"
    url = team_server.url("alice", dbname=db)
    assert _cli(library, team_server, "team", "connect", url).returncode == 0  # automatic
    with team_server.admin(db) as holder:
        holder.execute("BEGIN")
        holder.execute("LOCK TABLE runs")
        who = f"runs table is locked by another session (pid {holder.info.backend_pid}"
        try:
            imported = _cli(
                library, team_server, "import", "iperf3", str(IPERF3_JSON), timeout=LOCAL_BOUND_S
            )
            st = _cli(library, team_server, "team", "status", "--json", timeout=LOCAL_BOUND_S)
            ran = _cli(library, team_server, *PING, "--json", timeout=RUN_BOUND_S)
            # An explicit push waits on the lock for its answer bound, then says who holds it.
            push = _cli(library, team_server, "team", "push", "--json", answer_s=1, timeout=30)
        finally:
            holder.execute("ROLLBACK")
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith("imported ")
    assert who in imported.stderr and "1 run(s) wait in the outbox" in imported.stderr
    assert "cut network" not in imported.stderr
    status = _last_json(st.stdout)
    assert st.returncode == 1 and status["reachable"] is True and status["state"] == "locked"
    assert who in status["error"] and status["role"] == "alice" and status["pending"] == 1
    assert ran.returncode == 0 and _last_json(ran.stdout)["status"] == "completed", ran.stderr
    assert who in ran.stderr and "2 run(s) wait in the outbox" in ran.stderr
    body = _last_json(push.stdout)
    assert push.returncode == 1 and body["pushed"] == [] and body["pending"] == 2, body
    assert who in body["error"] and "waited 1 s" in body["error"], body
    assert _server_runs(team_server, db) == (0, 0)
    # Released: everything waiting goes, once.
    done = _push_until_done(library, team_server)
    assert sorted(done["pushed"]) == [1, 2] and done["pending"] == 0, done
    assert _server_runs(team_server, db) == (2, 2)
