"""The Library tab at scale: pages loaded as the table scrolls, order kept by the library, and a
refresh that changes rows, never resets the table (real bridge and SQLite)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from pairbench.domain import RunSpec, RunStatus
from pairbench.library import Library
from pairbench.library.runs import create_run, finish_run, list_runs
from pairbench.services.run_browser import PAGE_SIZE
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.library_view import LibraryView
from pairbench.ui.library.runs_model import ID, PAIR, RESULT

WAIT_MS = 15_000
RUNS = 2 * PAGE_SIZE + 50
PAIRS = ("c-pair", "a-pair", "b-pair")


def _fill(lib: Library, count: int) -> list[int]:
    """``count`` finished runs a minute apart, on three pairs; their ids, oldest first."""
    start = time.time() - count * 60
    ids = []
    lib.conn.execute("BEGIN")
    for k in range(count):
        spec = RunSpec(PAIRS[k % 3], "iperf3", {"duration": "5"}, label=f"run {k}")
        run_id = create_run(lib, spec, started_at=start + 60 * k)
        finish_run(
            lib, run_id, RunStatus.COMPLETED, summary={"throughput_bps": 1e9 + k}, complete=True
        )
        ids.append(run_id)
    lib.conn.execute("COMMIT")
    return ids


@pytest.fixture
def view(qtbot: QtBot, library: Library, library_path: Path) -> Iterator[LibraryView]:
    _fill(library, RUNS)
    bridge = EngineBridge(library_path)
    widget = LibraryView(bridge)
    qtbot.addWidget(widget)
    widget.resize(1200, 700)
    widget.show()
    try:
        qtbot.waitUntil(lambda: widget.model.rowCount() > 0, timeout=WAIT_MS)
        yield widget
    finally:
        bridge.shutdown()


def _ids(view: LibraryView) -> list[int]:
    return [view.model.run_at(row).id for row in range(view.model.rowCount())]


def test_the_first_page_loads_then_more_as_the_table_scrolls(
    qtbot: QtBot, view: LibraryView, library: Library
) -> None:
    assert view.model.rowCount() == PAGE_SIZE  # not all 450 at once
    assert view.model.total == RUNS
    assert view.count_label.text() == f"{RUNS} runs"
    for pages in (2, 3):
        view.table.scrollToBottom()  # the view asks the model for more at the end
        expected = min(RUNS, pages * PAGE_SIZE)
        qtbot.waitUntil(lambda n=expected: view.model.rowCount() == n, timeout=WAIT_MS)
    newest_first = [run.id for run in list_runs(library)]
    assert _ids(view) == newest_first  # pages joined in the library's order, none twice
    assert not view.model.canFetchMore()


def test_a_header_click_sorts_in_the_library(
    qtbot: QtBot, view: LibraryView, library: Library
) -> None:
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.table.sortByColumn(PAIR, Qt.SortOrder.AscendingOrder)
    shown = [view.model.run_at(row) for row in range(view.model.rowCount())]
    assert [run.spec.pair for run in shown[:3]] == ["a-pair"] * 3
    assert len(shown) == PAGE_SIZE
    # The first page of the whole library in that order, not a sort of what was loaded.
    assert {run.spec.pair for run in shown} == {"a-pair", "b-pair"}
    before = _ids(view)
    view.table.sortByColumn(RESULT, Qt.SortOrder.AscendingOrder)  # no order in SQL: kept
    qtbot.wait(200)
    assert _ids(view) == before
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.table.sortByColumn(ID, Qt.SortOrder.AscendingOrder)
    assert _ids(view)[:3] == [1, 2, 3]


def test_a_refresh_while_runs_record_changes_rows_and_never_resets(
    qtbot: QtBot, view: LibraryView, library: Library
) -> None:
    model = view.model
    resets: list[bool] = []
    inserted: list[tuple[int, int]] = []
    removed: list[tuple[int, int]] = []
    changed: list[int] = []
    model.modelReset.connect(lambda: resets.append(True))
    model.rowsInserted.connect(lambda _p, first, last: inserted.append((first, last)))
    model.rowsRemoved.connect(lambda _p, first, last: removed.append((first, last)))
    model.dataChanged.connect(
        lambda top, _bottom, _roles=(): changed.append(model.run_at(top.row()).id)
    )
    third = model.run_at(2)
    view.select_run(third.id)
    # A run starts (newest: the top row) and the third run's label changes elsewhere.
    new_id = create_run(library, RunSpec("b-pair", "ping", {}), started_at=time.time())
    library.conn.execute("UPDATE runs SET label = 'relabelled' WHERE id = ?", (third.id,))
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.refresh()
    assert resets == []
    assert inserted == [(0, 0)] and model.run_at(0).id == new_id
    assert removed == [(PAGE_SIZE - 1, PAGE_SIZE - 1)]  # the page keeps its size: the last goes
    assert changed == [third.id]  # only the relabelled run's row was repainted
    assert model.run_at(3).label == "relabelled"
    assert view.selected_runs()[0].id == third.id  # the selection followed its run
    assert model.total == RUNS + 1
    # Nothing changed: a refresh touches no row.
    inserted.clear(), removed.clear(), changed.clear()
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.refresh()
    assert (resets, inserted, removed, changed) == ([], [], [], [])


def test_a_new_filter_starts_over_from_the_first_page(qtbot: QtBot, view: LibraryView) -> None:
    view.table.scrollToBottom()
    qtbot.waitUntil(lambda: view.model.rowCount() == 2 * PAGE_SIZE, timeout=WAIT_MS)
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.pair_combo.setCurrentIndex(view.pair_combo.findData("a-pair"))
    assert view.model.total == RUNS // 3
    assert view.model.rowCount() == RUNS // 3  # 150: one page holds them all
    assert {view.model.run_at(r).spec.pair for r in range(view.model.rowCount())} == {"a-pair"}
    assert view.count_label.text() == f"{RUNS // 3} runs match the filters"
