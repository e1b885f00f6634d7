"""The compare view: 6 runs (3 repeats on each of 2 shapes) → overlay, summary, table, diff."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from compare_runs import store_run, two_shapes
from pairbench.library import Library
from pairbench.services.compare import compare_inputs
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.compare.loading import CompareLoad, open_compare
from pairbench.ui.compare.view import CompareView
from testkit import REPO


def _cells(view) -> list[list[str]]:  # type: ignore[no-untyped-def]
    return [
        [view.item(r, c).text() for c in range(view.columnCount())] for r in range(view.rowCount())
    ]


def _headers(view) -> list[str]:  # type: ignore[no-untyped-def]
    return [view.horizontalHeaderItem(c).text() for c in range(view.columnCount())]


def test_six_runs_on_two_shapes(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    a, b = two_shapes(library, seconds=20)
    view = CompareView(compare_inputs(library, a + b))
    qtbot.addWidget(view)
    view.resize(1300, 900)
    view.show()
    qtbot.waitExposed(view)
    assert view.comparison is not None and len(view.comparison.groups) == 6  # per run first
    with qtbot.waitSignal(view.compared):
        view.group_box.setCurrentIndex(view.group_box.findData("pair"))
    cmp = view.comparison
    assert [g.name for g in cmp.groups] == ["same-zone", "cross-zone"]
    # Overlay: one curve per run in its group's colour; summary: a mean with CI per group.
    assert view.chart is not None and len(view.chart.curve_items) == 6
    assert view.chart.summary_plot is not None
    # The comparison table, like the field reports' conclusion.
    headers = _headers(view.table_view)
    rows = _cells(view.table_view)
    assert headers[:3] == ["Environment", "Test", "n"]
    assert [r[0] for r in rows] == ["same-zone", "cross-zone"]
    assert rows[0][headers.index("Throughput") + 1] == "baseline"
    assert re.fullmatch(r"-\d+\.\d %", rows[1][headers.index("Throughput") + 1])
    # Statistics with the 95 % CI, Welch, and what differs.
    assert any("95 % CI" in h for h in _headers(view.stats_view))
    assert _cells(view.welch_view)[0][0] == "cross-zone − same-zone"
    diff = {row[0]: row[1:] for row in _cells(view.diff_view)}
    assert diff["client kernel"] == ["6.1.0-18-amd64", "6.1.0-21-amd64"]
    assert diff["client mtu"] == ["1500", "9001"]
    # The baseline can be switched.
    with qtbot.waitSignal(view.compared):
        view.baseline_box.setCurrentIndex(1)
    assert view.comparison.baseline == "cross-zone"
    assert _cells(view.table_view)[1][headers.index("Throughput") + 1] == "baseline"
    # Exports: all three chart formats and the Markdown table.
    view.width_box.setValue(1000)
    view.height_box.setValue(600)
    for name in ("c.png", "c.svg", "c.pdf", "t.md", "t.csv", "t.html"):
        path = tmp_path / name
        if name.startswith("c."):
            view.export_chart(path)
        else:
            view.export_table(path)
        assert path.stat().st_size > 500, name
    assert (tmp_path / "t.md").read_text().startswith("# Throughput (Mbit/s), grouped by pair")
    out = REPO / "test-output"
    out.mkdir(exist_ok=True)
    view.grab().save(str(out / "compare-view.png"))


def test_outlier_policy_lists_discards(qtbot: QtBot, library: Library) -> None:
    ids = [
        store_run(library, label="m1.medium", summary={"throughput_bps": v * 1e6}, started_at=i)
        for i, v in enumerate([941.0, 938.0, 610.0, 944.0, 940.0])
    ]
    view = CompareView(compare_inputs(library, ids))
    qtbot.addWidget(view)
    view.group_box.setCurrentIndex(view.group_box.findData("label"))
    assert view.comparison is not None and view.comparison.discarded == ()
    with qtbot.waitSignal(view.compared):
        view.outlier_box.setCurrentIndex(view.outlier_box.findData("mad"))
    assert view.k_box.isEnabled() and view.k_box.value() == 3.0
    assert [d.run_id for d in view.comparison.discarded] == [ids[2]]
    assert f"run {ids[2]}" in view.status.text()
    assert _cells(view.stats_view)[0][-1] == f"#{ids[2]}"
    with qtbot.waitSignal(view.compared):
        view.k_box.setValue(200.0)  # 200 × MAD (≈ 3 Mbit/s) reaches 610 Mbit/s
    assert view.comparison.discarded == ()
    with qtbot.waitSignal(view.compared):
        view.outlier_box.setCurrentIndex(view.outlier_box.findData("iqr"))
    assert view.k_box.value() == 1.5 and len(view.comparison.discarded) == 1


def test_clipboard_and_window(qtbot: QtBot, library: Library, library_path: Path) -> None:
    a, b = two_shapes(library, seconds=5)
    bridge = EngineBridge(library_path)
    parent = QWidget()
    qtbot.addWidget(parent)
    try:
        load = CompareLoad(bridge, a + b, parent)
        steps: list[tuple[int, int]] = []
        load.progressed.connect(lambda done, total: steps.append((done, total)))
        with qtbot.waitSignal(load.opened, timeout=20_000):
            load.start()
        # The runs were read on the engine thread, one by one, then the window opened.
        assert steps[-1] == (6, 6) and len(steps) == 6
        view = load.view
        assert view is not None  # a child window of parent, deleted when it closes
        view.dpi_box.setValue(48)
        view.copy_chart()
        image = QApplication.clipboard().image()
        assert not image.isNull() and image.width() == 600  # 1200 px at 48/96
        view.copy_table()
        assert QApplication.clipboard().text().startswith("# Throughput")
        assert "Compare 6 runs" in view.windowTitle()
        view.close()
    finally:
        bridge.shutdown()


def test_a_cancelled_load_opens_nothing(qtbot: QtBot, library: Library, library_path: Path) -> None:
    a, b = two_shapes(library, seconds=5)
    bridge = EngineBridge(library_path)
    parent = QWidget()
    qtbot.addWidget(parent)
    gate = threading.Event()

    async def busy(_lib: Library) -> None:
        gate.wait(10)  # the engine is busy: the load waits behind this job

    try:
        bridge.submit(busy)
        load = CompareLoad(bridge, a + b, parent)
        opened: list[object] = []
        steps: list[int] = []
        load.opened.connect(opened.append)
        load.progressed.connect(lambda done, _total: steps.append(done))
        load.start()
        load.cancel()  # the user's Cancel, before the engine reached the load
        gate.set()
        assert load.future is not None
        qtbot.waitUntil(load.future.done, timeout=20_000)
        qtbot.wait(100)  # let any queued delivery reach the GUI thread
        assert load.cancelled and opened == [] and load.view is None and steps == []
        assert load.future.result() is None  # no run was read
    finally:
        gate.set()
        bridge.shutdown()


def test_a_missing_run_says_so(qtbot: QtBot, library: Library, library_path: Path) -> None:
    bridge = EngineBridge(library_path)
    parent = QWidget()
    qtbot.addWidget(parent)
    try:
        load = open_compare(bridge, [4242], parent)
        with qtbot.waitSignal(load.failed, timeout=20_000) as failed:
            pass
        assert "4242" in failed.args[0] and load.view is None
        assert load.message is not None
        load.message.close()
    finally:
        bridge.shutdown()
