"""File ▸ Team library… against a real PostgreSQL server: a bad address is said and nothing
kept; the server's address is kept without any secret, the status shows the role's rights;
"Publish now" publishes the library's finished runs and its storage suite, and says so; the
Library tab then offers the Team source."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot
from team_entity_kit import make_suite

from pairbench.domain import RunSpec, RunStatus
from pairbench.library import Library
from pairbench.library.runs import create_run, finish_run
from pairbench.library.team.store import TeamStore
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.library_view import LibraryView
from pairbench.ui.team_dialog import TeamDialog
from teamkit import TeamServer

WAIT_MS = 30_000


@pytest.fixture
def pgpassword(team_server: TeamServer, team_passwords: Path) -> str:
    """alice's password, which libpq finds in the test's own ~/.pgpass (teamkit)."""
    return team_server.password("alice")


def test_the_dialog_connects_shows_the_status_and_publishes(
    qtbot: QtBot, team_server: TeamServer, pgpassword: str, tmp_path: Path
) -> None:
    db = f"t_{uuid.uuid4().hex[:10]}"
    team_server.create_database(db)
    url = team_server.url("alice", dbname=db)
    path = tmp_path / "library.sqlite"
    with Library.open(path) as lib:
        for n in range(2):
            run_id = create_run(lib, RunSpec("local", "ping", {}, label=f"mine {n}"))
            finish_run(lib, run_id, RunStatus.COMPLETED, summary={"rtt_avg_ms": 0.1}, complete=True)
        _suite, suite_runs = make_suite(lib, label="suite runs")
    runs = 2 + len(suite_runs)
    bridge = EngineBridge(path)
    try:
        view = LibraryView(bridge)
        qtbot.addWidget(view)
        dialog = TeamDialog(bridge, path)
        qtbot.addWidget(dialog)
        qtbot.waitUntil(lambda: "no team library yet" in dialog.state_label.text(), timeout=WAIT_MS)
        # A bad address: said in red, nothing kept.
        dialog.url_edit.setText("mysql://alice@db/pairbench")
        dialog.connect_button.click()
        qtbot.waitUntil(lambda: "PostgreSQL address" in dialog.state_label.text(), timeout=WAIT_MS)
        assert "b3261e" in dialog.state_label.styleSheet() and dialog.connect_button.isEnabled()
        # The server: kept without a secret, the role's rights shown.
        dialog.url_edit.setText(url)
        dialog.name_edit.setText("alice")
        with qtbot.waitSignal(dialog.connected, timeout=WAIT_MS) as kept:
            dialog.connect_button.click()
        assert kept.args == [url]
        assert "may publish" in dialog.state_label.text()
        assert "waiting in the outbox: 0" in dialog.state_label.text()
        with sqlite3.connect(path) as conn:
            settings = dict(conn.execute("SELECT key, value FROM settings"))
        assert settings["team.url"] == url and pgpassword not in repr(settings)
        # Publish now: the runs made before connecting go too.
        assert dialog.publish_button.isEnabled()
        dialog.publish_button.click()
        qtbot.waitUntil(
            lambda: f"Published from here: {runs}" in dialog.state_label.text(), timeout=WAIT_MS
        )
        assert (
            f"Publish now: {runs} run(s), 1 storage suite(s), 0 campaign(s) published; "
            "0 already on the server" in dialog.state_label.text()
        )
        with TeamStore.connect(url, password=pgpassword) as store:
            labels = sorted(t.run.label for t in store.list_runs())
            [(suites,)] = store._conn.execute("SELECT count(*) FROM suites").fetchall()
        assert labels == sorted(["mine 0", "mine 1"] + [""] * len(suite_runs)) and suites == 1
        # The Library tab now offers the Team source.
        assert view.filters.source_combo.isHidden()  # read before the server was kept
        view.team.check()
        qtbot.waitUntil(lambda: not view.filters.source_combo.isHidden(), timeout=WAIT_MS)
    finally:
        bridge.shutdown()
