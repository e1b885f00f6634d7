"""The run panel's repeats and queue, for real (ping on this computer): "Runs: 3" runs three
times one after the other with the pause between them; a queue is reordered, an entry removed
and the next one skipped while it is stopped, then it goes on in the new order."""

from __future__ import annotations

import itertools
from pathlib import Path

from pytestqt.qtbot import QtBot
from run_kit import isolated_settings, set_field

from pairbench.library import Library
from pairbench.library.runs import list_runs
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.run.run_panel import RunPanel
from testkit import require_program

WAIT_MS = 30_000
PAUSE_S = 0.5


def _panel(qtbot: QtBot, library_path: Path, tmp_path: Path) -> tuple[RunPanel, EngineBridge]:
    bridge = EngineBridge(library_path)
    panel = RunPanel(bridge, isolated_settings(tmp_path))
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitUntil(lambda: panel.current_pair() is not None, timeout=10_000)
    panel.select_pair("local")
    panel.select_tool("ping")
    set_field(panel, "count", "2")
    set_field(panel, "interval", "0.2")
    return panel, bridge


def test_run_three_times_with_a_pause(
    qtbot: QtBot, library: Library, library_path: Path, tmp_path: Path
) -> None:
    require_program("ping")
    panel, bridge = _panel(qtbot, library_path, tmp_path)
    try:
        panel.queue.pause_box.setValue(PAUSE_S)
        panel.repeat_box.setValue(3)
        panel.run_form.label_edit.setText("three")
        assert panel.start() is not None  # the first starts at once
        qtbot.waitUntil(lambda: panel.queue.done == 3, timeout=WAIT_MS)
        runs = sorted(list_runs(library), key=lambda r: r.started_at)
        assert [r.label for r in runs] == ["three"] * 3
        assert all(r.status.value == "completed" for r in runs)
        for before, after in itertools.pairwise(runs):
            assert before.ended_at is not None
            assert after.started_at >= before.ended_at + PAUSE_S * 0.8  # one after the other
        assert "3 done" in panel.queue.status.text()
    finally:
        bridge.shutdown()


def test_a_stopped_queue_is_reordered_trimmed_then_goes_on(
    qtbot: QtBot, library: Library, library_path: Path, tmp_path: Path
) -> None:
    require_program("ping")
    panel, bridge = _panel(qtbot, library_path, tmp_path)
    try:
        queue = panel.queue
        queue.toggle_stop()  # stopped: nothing starts while we arrange it
        for label in ("a", "b", "c", "d"):
            panel.run_form.label_edit.setText(label)
            assert panel.add_to_queue()
        assert [e.spec.label for e in queue.entries] == ["a", "b", "c", "d"]
        assert queue.current is None and list_runs(library) == []
        queue.move_entry(3, -1)  # d before c
        queue.remove(1)  # drop b
        queue.skip_button.click()  # skip the next one: a
        assert [e.spec.label for e in queue.entries] == ["d", "c"]
        assert queue.list.count() == 2 and queue.list.item(0).text().endswith("— d")
        queue.toggle_stop()  # go on
        qtbot.waitUntil(lambda: queue.done == 2, timeout=WAIT_MS)
        runs = sorted(list_runs(library), key=lambda r: r.started_at)
        assert [r.label for r in runs] == ["d", "c"]
    finally:
        bridge.shutdown()
