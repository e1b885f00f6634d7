"""The window's side of publishing (``ui.team_sync``) against a real PostgreSQL server: while
the window is open on a library that publishes automatically, a run it records appears on
the team server live (running, with its samples so far), and once finished it replaces the
live copy there, published from the outbox without any command."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.library import Library
from pairbench.library.recorder import Recorder
from pairbench.library.runs import create_run, finish_run
from pairbench.library.team import local
from pairbench.library.team.store import TeamRun, TeamStore
from pairbench.services.team import connect
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.team_sync import TeamSync
from teamkit import TeamServer

WAIT_MS = 30_000


@pytest.fixture
def password(team_server: TeamServer, team_passwords: Path) -> str:
    """alice's password, which libpq finds in the test's own ~/.pgpass (teamkit)."""
    return team_server.password("alice")


def _on_server(url: str, password: str, key: str) -> TeamRun | None:
    with TeamStore.connect(url, password=password) as store:
        found = [t for t in store.list_runs() if t.uuid == key]
    return found[0] if found else None


def test_the_window_publishes_its_runs_live_then_from_the_outbox(
    qtbot: QtBot, team_server: TeamServer, password: str, tmp_path: Path
) -> None:
    db = f"t_{uuid.uuid4().hex[:10]}"
    team_server.create_database(db)
    url = team_server.url("alice", dbname=db)
    path = tmp_path / "library.sqlite"
    with Library.open(path) as lib:
        connect(lib, url, name="alice")
        run_id = create_run(lib, RunSpec("local", "iperf3", {"duration": "30"}))
        key = local.run_uuid(lib, run_id)
        recorder = Recorder(lib, run_id)
        recorder.add([Record("sum", float(i), ("throughput_bps",), (1e9,)) for i in range(5)])
        recorder.flush()
    bridge = EngineBridge(path)
    sync = TeamSync(bridge, path)
    try:
        qtbot.waitUntil(lambda: sync.publisher is not None, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: _on_server(url, password, key) is not None, timeout=WAIT_MS)
        live = _on_server(url, password, key)
        assert live is not None and live.run.status is RunStatus.RUNNING
        with Library.open(path) as lib:
            finish_run(
                lib, run_id, RunStatus.COMPLETED, summary={"throughput_bps": 1e9}, complete=True
            )
        deadline = time.monotonic() + 30
        final = live
        while time.monotonic() < deadline and final.run.status is RunStatus.RUNNING:
            qtbot.wait(500)
            final = _on_server(url, password, key) or final
        assert final.run.status is RunStatus.COMPLETED and final.ran_by == "alice"
        with TeamStore.connect(url, password=password) as store:
            assert store.count_runs() == 1  # the live copy was replaced, not kept beside
            [series] = store.load_series(key)
        assert series.v.tolist() == [1e9] * 5
        with Library.open(path) as lib:
            assert local.outbox(lib) == [] and local.is_published(lib, run_id)
    finally:
        sync.stop()
        bridge.shutdown()
