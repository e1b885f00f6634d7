"""The Library tab's comparison tray: pinning runs (button, context menu, Ctrl+D), what the
bar says, Compare of the pinned runs and the selection (each run once), Clear and Remove, a
pinned run deleted meanwhile (real bridge and SQLite; team runs as the Team list hands them)."""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from pairbench.analysis.compare_runs import RunInput
from pairbench.domain import Run, RunSpec, RunStatus
from pairbench.library import Library, LibraryError
from pairbench.library.runs import create_run, delete_runs, finish_run, get_run
from pairbench.library.team import local
from pairbench.services.compare_refs import TeamRef, team_compare_id
from pairbench.services.team_browser import Published
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.compare.loading import origins_text
from pairbench.ui.library.compare_pins import ADD_SHORTCUT
from pairbench.ui.library.compare_tray import (
    SPELLED_OUT,
    TEAM_IDS_NOTE,
    CompareTray,
    Pinned,
    summary_text,
)
from pairbench.ui.library.library_view import LibraryView

WAIT_MS = 10_000


@pytest.fixture
def bridge(library: Library, library_path: Path) -> Iterator[EngineBridge]:
    engine = EngineBridge(library_path)
    try:
        yield engine
    finally:
        engine.shutdown()


def _store(lib: Library, label: str, age_s: float = 0.0) -> int:
    started = time.time() - 1000 + age_s
    run_id = create_run(lib, RunSpec("local", "iperf3", {}, label=label), started_at=started)
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={}, complete=True, ended_at=started + 5)
    return run_id


@pytest.fixture
def runs(library: Library) -> list[int]:
    """Three runs of this computer, the first oldest."""
    return [_store(library, f"run {k}", age_s=10.0 * k) for k in range(3)]


def _team_pin(server_id: int, ran_by: str, uid: str | None = None, label: str = "") -> Pinned:
    """A team run as the Team list hands it (the run listed, where it comes from)."""
    run = Run(
        id=server_id,
        spec=RunSpec("zone-a", "iperf3", {}, label=label),
        status=RunStatus.COMPLETED,
        started_at=time.time(),
    )
    published = Published(uid or str(uuid.uuid4()), ran_by, f"{ran_by}-laptop", time.time())
    return Pinned(TeamRef(published.uuid, run, published), run)


def _view(qtbot: QtBot, bridge: EngineBridge, rows: int) -> LibraryView:
    view = LibraryView(bridge)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.model.rowCount() == rows, timeout=WAIT_MS)
    return view


def _select(view: LibraryView, run_ids: list[int]) -> None:
    view.table.clearSelection()
    for run_id in run_ids:
        row = view.model.row_of(run_id)
        assert row is not None
        view.table.selectionModel().select(
            view.model.index(row, 0),
            view.table.selectionModel().SelectionFlag.Select
            | view.table.selectionModel().SelectionFlag.Rows,
        )


def test_the_bar_names_each_run_by_source_and_counts_when_there_are_many(qtbot: QtBot) -> None:
    tray = CompareTray()
    qtbot.addWidget(tray)
    assert tray.isHidden()  # nothing pinned: no bar
    here = Run(12, RunSpec("local", "iperf3", {}), RunStatus.COMPLETED, time.time())
    alice, carol = _team_pin(3, "alice", label="night"), _team_pin(7, "carol")
    pins = [Pinned(here.id, here), alice, carol]
    assert tray.add(pins) == pins
    assert tray.add([Pinned(here.id, here)]) == []  # pinned once
    assert not tray.isHidden()
    text = tray.label.text()
    assert text == summary_text(tray.pins())
    assert f"#{here.id} (this computer)" in text
    assert f"#{team_compare_id(alice.run.id)} (team, alice)" in text
    assert f"#{team_compare_id(carol.run.id)} (team, carol)" in text
    tip = tray.label.toolTip().splitlines()
    assert tip == [*(p.describe() for p in pins), TEAM_IDS_NOTE]
    assert "team run of alice" in tip[1] and alice.run.label in tip[1]
    # One entry per run in the Remove menu; removing one keeps the others in order.
    actions = tray.remove_menu.actions()
    assert [a.text() for a in actions] == tip[:-1]
    actions[1].trigger()
    assert [p.key for p in tray.pins()] == [pins[0].key, pins[2].key]
    # Many runs: counts, each still in the tooltip.
    more = [_team_pin(20 + k, "alice") for k in range(SPELLED_OUT)]
    tray.add(more)
    team = [p for p in tray.pins() if p.team]
    assert tray.label.text() == (
        f"Comparing {len(tray.pins())} runs: 1 of this computer · {len(team)} of the team "
        "(carol, alice)"
    )
    assert len(tray.label.toolTip().splitlines()) == len(tray.pins()) + 1
    tray.clear_button.click()
    assert tray.pins() == [] and tray.isHidden()


def test_pinned_runs_and_the_selection_are_compared_once_each(
    qtbot: QtBot, bridge: EngineBridge, runs: list[int]
) -> None:
    view = _view(qtbot, bridge, len(runs))
    assert view.tray.isHidden()
    _select(view, runs[:2])
    view.editor.pin_button.click()
    assert [p.ref for p in view.tray.pins()] == [runs[1], runs[0]]  # table order: newest first
    assert not view.tray.isHidden() and "Added" in view.message.label.text()
    # A Refresh keeps them; a team run joins (as the Team list would hand it).
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.refresh_button.click()
    team = _team_pin(5, "alice")
    view.tray.add([team])
    assert len(view.tray.pins()) == 3
    # Compare: the pinned runs, then the selection without the one pinned already.
    _select(view, [runs[0], runs[2]])
    with qtbot.waitSignal(view.compareRequested, timeout=WAIT_MS) as sent:
        view.compare_button.click()
    assert sent.args == [[runs[1], runs[0], team.ref, runs[2]]]
    # The tray's own Compare does the same.
    with qtbot.waitSignal(view.compareRequested, timeout=WAIT_MS) as again:
        view.tray.compare_button.click()
    assert again.args == sent.args


def test_nothing_pinned_compares_the_selection_as_before(
    qtbot: QtBot, bridge: EngineBridge, runs: list[int]
) -> None:
    view = _view(qtbot, bridge, len(runs))
    got: list[list[object]] = []
    view.compareRequested.connect(got.append)
    view.table.selectAll()
    view.compare_button.click()  # at once, no library read first
    assert got == [[view.model.run_at(r).id for r in range(len(runs))]]
    _select(view, [runs[0]])
    view.compare_button.click()
    assert len(got) == 1 and "two or more" in view.message.label.text()


def test_a_team_copy_of_a_pinned_local_run_counts_once(
    qtbot: QtBot, bridge: EngineBridge, library: Library, runs: list[int]
) -> None:
    view = _view(qtbot, bridge, len(runs))
    mine = local.run_uuid(library, runs[0])  # the UUID it is published under
    copy = _team_pin(9, "bob", uid=mine.upper())
    other = _team_pin(10, "alice")
    _select(view, [runs[0]])
    view.pins.add_selected()
    view.tray.add([copy, other])
    view.table.clearSelection()
    with qtbot.waitSignal(view.compareRequested, timeout=WAIT_MS) as sent:
        view.tray.compare_button.click()
    assert sent.args == [[runs[0], other.ref]]
    text = view.message.label.text()
    assert f"#{runs[0]}" in text and "compared once" in text


def test_a_pinned_run_deleted_meanwhile_is_said_and_taken_off(
    qtbot: QtBot,
    bridge: EngineBridge,
    library: Library,
    runs: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    view = _view(qtbot, bridge, len(runs))
    _select(view, runs)
    view.pins.add_selected()
    delete_runs(library, [runs[0]])  # elsewhere (the CLI): the view does not know
    view.table.clearSelection()
    with qtbot.waitSignal(view.compareRequested, timeout=WAIT_MS) as sent:
        view.tray.compare_button.click()
    assert sorted(sent.args[0]) == sorted(runs[1:])
    assert f"#{runs[0]}" in view.message.label.text()
    assert "deleted" in view.message.label.text()
    assert runs[0] not in view.tray.refs()
    # Two left; one of them deleted too: nothing to compare, said, no crash.
    delete_runs(library, [runs[1]])
    emitted: list[object] = []
    view.compareRequested.connect(emitted.append)
    view.tray.compare_button.click()
    qtbot.waitUntil(lambda: "Fewer than two" in view.message.label.text(), timeout=WAIT_MS)
    assert emitted == [] and view.tray.refs() == [runs[2]]
    # Deleting a pinned run from the view takes it off at once.
    qtbot.waitUntil(lambda: view.model.rowCount() >= 1, timeout=WAIT_MS)
    _select(view, [runs[2]])
    monkeypatch.setattr(QMessageBox, "question", lambda *_a, **_k: QMessageBox.StandardButton.Yes)
    with qtbot.waitSignal(view.deleted, timeout=WAIT_MS):
        view.delete_button.click()
    assert view.tray.refs() == [] and view.tray.isHidden()
    with pytest.raises(LibraryError, match="no run"):
        get_run(library, runs[2])


def test_the_context_menu_and_the_shortcut_pin_and_unpin(
    qtbot: QtBot, bridge: EngineBridge, runs: list[int]
) -> None:
    view = _view(qtbot, bridge, len(runs))
    _select(view, [runs[1]])
    menu = view.pins.context_menu()
    texts = [a.text() for a in menu.actions() if a.text()]
    assert texts == ["Open", "Analyse burst credits", "Compare", "Add to comparison"]
    assert view.pins.add_action.shortcut() == QKeySequence(ADD_SHORTCUT)
    view.table.setFocus()
    qtbot.waitUntil(view.table.hasFocus, timeout=WAIT_MS)
    QTest.keyClick(view.table, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    assert view.tray.refs() == [runs[1]]
    menu = view.pins.context_menu()
    texts = [a.text() for a in menu.actions() if a.text()]
    assert texts == [
        "Open",
        "Analyse burst credits",
        "Compare with the pinned runs",
        "Add to comparison",
        "Remove from comparison",
    ]
    view.pins.remove_action.trigger()
    assert view.tray.refs() == [] and view.tray.isHidden()


def test_a_mixed_comparison_says_where_each_run_comes_from() -> None:
    team = _team_pin(4, "alice")
    assert isinstance(team.ref, TeamRef) and team.ref.published is not None
    published = team.ref.published
    compared = dataclasses.replace(team.run, id=team_compare_id(team.run.id))
    here = [Run(k, RunSpec("local", "iperf3", {}), RunStatus.COMPLETED, 0.0) for k in (2, 7)]
    inputs = [RunInput(here[0]), RunInput(compared, ran_by="alice"), RunInput(here[1])]
    lines = origins_text(inputs, {compared.id: published}, "bob").splitlines()
    assert lines == [
        f"#{compared.id}: team run {published.uuid}, ran by alice on {published.origin}",
        f"#{here[0].id}, #{here[1].id}: this computer's runs, ran by bob",
    ]
