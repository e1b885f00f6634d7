"""Refreshes that come faster than a page loads (a slow library or team server) still show
the list and do not pile up: a refresh while the same first page is on its way reads it once
more after it (not once per refresh); a page of another source or query is never shown."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from pairbench.domain import RunSpec, RunStatus
from pairbench.library import Library
from pairbench.library.runs import create_run, finish_run
from pairbench.services.run_browser import RunPage, browse_runs
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library import runs_list
from pairbench.ui.library.library_view import LibraryView

WAIT_MS = 10_000
LOAD_S = 0.05  # each page load takes this long: five 10 ms polls
LOADS: list[int] = []  # the offset of each page load started


def _add_run(lib: Library, label: str) -> int:
    run_id = create_run(lib, RunSpec("local", "ping", {}, label=label))
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={"rtt_avg_ms": 1.0}, complete=True)
    return run_id


@pytest.fixture
def slow_view(
    qtbot: QtBot, library: Library, library_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LibraryView]:
    """The Library view over a library whose page loads take ``LOAD_S``."""

    def slow(*args: Any, **kwargs: Any) -> RunPage:
        LOADS.append(kwargs.get("offset", 0))
        time.sleep(LOAD_S)  # on the engine thread, as a slow server's answer
        return browse_runs(*args, **kwargs)

    monkeypatch.setattr(runs_list, "browse_runs", slow)
    LOADS.clear()
    _add_run(library, "first")
    bridge = EngineBridge(library_path)
    view = LibraryView(bridge)
    qtbot.addWidget(view)
    try:
        qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=WAIT_MS)
        yield view
    finally:
        bridge.shutdown()


def test_refreshes_faster_than_a_load_still_show_the_new_runs(
    qtbot: QtBot, library: Library, slow_view: LibraryView
) -> None:
    _add_run(library, "second")
    refreshes = 0

    def shown() -> bool:
        nonlocal refreshes
        if slow_view.model.rowCount() == 2:
            return True
        refreshes += 1
        slow_view.refresh()  # every poll (10 ms): a newer load before the last one ends
        return False

    qtbot.waitUntil(shown, timeout=WAIT_MS)
    assert refreshes >= 2  # the list was shown while refreshes kept coming
    assert sorted(r.label for r in slow_view.model.runs()) == ["first", "second"]


def test_a_page_of_another_query_on_its_way_is_not_shown(
    qtbot: QtBot, library: Library, slow_view: LibraryView
) -> None:
    _add_run(library, "second")
    slow_view.filters.search_edit.setText("first")
    slow_view.refresh()  # the runs labelled "first" asked for ...
    slow_view.filters.search_edit.setText("second")
    with qtbot.waitSignal(slow_view.refreshed, timeout=WAIT_MS):
        slow_view.refresh()  # ... then only "second": the first answer is not shown
    qtbot.wait(int(3 * LOAD_S * 1000))  # any answer still on its way arrives
    assert [r.label for r in slow_view.model.runs()] == ["second"]


def test_a_burst_of_refreshes_reads_the_page_twice_at_most(
    qtbot: QtBot, library: Library, slow_view: LibraryView
) -> None:
    _add_run(library, "second")
    LOADS.clear()
    with qtbot.waitSignal(slow_view.refreshed, timeout=WAIT_MS):
        for _ in range(20):
            slow_view.refresh()  # one load starts; the 19 others ask for one more after it
    qtbot.waitUntil(lambda: len(LOADS) == 2, timeout=WAIT_MS)
    qtbot.wait(int(3 * LOAD_S * 1000))  # nothing more starts
    assert LOADS == [0, 0]
    assert sorted(r.label for r in slow_view.model.runs()) == ["first", "second"]
