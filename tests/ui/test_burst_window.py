"""Burst credits of a stored run from the window (issue 28, point 3): "Analyse burst credits"
in a run's detail and in the Library's menu runs the analysis `pairbench analyze burst ID`
runs and stores it the same way; the detail draws the step and the levels on the throughput
plot and lists the figures readably; a run whose analysis found a step shows burst →
baseline as its headline in the Library and in its summary.

The run is the real capture of a shaped burst (iperf3 through a tbf with a 500 MiB bucket,
``tests/data/fixtures/iperf3/tcp_t12_shaped_burst.out``), imported.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.library import Library
from pairbench.library.analyses import get_analysis
from pairbench.services.importing import import_output
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.library_view import LibraryView
from pairbench.ui.library.run_info import STEP_ROW
from pairbench.ui.library.runs_model import RESULT
from testkit import FIXTURES

WAIT_MS = 15_000
CAPTURE = FIXTURES / "iperf3" / "tcp_t12_shaped_burst.out"
# The capture's receiver intervals: "[  5]   0.00-1.00   sec   111 MBytes   932 Mbits/sec"
INTERVAL = re.compile(
    r"^\[\s*5\]\s+([\d.]+)-([\d.]+)\s+sec\s+\S+ \w?Bytes\s+([\d.]+) (\w)bits/sec\s"
)


@pytest.fixture
def bridge(library: Library, library_path: Path) -> Iterator[EngineBridge]:
    engine = EngineBridge(library_path)
    try:
        yield engine
    finally:
        engine.shutdown()


def _intervals() -> list[tuple[float, float]]:
    """(end of interval, Mbit/s) of the capture's 1-second sender intervals, as printed."""
    scale = {"G": 1000.0, "M": 1.0, "K": 0.001}
    out = []
    for line in CAPTURE.read_text().splitlines():
        m = INTERVAL.match(line)
        if m and 0.9 < float(m.group(2)) - float(m.group(1)) < 1.1:
            out.append((float(m.group(2)), float(m.group(3)) * scale[m.group(4)]))
    return out


def _view(qtbot: QtBot, bridge: EngineBridge) -> LibraryView:
    view = LibraryView(bridge)
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    qtbot.waitUntil(lambda: view.model.rowCount() > 0, timeout=WAIT_MS)
    return view


def test_analyse_from_the_detail_draws_and_stores_what_the_cli_stores(
    qtbot: QtBot, library: Library, bridge: EngineBridge, tmp_path: Path
) -> None:
    run = import_output(library, "iperf3", CAPTURE.read_text(), label="shaped")
    view = _view(qtbot, bridge)
    mean = view.model.data(view.model.index(0, RESULT))
    assert mean == "525 Mbit/s"  # the capture's receiver figure, before any analysis
    detail = view.detail
    with qtbot.waitSignal(detail.loaded, timeout=WAIT_MS):
        view.open_run(run.id)
    box = detail.burst_box
    assert box.isVisible() and box.analyse_button.isEnabled()
    assert "Not analysed yet" in box.texts()["headline"]
    with qtbot.waitSignal(detail.burstAnalysed, timeout=WAIT_MS) as analysed:
        box.analyse_button.click()
    estimate = analysed.args[1]
    assert estimate.detected

    # Against the capture itself: the levels are the means of the printed intervals on each
    # side of the step, the bucket the tbf's 500 MiB in TCP payload (1448 of 1514 bytes).
    intervals = _intervals()
    step = estimate.step_t
    before = [v for t, v in intervals if t <= step - 0.5]
    after = [v for t, v in intervals if t - 1 >= step + 0.5]
    assert len(before) >= 4 and len(after) >= 5
    assert estimate.burst_bps / 1e6 == pytest.approx(sum(before) / len(before), rel=0.02)
    assert estimate.baseline_bps / 1e6 == pytest.approx(sum(after) / len(after), rel=0.02)
    assert estimate.bucket_bits == pytest.approx(500 * 2**20 * 8 * 1448 / 1514, rel=0.01)

    # Stored exactly as `pairbench analyze burst ID` stores it (another library, same capture).
    stored = get_analysis(library, run.id, "burst")
    other = tmp_path / "cli.sqlite"
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO(), environ={})
    assert run_cli(["--library", str(other), "import", "iperf3", str(CAPTURE)], env) == 0
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO(), environ={})
    assert run_cli(["--library", str(other), "analyze", "burst", "1", "--json"], env) == 0
    cli = Library.open(other)
    try:
        assert get_analysis(cli, 1, "burst") == stored
    finally:
        cli.close()
    printed = json.loads(env.stdout.getvalue())  # type: ignore[attr-defined]
    assert printed["burst_bps"] == stored["burst_bps"]

    # Readable: every figure whole (wrapped, never cut with "…").
    texts = box.texts()
    assert texts["Burst rate"].startswith("927 Mbit/s ± ") and "…" not in texts["Burst rate"]
    assert texts["Baseline"].startswith("193 Mbit/s ± ") and "…" not in texts["Baseline"]
    assert texts["headline"].startswith("Step at 5.")
    assert box.analyse_button.text() == "Analyse again"
    # Drawn on the throughput plot, in its axis units.
    plot = detail.throughput_plot()
    marks = detail.burst_marks
    assert plot is not None and marks is not None
    assert marks.step_line.value() == pytest.approx(step)
    _, y = marks.burst_level.getData()
    assert y[0] == pytest.approx(estimate.burst_bps * plot.factor)
    _, y = marks.baseline_level.getData()
    assert y[0] == pytest.approx(estimate.baseline_bps * plot.factor)
    # The headline: burst → baseline, in the summary and (after the refresh) the Library.
    summary = detail.summary_texts()
    assert summary[STEP_ROW] == "927 Mbit/s → 193 Mbit/s"
    assert summary["Throughput (mean)"] == "525 Mbit/s"
    qtbot.waitUntil(
        lambda: view.model.data(view.model.index(0, RESULT)) == "927 Mbit/s → 193 Mbit/s",
        timeout=WAIT_MS,
    )
    # Whole in its column (which was as wide as "525 Mbit/s" before): never cut with "…".
    headline = view.table.fontMetrics().horizontalAdvance("927 Mbit/s → 193 Mbit/s")
    assert view.table.columnWidth(RESULT) >= headline + 8
    assert "ok" in view.message.kind and "step at 5." in view.message.text()


def test_the_library_menu_opens_and_analyses_a_throughput_run_only(
    qtbot: QtBot, library: Library, bridge: EngineBridge
) -> None:
    ping = import_output(
        library, "ping", (FIXTURES / "ping" / "c20_s1400_i02.out").read_text(), label="ping"
    )
    flat = import_output(library, "iperf3", (FIXTURES / "iperf3" / "tcp_t5.out").read_text())
    view = _view(qtbot, bridge)
    qtbot.waitUntil(lambda: view.model.rowCount() == 2, timeout=WAIT_MS)
    assert view.select_run(ping.id)
    menu = view.pins.context_menu()
    action = next(a for a in menu.actions() if a.text().startswith("Analyse burst"))
    assert not action.isEnabled()  # no throughput to analyse
    assert view.select_run(flat.id)
    menu = view.pins.context_menu()
    action = next(a for a in menu.actions() if a.text().startswith("Analyse burst"))
    assert action.isEnabled()
    with qtbot.waitSignal(view.detail.burstAnalysed, timeout=WAIT_MS) as analysed:
        action.trigger()
    assert view.stack.currentWidget() is view.detail
    assert not analysed.args[1].detected  # a flat run has no step
    assert view.detail.burst_box.texts()["headline"].startswith("No step: ")
    assert view.detail.burst_marks is None
    assert STEP_ROW not in view.detail.summary_texts()
    view.show_list()
    qtbot.waitUntil(lambda: view.model.row_of(flat.id) is not None, timeout=WAIT_MS)
    row = view.model.row_of(flat.id)
    assert row is not None
    assert "→" not in view.model.data(view.model.index(row, RESULT))  # still its mean
    QApplication.processEvents()
