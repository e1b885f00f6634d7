"""Burst credits in the window: the live panel and overlay, the probe preset, the library."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot
from run_kit import isolated_settings, open_window, save_png

from pairbench.analysis.burst import BurstEstimate, BurstState
from pairbench.analysis.burst_model import analyze_series
from pairbench.domain import LOCAL_PAIR, Record, Run, RunSpec, RunStatus
from pairbench.domain.units import format_bits
from pairbench.library import Library
from pairbench.library.analyses import store_analysis
from pairbench.services.importing import import_output
from pairbench.ui.bridge import EngineBridge, RunHandle, RunSignals
from pairbench.ui.library.run_detail import RunDetailView
from pairbench.ui.run.burst_panel import MIN_INTERVALS, gigabytes
from pairbench.ui.run.controller import RunController
from pairbench.ui.run.presets import BURST_PROBE_PRESET, burst_probe_label
from pairbench.ui.run.run_tab import RunTab

STREAM_METRICS = ("throughput_bps", "retransmits")
SUM_METRICS = ("throughput_bps", "retransmits")
BURST, BASELINE, STEP_T = 1e9, 2e8, 20.0


def _burst_series(n: int, *, flat: bool = False, seed: int = 7) -> list[tuple[float, float]]:
    """(t, throughput): 1 Gbit/s until 20 s then 200 Mbit/s, ±1 % noise (flat: ±5 % at 1G)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(1, n + 1):
        t = float(i)
        if flat:
            v = BURST * (1 + 0.05 * rng.standard_normal())
        else:
            v = (BURST if t <= STEP_T else BASELINE) * (1 + 0.01 * rng.standard_normal())
        out.append((t, v))
    return out


def _records(t: float, v: float) -> list[Record]:
    """One interval as iperf3 -P 2 gives it: two streams, then the sum."""
    return [
        Record("5", t, STREAM_METRICS, (v / 2, 0.0)),
        Record("7", t, STREAM_METRICS, (v / 2, 0.0)),
        Record("sum", t, SUM_METRICS, (v, 0.0)),
    ]


@pytest.fixture
def run_tab(qtbot: QtBot) -> Iterator[tuple[RunTab, RunSignals]]:
    signals = RunSignals()
    spec = RunSpec(LOCAL_PAIR.name, "iperf3", {"streams": "2", "duration": "3600"})
    controller = RunController(signals, LOCAL_PAIR, spec)
    tab = RunTab(controller)
    qtbot.addWidget(tab)
    tab.resize(1200, 760)
    tab.show()
    qtbot.waitExposed(tab)
    signals.started.emit(1, spec, 3600.0)
    yield tab, signals


def _feed(tab: RunTab, signals: RunSignals, series: list[tuple[float, float]]) -> list[Any]:
    """Emit the intervals through the run's signals; the overlay's step style after each."""
    seen = []
    for t, v in series:
        signals.records.emit(_records(t, v))
        tab.plots.refresh(force=True)
        monitor = tab.burst
        monitor._draw()
        estimate = monitor.estimate
        overlay = monitor.overlay
        dashed = overlay.step_dashed if overlay and overlay.step_line.isVisible() else None
        seen.append((estimate.state if estimate else None, dashed))
    return seen


def test_a_burst_then_baseline_stream_shows_a_confirmed_step(
    qtbot: QtBot, run_tab: tuple[RunTab, RunSignals]
) -> None:
    tab, signals = run_tab
    monitor = tab.burst
    assert monitor.enabled
    _feed(tab, signals, _burst_series(MIN_INTERVALS - 1))
    assert not monitor.panel.isVisible()  # hidden until a few intervals
    seen = _feed(tab, signals, _burst_series(40)[MIN_INTERVALS - 1 :])
    assert monitor.panel.isVisible()
    # Before the step: the burst so far; then suspected (dashed step), then confirmed (solid).
    states = [state for state, _ in seen]
    assert BurstState.SUSPECTED in states
    first_suspected = states.index(BurstState.SUSPECTED)
    assert seen[first_suspected][1] is True
    assert seen[-1] == (BurstState.CONFIRMED, False)

    e = monitor.estimate
    assert e is not None and e.detected
    assert e.burst_bps == pytest.approx(BURST, rel=0.01)
    assert e.baseline_bps == pytest.approx(BASELINE, rel=0.01)
    assert e.step_t == pytest.approx(STEP_T, abs=0.5)
    assert e.burst_seconds == pytest.approx(STEP_T, abs=0.5)
    assert e.bucket_bits == pytest.approx((BURST - BASELINE) * STEP_T, rel=0.03)  # 2.0 GB

    texts = monitor.panel.texts()
    assert texts["headline"].startswith("Step at 20.") and "✓" in texts["headline"]
    assert texts["Burst rate"].startswith(f"{format_bits(e.burst_bps)} ± ")  # ~1000 Mbit/s
    assert texts["Baseline"].startswith(f"{format_bits(e.baseline_bps)} ± ")  # ~200 Mbit/s
    assert texts["Burst time"].startswith("20.") and " s ± " in texts["Burst time"]
    assert (
        texts["Bucket"].startswith(gigabytes(e.bucket_bits))
        and " ± " in texts["Bucket"]
        and texts["Bucket"].endswith("MB")
    )
    assert gigabytes(e.bucket_bits) in ("1.99 GB", "2 GB", "2.01 GB")
    # 16 Gbit refilled at 200 Mbit/s: 80 s
    assert texts["refill"] == (
        f"bucket ≈ {gigabytes(e.bucket_bits)}, refills at the baseline rate → "
        "full again after ~1.3 min idle"
    )

    overlay = monitor.overlay
    assert overlay is not None and overlay.plot is tab.plots.plots["throughput"]
    assert overlay.step_line.value() == pytest.approx(e.step_t)
    x, y = overlay.burst_level.getData()
    assert list(x) == pytest.approx([0.0, e.step_t]) and list(y) == pytest.approx([e.burst_bps] * 2)
    x, y = overlay.baseline_level.getData()
    assert list(x) == pytest.approx([e.step_t, 40.0])
    assert list(y) == pytest.approx([e.baseline_bps] * 2)

    tab.plots.show_all()
    tab.plots.refresh(force=True)
    qtbot.wait(50)
    path = save_png(tab, "burst_live.png")
    assert path.stat().st_size > 0


def test_a_flat_stream_shows_no_step(qtbot: QtBot, run_tab: tuple[RunTab, RunSignals]) -> None:
    tab, signals = run_tab
    seen = _feed(tab, signals, _burst_series(60, flat=True))
    assert {state for state, _ in seen} == {BurstState.NO_STEP}
    monitor = tab.burst
    assert monitor.panel.isVisible()
    texts = monitor.panel.texts()
    assert texts["headline"].startswith("Burst so far: ")
    assert texts["headline"].endswith("over 60 s, no step yet")
    assert texts["refill"] == ""
    assert not monitor.panel.refill.isVisible()
    overlay = monitor.overlay
    assert overlay is not None
    assert not overlay.step_line.isVisible() and not overlay.burst_level.isVisible()
    # The run ends: the panel says what the whole run showed, no longer "so far... yet".
    spec = tab.controller.spec
    signals.finished.emit(Run(1, spec, RunStatus.COMPLETED, 0.0, 60.0))
    rate = format_bits(monitor.estimate.burst_bps) if monitor.estimate else "?"
    headline = monitor.panel.texts()["headline"]
    assert headline.startswith(f"No step in 60 s: {rate} ± "), headline
    assert "so far" not in headline and "yet" not in headline


def test_an_estimate_flipping_between_states_does_not_move_the_plots(
    qtbot: QtBot, run_tab: tuple[RunTab, RunSignals]
) -> None:
    """A noisy run at 0.1 s flips between "step suspected" (a row of values) and "no step yet"
    (none) several times a second: the panel keeps its room, the plots above stay put (each
    move re-laid out and repainted every plot)."""
    tab, signals = run_tab
    _feed(tab, signals, _burst_series(10, flat=True))
    monitor = tab.burst
    assert monitor.panel.isVisible()
    no_step = monitor.estimate
    assert no_step is not None and no_step.state is BurstState.NO_STEP
    suspected = BurstEstimate(
        BurstState.SUSPECTED, 10.0, 10, BURST, 1e7, BASELINE, 1e7, 8.0, 0.5, 8.0, 0.5, 6e9, 1e8
    )
    plot = tab.plots.plots["throughput"].widget
    heights = []
    for estimate in (suspected, no_step, suspected, no_step, suspected, no_step):
        monitor.panel.show_estimate(estimate)
        qtbot.wait(30)  # the layout requests are posted events
        heights.append((plot.height(), monitor.panel.height()))
        assert monitor.panel.height() >= monitor.panel.minimumSizeHint().height()
    assert monitor.panel.texts()["Burst rate"] == "—"  # the values row is hidden again
    assert len(set(heights[1:])) == 1, heights  # after the first suspected step, no move


@pytest.mark.parametrize(
    ("tool", "params"),
    [
        ("ping", {"count": "50"}),
        ("fio", {}),
        ("iperf3", {"udp": "true", "bitrate": "1G"}),  # throughput, but UDP: no burst credits
        ("nuttcp", {"udp": "true"}),
        ("uperf", {"profile": "latency"}),
    ],
)
def test_no_burst_panel_for_a_tool_without_throughput(
    qtbot: QtBot, tool: str, params: dict[str, str]
) -> None:
    signals = RunSignals()
    spec = RunSpec(LOCAL_PAIR.name, tool, params)
    tab = RunTab(RunController(signals, LOCAL_PAIR, spec))
    qtbot.addWidget(tab)
    tab.show()
    for t in range(1, 10):
        signals.records.emit([Record("sum", float(t), ("throughput_bps",), (1e9,))])
    assert not tab.burst.enabled and tab.burst.estimate is None
    assert not tab.burst.panel.isVisible()


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return isolated_settings(tmp_path)


def test_the_probe_preset_fills_the_form_and_starts_a_probe(
    qtbot: QtBot, library_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        assert not panel.probe_box.isVisible()
        index = panel.preset_combo.findData(BURST_PROBE_PRESET)
        assert index > 0
        panel.preset_combo.setCurrentIndex(index)
        panel.preset_combo.activated.emit(index)
        assert panel.current_tool().name == "iperf3"
        assert panel.probe_mode and panel.probe_box.isVisible()
        assert panel.form is not None
        assert panel.form.values()["streams"] == "2"
        assert panel.probe_box.max_duration_s == 3600
        assert panel.probe_box.after_step_s == 30.0
        panel.probe_box.max_duration.setValue(1200)
        assert panel.form.values()["duration"] == "1200"  # the form follows
        panel.probe_box.after_step.setValue(10)

        calls: list[dict[str, Any]] = []

        def fake_start_probe(pair: Any, spec: RunSpec, **kwargs: Any) -> RunHandle:
            calls.append({"pair": pair, "spec": spec, **kwargs})
            return RunHandle(panel.bridge, kwargs["signals"])

        monkeypatch.setattr(panel.bridge, "start_probe", fake_start_probe)
        controller = panel.start()
        assert controller is not None and len(calls) == 1
        spec = calls[0]["spec"]
        assert calls[0]["after_step_s"] == 10.0
        assert spec.tool == "iperf3"
        assert spec.params == {"duration": "1200", "streams": "2"}
        assert spec.tags["probe"] == "burst" and spec.tags["phase"] == "burst"
        # The preset's label followed the parameters: 10 s after the step, not the preset's 30.
        assert spec.label == burst_probe_label("2", 10) != BURST_PROBE_PRESET
        controller.signals.failed.emit("stopped for the test")  # end it (nothing ran)

        # Another tool leaves probe mode.
        panel.select_tool("nuttcp")
        assert not panel.probe_mode


def test_the_library_detail_shows_a_stored_burst_analysis(
    qtbot: QtBot, library: Library, library_path: Path, fixtures_dir: Path
) -> None:
    text = (fixtures_dir / "iperf3" / "tcp_t5.out").read_text()
    run = import_output(library, "iperf3", text, label="burst", source_name="tcp_t5.out")
    t, v = zip(*_burst_series(40), strict=True)
    estimate = analyze_series(t, v)
    assert estimate.detected
    store_analysis(library, run.id, "burst", estimate.to_json())
    bridge = EngineBridge(library_path)
    try:
        view = RunDetailView(bridge)
        qtbot.addWidget(view)
        with qtbot.waitSignal(view.loaded, timeout=10_000):
            view.show_run(run.id)
        rows = view.burst_box.texts()  # the stored analysis, above the plots
        assert rows["headline"].startswith("Step at 20.")
        assert rows["Bucket"].startswith(gigabytes(estimate.bucket_bits or 0))
        assert rows["Burst rate"].startswith(format_bits(estimate.burst_bps or 0))
        assert "full again after ~1.3 min idle" in rows["refill"]
    finally:
        bridge.shutdown()


def test_the_probe_label_follows_its_parameters_until_the_user_writes_one(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        index = panel.preset_combo.findData(BURST_PROBE_PRESET)
        panel.preset_combo.setCurrentIndex(index)
        panel.preset_combo.activated.emit(index)
        label = panel.run_form.label_edit
        assert label.text() == BURST_PROBE_PRESET
        assert panel.form is not None
        panel.form.fields["streams"].set_value("4")
        assert (
            label.text()
            == burst_probe_label("4", 30)
            == ("Burst probe (iperf3, 4 streams, stops 30 s after the step)")
        )
        panel.probe_box.after_step.setValue(45)
        assert label.text() == burst_probe_label("4", 45)
        label.setText("r4.large, rested 24 h")
        panel.form.fields["streams"].set_value("1")
        assert label.text() == "r4.large, rested 24 h"  # the user's own label stays
