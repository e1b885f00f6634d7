"""Pinning a stored run (or a group's median) under a run tab's live curves."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from pairbench.analysis.compare_runs import RunInput
from pairbench.domain import LOCAL_PAIR, Record, Run, RunSpec, RunStatus
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run, finish_run
from pairbench.library.series import SeriesArrays, load_series
from pairbench.services.importing import import_output
from pairbench.ui.bridge import EngineBridge, RunSignals
from pairbench.ui.run.baseline_pin import BaselineChoice, BaselinePin, make_baseline
from pairbench.ui.run.controller import RunController
from pairbench.ui.run.run_tab import RunTab
from testkit import FIXTURES

FIXTURE = FIXTURES / "iperf3" / "tcp_t5.out"
REPEATS = {  # label "rep": three runs with known throughput per second
    "r1": [1e9, 2e9, 3e9, 4e9],
    "r2": [2e9, 2e9, 5e9, 1e9],
    "r3": [3e9, 1e9, 4e9, 2e9],
}


def _store(lib: Library, label: str, values: list[float]) -> int:
    spec = RunSpec(pair="local", tool="iperf3", params={}, label="rep", tags={"zone": label})
    run_id = create_run(lib, spec)
    recorder = Recorder(lib, run_id)
    recorder.add(
        [Record("sum", float(i + 1), ("throughput_bps",), (v,)) for i, v in enumerate(values)]
    )
    recorder.flush()
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={"throughput_bps": 2e9}, complete=True)
    return run_id


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[tuple[Path, int, list[int]]]:
    """A library with the tcp_t5 fixture imported and three labelled repeats."""
    if not FIXTURE.exists():
        pytest.skip("the iperf3 fixture is not on this machine")
    path = tmp_path / "library.db"
    lib = Library.open(path)
    imported = import_output(lib, "iperf3", FIXTURE.read_text(), label="before")
    repeats = [_store(lib, name, values) for name, values in REPEATS.items()]
    lib.close()
    yield path, imported.id, repeats


@pytest.fixture
def tab(qtbot: QtBot, stored: tuple[Path, int, list[int]]) -> Iterator[RunTab]:
    """A run tab over a real bridge, fed synthetic iperf3 records (5 s, 8–9 Gbit/s)."""
    bridge = EngineBridge(stored[0])
    signals = RunSignals()
    spec = RunSpec(pair="local", tool="iperf3", params={})
    controller = RunController(signals, LOCAL_PAIR, spec)
    run_tab = RunTab(controller, bridge=bridge)
    qtbot.addWidget(run_tab)
    run_tab.show()
    signals.started.emit(1000, spec, 5.0)
    metrics = ("throughput_bps", "retransmits")
    signals.records.emit([Record("sum", t, metrics, (8e9 + t * 1e8, 3.0)) for t in range(1, 6)])
    run_tab.plots.refresh(force=True)
    try:
        yield run_tab
    finally:
        bridge.shutdown()


def _open_dialog(qtbot: QtBot, pin: BaselinePin) -> None:
    pin.dialog = None
    pin.pin_button.click()
    qtbot.waitUntil(lambda: pin.dialog is not None and pin.dialog.isVisible(), timeout=5000)


def test_pin_a_stored_run_draws_its_series_under_the_live_curve_and_unpin_removes_it(
    qtbot: QtBot, tab: RunTab, stored: tuple[Path, int, list[int]]
) -> None:
    path, imported_id, repeats = stored
    pin = tab.baseline_pin
    assert pin is not None and pin.pin_button.text() == "Pin baseline…"
    _open_dialog(qtbot, pin)
    dialog = pin.dialog
    assert dialog is not None
    listed = [r.id for r in dialog.runs]
    assert sorted(listed) == sorted([imported_id, *repeats])  # same tool, not the live run
    row = listed.index(imported_id)
    assert dialog.table.item(row, 2).text() == "local"
    assert dialog.table.item(row, 3).text() == "before"
    assert "Gbit/s" in dialog.table.item(row, 4).text()  # the headline result
    dialog.select_run(imported_id)
    dialog.accept()
    qtbot.waitUntil(lambda: len(pin.items) == 2, timeout=5000)

    lib = Library.open(path)
    stored_series = {s.metric: s for s in load_series(lib, imported_id) if s.stream == "sum"}
    lib.close()
    throughput = tab.plots.plots["throughput"]
    plot, item = pin.items[("throughput", "throughput_bps")]
    assert plot is throughput and item in throughput.overlays
    t, v = item.getOriginalDataset()
    np.testing.assert_array_equal(t, stored_series["throughput_bps"].t)  # aligned at run start
    np.testing.assert_array_equal(v, stored_series["throughput_bps"].v)
    # One axis, one scale: the live curve's (Gbit/s) applies to the baseline's raw values too.
    tab.plots.refresh(force=True)
    assert throughput.scale.unit == "Gbit/s"
    shown = v * throughput.scale.factor
    np.testing.assert_allclose(shown, stored_series["throughput_bps"].v / 1e9)
    assert throughput.left_axis.scale == throughput.scale.factor
    # Muted, dashed, under the live curve, named in the legend; y fitted to include it.
    pen = item.opts["pen"]
    assert pen.style().name == "DashLine" and pen.color().name() == "#9e9e9e"
    assert item.zValue() < throughput.curves[("sum", "throughput_bps")].item.zValue()
    names = [label.text for _sample, label in throughput.legend.items]
    assert "baseline: local before" in names
    assert throughput.view_box.viewRange()[1][1] >= stored_series["throughput_bps"].v.max()
    # The retransmits plot gets its baseline too; cwnd has no live curve, so no baseline.
    assert ("retransmits", "retransmits") in pin.items
    assert "cwnd" not in tab.plots.plots
    assert pin.status.text() == "baseline: local before" and pin.unpin_button.isVisibleTo(tab)

    pin.unpin_button.click()
    assert pin.items == {} and pin.baseline is None
    assert throughput.overlays == []
    assert item not in throughput.plot_item.items
    assert "baseline: local before" not in [lab.text for _s, lab in throughput.legend.items]
    assert not pin.unpin_button.isVisibleTo(tab)


def test_pin_the_median_of_a_label_group(
    qtbot: QtBot, tab: RunTab, stored: tuple[Path, int, list[int]]
) -> None:
    pin = tab.baseline_pin
    assert pin is not None
    _open_dialog(qtbot, pin)
    assert pin.dialog is not None
    pin.dialog.select_group("label", "rep")
    choice = pin.dialog.choice()
    assert choice is not None and sorted(choice.run_ids) == sorted(stored[2])
    pin.dialog.accept()
    qtbot.waitUntil(lambda: ("throughput", "throughput_bps") in pin.items, timeout=5000)
    _plot, item = pin.items[("throughput", "throughput_bps")]
    t, v = item.getOriginalDataset()
    np.testing.assert_allclose(t, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(v, np.median(np.array(list(REPEATS.values())), axis=0))
    assert pin.baseline is not None
    assert pin.baseline.name == "baseline: local label rep (median of 3)"
    assert ("retransmits", "retransmits") not in pin.items  # the repeats have no retransmits


def test_a_plot_that_appears_after_pinning_gets_the_baseline(
    qtbot: QtBot, tab: RunTab, stored: tuple[Path, int, list[int]]
) -> None:
    pin = tab.baseline_pin
    assert pin is not None
    pin.pin(BaselineChoice((stored[1],)))
    qtbot.waitUntil(lambda: pin.baseline is not None, timeout=5000)
    assert "cwnd" not in tab.plots.plots
    tab.controller.signals.records.emit(
        [Record("sum", float(t), ("cwnd_bytes",), (5e5,)) for t in range(1, 6)]
    )
    tab.plots.refresh(force=True)
    pin.sync()
    assert ("cwnd", "cwnd_bytes") in pin.items


def test_make_baseline_of_one_run_keeps_its_sum_series() -> None:
    run = Run(7, RunSpec(pair="p", tool="iperf3", params={}), RunStatus.COMPLETED, 0.0)
    series = [
        SeriesArrays("1", "throughput_bps", "bit/s", np.array([1.0, 2.0]), np.array([5.0, 6.0])),
        SeriesArrays("sum", "throughput_bps", "bit/s", np.array([1.0, 2.0]), np.array([7.0, 8.0])),
    ]
    baseline = make_baseline([RunInput(run, None, series)])
    assert baseline.name == "baseline: p #7"
    np.testing.assert_array_equal(baseline.curves["throughput_bps"][1], [7.0, 8.0])
