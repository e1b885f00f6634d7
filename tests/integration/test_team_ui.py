"""The Library tab's "Team" source against a real PostgreSQL server: alice publishes runs from
her library, bob's window lists them with who ran them, filters them, keeps them read-only and
opens one with its series fetched from the server once; a server out of reach is said in the
message bar while the window stays usable."""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from pairbench.domain import Line, LineSource, Record, RunSpec, RunStatus
from pairbench.library import Library, Recorder
from pairbench.library.analyses import store_analysis
from pairbench.library.runs import create_run, finish_run, list_runs
from pairbench.library.series import load_series
from pairbench.library.team import local
from pairbench.services import team
from pairbench.services.run_browser import load_run_detail
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.library_view import LibraryView
from pairbench.ui.library.runs_model import COLUMNS, LABEL, PAIR, RAN_BY
from teamkit import TeamServer

WAIT_MS = 20_000
PAIRS = ("zone-a", "zone-b")
SHOTS_ENV = "PAIRBENCH_SHOTS"  # a folder to keep the screenshots in (else the test's own)


# libpq finds each role's password in a ~/.pgpass of the test's own (teamkit).
pytestmark = pytest.mark.usefixtures("team_passwords")


def _make_run(lib: Library, pair: str, label: str, started_at: float, samples: int) -> int:
    """A finished iperf3 run with a throughput series, made through the library's API."""
    run_id = create_run(
        lib, RunSpec(pair, "iperf3", {"time": "5"}, label=label), started_at=started_at
    )
    recorder = Recorder(lib, run_id)
    recorder.add(
        [
            Record("sum", (i + 1) * 0.5, ("throughput_bps",), (1e9 + i * 1e6,))
            for i in range(samples)
        ]
    )
    recorder.add_line(Line(LineSource.CLIENT_OUT, f"[SUM] {label}: {samples} intervals", 0.0))
    recorder.flush()
    finish_run(
        lib, run_id, RunStatus.COMPLETED, summary={"throughput_bps": 1e9 + samples}, complete=True
    )
    store_analysis(lib, run_id, "note", {"samples": samples, "label": label})
    return run_id


@pytest.fixture
def libraries(team_server: TeamServer, tmp_path: Path) -> Iterator[tuple[Library, Path]]:
    """alice's library, its runs published to a fresh team library; bob's library path,
    connected to it, with a run of his own that is not published."""
    db = f"t_{uuid.uuid4().hex[:10]}"
    team_server.create_database(db)
    alice = Library.open(tmp_path / "alice.sqlite")
    team.connect(alice, team_server.url("alice", dbname=db), name="alice", auto=False)
    now = time.time() - 3600
    for k in range(6):
        _make_run(alice, PAIRS[k % 2], f"alice run {k}", now + 60 * k, samples=10 + k)
    result = team.push(alice, every=True)
    assert result.error == "" and len(result.pushed) == 6
    bob_path = tmp_path / "bob.sqlite"
    with Library.open(bob_path) as bob:
        team.connect(bob, team_server.url("bob", dbname=db), name="bob", auto=False)
        _make_run(bob, "bob-only", "bob's own", now, samples=5)
    try:
        yield alice, bob_path
    finally:
        alice.close()


def _view(qtbot: QtBot, path: Path) -> tuple[LibraryView, EngineBridge]:
    bridge = EngineBridge(path)
    view = LibraryView(bridge)
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    qtbot.waitUntil(lambda: view.model.rowCount() > 0 or "No runs" in view.count_label.text())
    return view, bridge


def _switch(qtbot: QtBot, view: LibraryView, team_source: bool) -> None:
    qtbot.waitUntil(lambda: not view.filters.source_combo.isHidden(), timeout=WAIT_MS)
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.filters.source_combo.setCurrentIndex(1 if team_source else 0)


def _labels(view: LibraryView) -> list[str]:
    return [view.model.run_at(row).label for row in range(view.model.rowCount())]


def _cell(view: LibraryView, row: int, column: int) -> object:
    return view.model.data(view.model.index(row, column))


def test_the_team_source_lists_filters_and_keeps_the_other_users_runs_read_only(
    qtbot: QtBot, libraries: tuple[Library, Path]
) -> None:
    alice, bob_path = libraries
    published = list_runs(alice)  # newest first, as the list shows them
    view, bridge = _view(qtbot, bob_path)
    try:
        assert _labels(view) == ["bob's own"]
        assert view.model.columnCount() == len(COLUMNS)  # no "Ran by" for this computer
        _switch(qtbot, view, True)
        assert _labels(view) == [run.label for run in published]
        assert view.model.headerData(RAN_BY, Qt.Orientation.Horizontal) == "Ran by"
        assert {_cell(view, row, RAN_BY) for row in range(view.model.rowCount())} == {"alice"}
        assert view.table.horizontalHeader().visualIndex(RAN_BY) == PAIR + 1
        assert f"{len(published)} team runs" in view.count_label.text()
        assert "read-only" in view.count_label.text()
        # The pair filter offers the team's pairs (bob has none of them) and applies.
        offered = [view.pair_combo.itemData(i) for i in range(view.pair_combo.count())]
        assert set(PAIRS) <= set(offered) and "bob-only" not in offered
        with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
            view.pair_combo.setCurrentIndex(view.pair_combo.findData(PAIRS[1]))
        assert _labels(view) == [r.label for r in published if r.spec.pair == PAIRS[1]]
        # The search applies on the server too.
        wanted = published[-1].label
        with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
            view.pair_combo.setCurrentIndex(0)
            view.search_edit.setText(wanted)
            view.refresh()
        assert _labels(view) == [wanted]
        assert "1 team run matches the filters" in view.count_label.text()
        # Read-only: nothing to edit or delete; Open and Compare stay.
        view.select_run(view.model.run_at(0).id)
        assert "read-only" in view.editor.selected_label.text()
        for widget in (
            view.label_edit,
            view.tags_edit,
            view.notes_edit,
            view.save_button,
            view.delete_button,
        ):
            assert not widget.isEnabled(), widget
        assert view.open_button.isEnabled() and view.compare_button.isEnabled()
        label_cell = view.model.index(0, LABEL)
        assert not view.model.flags(label_cell) & Qt.ItemFlag.ItemIsEditable
        assert not view.model.setData(label_cell, "renamed")
        # Back to this computer: bob's run, editable, no "Ran by".
        with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
            view.search_edit.clear()
            view.filters.source_combo.setCurrentIndex(0)
        assert _labels(view) == ["bob's own"]
        assert view.model.columnCount() == len(COLUMNS)
        view.select_run(view.model.run_at(0).id)
        assert view.label_edit.isEnabled() and view.delete_button.isEnabled()
        # And back to the team: "Ran by" after Pair again, the rows read again.
        _switch(qtbot, view, True)
        assert view.table.horizontalHeader().visualIndex(RAN_BY) == PAIR + 1
        assert _labels(view) == [run.label for run in published]
    finally:
        bridge.shutdown()


def test_a_team_run_opens_with_its_series_fetched_once(
    qtbot: QtBot, libraries: tuple[Library, Path], team_server: TeamServer
) -> None:
    alice, bob_path = libraries
    newest = list_runs(alice)[0]
    expected = load_series(alice, newest.id)
    view, bridge = _view(qtbot, bob_path)
    try:
        _switch(qtbot, view, True)
        team_id = view.model.run_at(0).id
        assert view.model.run_at(0).label == newest.label
        origin = view.model.origin_of(team_id)
        assert origin is not None and origin.ran_by == "alice"
        view.select_run(team_id)
        with qtbot.waitSignal(view.detail.loaded, timeout=WAIT_MS) as opened:
            view.table.doubleClicked.emit(view.model.index(0, 0))
        detail = opened.args[0]
        assert [(s.stream, s.metric) for s in detail.series] == [
            (s.stream, s.metric) for s in expected
        ]
        for got, want in zip(detail.series, expected, strict=True):
            assert got.t.tobytes() == want.t.tobytes() and got.v.tobytes() == want.v.tobytes()
        assert view.stack.currentWidget() is view.detail
        assert "ran by alice" in view.detail.subtitle.text()
        # Its raw output and analyses come from the server too, as the local detail has them.
        mine = load_run_detail(alice, newest.id)
        assert mine.raw_text and detail.raw_text == mine.raw_text
        assert detail.analyses == mine.analyses == {"note": {"samples": 15, "label": newest.label}}
        assert view.detail.title.text().startswith(f"Team run {team_id}")
        assert not view.detail.again_button.isEnabled()
        assert len(view.detail.plots) == len({s.metric for s in expected})
        # The server loses the run's samples: a second open still shows them (kept in memory).
        url = local.get_setting(alice, local.URL)
        assert url is not None
        with team_server.admin(url.rsplit("/", 1)[1]) as conn:
            conn.execute(
                "DELETE FROM chunks WHERE series_id IN (SELECT s.id FROM series s "
                "JOIN runs r ON r.id = s.run_id WHERE r.uuid = %s::uuid)",
                (origin.uuid,),
            )
        view.show_list()
        with qtbot.waitSignal(view.detail.loaded, timeout=WAIT_MS) as again:
            view.open_selected()
        assert [s.v.tobytes() for s in again.args[0].series] == [s.v.tobytes() for s in expected]
        assert view.team.cache.fetches == 1
    finally:
        bridge.shutdown()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_team_server_out_of_reach_is_said_and_the_window_stays_usable(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "offline.sqlite"
    with Library.open(path) as lib:
        _make_run(lib, "here", "a local run", time.time(), samples=3)
        url = f"postgresql://alice@127.0.0.1:{_closed_port()}/pairbench"
        local.set_setting(lib, local.URL, url)
    view, bridge = _view(qtbot, path)
    try:
        qtbot.waitUntil(lambda: not view.filters.source_combo.isHidden(), timeout=WAIT_MS)
        view.filters.source_combo.setCurrentIndex(1)
        qtbot.waitUntil(lambda: view.message.kind == "error", timeout=WAIT_MS)
        text = view.message.text()
        assert "Cannot list the team library's runs" in text and "cannot reach" in text
        assert view.model.rowCount() == 0  # no rows of this computer under "Team"
        assert "could not be read" in view.count_label.text()
        with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
            view.filters.source_combo.setCurrentIndex(0)
        assert _labels(view) == ["a local run"]
        assert view.message.text() == ""
    finally:
        bridge.shutdown()


def test_screenshot_of_the_team_list(
    qtbot: QtBot, libraries: tuple[Library, Path], tmp_path: Path
) -> None:
    _alice, bob_path = libraries
    shot = Path(os.environ.get(SHOTS_ENV) or tmp_path) / "team-tab.png"
    view, bridge = _view(qtbot, bob_path)
    try:
        _switch(qtbot, view, True)
        view.select_run(view.model.run_at(0).id)
        qtbot.wait(50)
        shot.parent.mkdir(parents=True, exist_ok=True)
        assert view.grab().save(str(shot))
        # At 1280×720 every column of the list is on screen, "Ran by" included.
        header = view.table.horizontalHeader()
        right = header.sectionViewportPosition(RAN_BY) + header.sectionSize(RAN_BY)
        assert header.sectionViewportPosition(RAN_BY) >= 0
        assert right <= view.table.viewport().width()
        with qtbot.waitSignal(view.detail.loaded, timeout=WAIT_MS):
            view.open_selected()
        qtbot.waitUntil(lambda: view.detail.plots and view.detail.plots[0].isVisible())
        qtbot.wait(200)  # the plots lay out and paint
        assert view.grab().save(str(shot.with_name("team-detail.png")))
    finally:
        bridge.shutdown()
