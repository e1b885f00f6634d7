"""Comparing a run of this computer with a team run in the window, against a real PostgreSQL
server: alice publishes runs from her library; bob pins his own run under "This computer",
switches to "Team", pins one of alice's, selects his own run's published copy too, and
Compares: the compare view opens with his run and alice's once each, the team run named
``#-N`` with who ran it, and each run's value is what the services compute from its series
in the library it was recorded in."""

from __future__ import annotations

import dataclasses
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QItemSelectionModel, QSettings
from pytestqt.qtbot import QtBot

from pairbench.analysis.compare import compare
from pairbench.analysis.compare_runs import GroupBy
from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run, finish_run
from pairbench.library.team import local
from pairbench.services import team
from pairbench.services.compare import compare_inputs
from pairbench.services.compare_refs import team_compare_id
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.library_view import LibraryView
from teamkit import TeamServer

WAIT_MS = 20_000
METRIC = "throughput_bps"
SHOTS_ENV = "PAIRBENCH_SHOTS"  # a folder to keep the screenshots in (else the test's own)

# libpq finds each role's password in a ~/.pgpass of the test's own (teamkit).
pytestmark = pytest.mark.usefixtures("team_passwords")


def _make_run(lib: Library, pair: str, label: str, samples: int, base: float) -> int:
    """A finished iperf3 run with a throughput series and no throughput in its summary (a
    comparison reads the series)."""
    run_id = create_run(
        lib, RunSpec(pair, "iperf3", {"time": "5"}, label=label), started_at=time.time() - 600
    )
    recorder = Recorder(lib, run_id)
    recorder.add(
        [
            Record("sum", (i + 1) * 0.5, (METRIC,), (base + ((i * 7919) % 13) * 2.9e6,))
            for i in range(samples)
        ]
    )
    recorder.flush()
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={"retransmits": 1.0}, complete=True)
    return run_id


@dataclass
class Team:
    bob: Path  # bob's library: his run 1, published too
    alice: Path
    alice_runs: list[int]
    alice_uuids: list[str]
    bob_uuid: str


@pytest.fixture
def libraries(team_server: TeamServer, tmp_path: Path) -> Iterator[Team]:
    db = f"t_{uuid.uuid4().hex[:10]}"
    team_server.create_database(db)
    alice = tmp_path / "alice.sqlite"
    with Library.open(alice) as lib:
        team.connect(lib, team_server.url("alice", dbname=db), name="alice", auto=False)
        ids = [
            _make_run(lib, "zone-b", "candidate", 11, 1.2e9),
            _make_run(lib, "zone-c", "other", 9, 0.8e9),
        ]
        assert team.push(lib, ids).pushed == ids
        uuids = [local.run_uuid(lib, i) for i in ids]
    bob = tmp_path / "bob.sqlite"
    with Library.open(bob) as lib:
        team.connect(lib, team_server.url("bob", dbname=db), name="bob", auto=False)
        mine = _make_run(lib, "zone-a", "baseline", 8, 1.0e9)
        assert team.push(lib, [mine]).pushed == [mine]
        bob_uuid = local.run_uuid(lib, mine)
    yield Team(bob, alice, ids, uuids, bob_uuid)


def _select_uuids(view: LibraryView, uuids: list[str]) -> None:
    """Select the Team list's rows of these runs."""
    view.table.clearSelection()
    selection = view.table.selectionModel()
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    for row, run in enumerate(view.model.runs()):
        origin = view.model.origin_of(run.id)
        if origin is not None and origin.uuid in uuids:
            selection.select(view.model.index(row, 0), flags)
    assert len(view.selected_runs()) == len(uuids)


def test_a_local_run_and_a_team_run_compared_in_the_window(
    qtbot: QtBot, libraries: Team, tmp_path: Path
) -> None:
    from pairbench.ui.compare.view import CompareView
    from pairbench.ui.main_window import MainWindow

    shots = Path(os.environ.get(SHOTS_ENV) or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    # What the services compute for each run, in the library it was recorded in.
    with Library.open(libraries.bob) as lib:
        want_bob = compare_inputs(lib, [1])
    with Library.open(libraries.alice) as lib:
        want_alice = compare_inputs(lib, libraries.alice_runs[:1])
    series_means = [
        float(np.mean(next(s.v for s in item.series if s.metric == METRIC)))
        for item in (*want_bob, *want_alice)
    ]

    bridge = EngineBridge(libraries.bob)
    library = Library.open(libraries.bob)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(bridge, library, settings)
    window.ask_before_closing = False
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    try:
        view = window.runs_view
        qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not view.filters.source_combo.isHidden(), timeout=WAIT_MS)
        # This computer: pin bob's run.
        view.table.selectAll()
        view.editor.pin_button.click()
        assert view.tray.refs() == [1] and not view.tray.isHidden()
        # Team: alice's first run pinned from the context menu; it survives the switch.
        with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
            view.filters.source_combo.setCurrentIndex(1)
        assert view.model.rowCount() == 3  # alice's two and bob's own, published
        assert view.tray.refs() == [1]
        _select_uuids(view, libraries.alice_uuids[:1])
        menu = view.pins.context_menu()
        [add] = [a for a in menu.actions() if a.text() == "Add to comparison"]
        add.trigger()
        alice_row = view.model.row_of(view.selected_runs()[0].id)
        assert alice_row is not None
        server_id = view.model.run_at(alice_row).id
        team_name = f"#{team_compare_id(server_id)}"
        assert (
            view.tray.label.text() == f"Comparing: #1 (this computer) · {team_name} (team, alice)"
        )
        # A Refresh keeps the pins.
        with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
            view.refresh_button.click()
        assert len(view.tray.pins()) == 2
        # bob's own run picked again, as the team list shows it: compared once.
        _select_uuids(view, [libraries.bob_uuid])
        assert view.tray.grab().save(str(shots / "compare-tray.png"))
        assert window.grab().save(str(shots / "compare-tray-window.png"))
        view.tray.compare_button.click()
        qtbot.waitUntil(lambda: len(window.compare_windows) == 1, timeout=WAIT_MS)
        assert "compared once" in view.message.text()
        shown = window.compare_windows[0]
        assert isinstance(shown, CompareView)
        assert [i.run.id for i in shown.inputs] == [1, team_compare_id(server_id)]
        assert [i.ran_by for i in shown.inputs] == ["bob", "alice"]
        # The team run is named as one: #-N in the groups, its UUID and who ran it above.
        assert "from the team library" in shown.windowTitle()
        origins = shown.origins.text()
        assert not shown.origins.isHidden()
        assert f"{team_name}: team run {libraries.alice_uuids[0]}, ran by alice" in origins
        assert "#1: this computer's run, ran by bob" in origins
        # Its values: what the services compute from each run's series.
        shown.metric_box.setCurrentIndex(shown.metric_box.findData(METRIC))
        shown.group_box.setCurrentIndex(shown.group_box.findData("run"))
        got = shown.comparison
        as_team = [
            dataclasses.replace(i, run=dataclasses.replace(i.run, id=team_compare_id(server_id)))
            for i in want_alice
        ]
        want = compare([*want_bob, *as_team], metric=METRIC, group_by=GroupBy.parse("run"))
        assert got is not None and got.metric.name == METRIC
        assert [g.name.split()[0] for g in got.groups] == ["#1", team_name]
        assert [g.stats for g in got.groups] == [g.stats for g in want.groups]
        values = [[v.value for v in g.values] for g in got.groups]
        assert values == [[v.value for v in g.values] for g in want.groups]
        assert [v[0] for v in values] == pytest.approx(series_means, rel=1e-12)
        shown.resize(1300, 900)
        assert shown.grab().save(str(shots / "compare-mixed.png"))
        for w in window.compare_windows:
            w.close()
    finally:
        window.close()
        bridge.shutdown()
        library.close()
