"""The workbench on the lab pair: every tool started, watched and cancelled from the window."""

from __future__ import annotations

import itertools
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from run_kit import (
    click_start,
    isolated_settings,
    last_controller,
    open_window,
    set_field,
    tab_of,
)

from pairbench.domain import RunStatus
from pairbench.library import Library
from pairbench.library.runs import get_run
from pairbench.ui.main_window import MainWindow
from pairbench.ui.run.controller import RunController, RunPhase

pytestmark = pytest.mark.lab

# (tool, form values, the series that must reach the plots)
TOOL_RUNS: tuple[tuple[str, dict[str, str], tuple[str, str]], ...] = (
    ("iperf3", {"duration": "3", "udp": "true", "bitrate": "50M"}, ("sum", "jitter_ms")),
    ("ping", {"count": "6", "interval": "0.2"}, ("sum", "rtt_ms")),
    ("nuttcp", {"duration": "3"}, ("sum", "throughput_bps")),
    ("iperf2", {"duration": "3"}, ("sum", "throughput_bps")),
    ("fio", {"runtime": "3", "size": "32M", "rw": "randread"}, ("sum", "read_iops")),
)


def _start(qtbot: QtBot, window: MainWindow, tool: str, values: dict[str, str]) -> RunController:
    panel = window.run_panel
    assert panel.select_pair("lab")
    assert panel.select_tool(tool)
    for name, value in values.items():
        set_field(panel, name, value)
    click_start(qtbot, panel)
    return last_controller(panel)


def _iperf3_in(namespace: str) -> list[str]:
    pids = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
    ).stdout.split()
    found = []
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "iperf3":
                found.append(pid)
        except OSError:
            continue
    return found


def test_every_tool_runs_live_from_the_window(qtbot: QtBot, lab: Any, tmp_path: Path) -> None:
    lab.shape("--rate", "200mbit")
    with open_window(qtbot, lab.library, isolated_settings(tmp_path)) as window:
        for tool, values, key in TOOL_RUNS:
            controller = _start(qtbot, window, tool, values)
            qtbot.waitUntil(
                lambda c=controller: window.run_tabs.tab_of(c) is not None, timeout=30_000
            )
            tab = tab_of(window, controller)

            def plotted(tab: Any = tab, key: tuple[str, str] = key) -> bool:
                buffer = tab.plots.buffer(*key)
                return buffer is not None and len(buffer) >= 1

            qtbot.waitUntil(plotted, timeout=30_000)
            qtbot.waitUntil(lambda c=controller: c.phase is RunPhase.FINISHED, timeout=60_000)
            assert controller.run is not None, tool
            assert controller.run.status is RunStatus.COMPLETED, (tool, controller.run.error)
            with Library.open(lab.library) as lib:
                assert get_run(lib, controller.run.id).spec.pair == "lab"


def test_two_runs_on_pairs_that_share_no_host_go_at_once(
    qtbot: QtBot, lab: Any, tmp_path: Path
) -> None:
    """iperf3 on the lab pair and on "This computer" at once, each in its tab: neither is
    refused (the lab's hosts and this computer share one process table, where each run's
    check for leftovers sees the other's live tools and leaves them alone), both complete."""
    lab.shape("--rate", "200mbit")
    with open_window(qtbot, lab.library, isolated_settings(tmp_path)) as window:
        first = _start(qtbot, window, "iperf3", {"duration": "4"})
        qtbot.waitUntil(lambda: first.phase is RunPhase.RUNNING, timeout=30_000)
        panel = window.run_panel
        assert panel.select_pair("local")
        set_field(panel, "duration", "3")
        click_start(qtbot, panel)
        second = last_controller(panel)
        assert second is not first
        qtbot.waitUntil(
            lambda: all(window.run_tabs.tab_of(c) is not None for c in (first, second)),
            timeout=30_000,
        )
        # The first run's tab is in the background and still receives its samples.
        assert window.tabs.currentWidget() is tab_of(window, second)
        qtbot.waitUntil(
            lambda: first.phase is RunPhase.FINISHED and second.phase is RunPhase.FINISHED,
            timeout=60_000,
        )
        for controller in (first, second):
            assert controller.run is not None
            assert controller.run.status is RunStatus.COMPLETED, controller.run.error
            buffer = tab_of(window, controller).plots.buffer("sum", "throughput_bps")
            assert buffer is not None and len(buffer) >= 3


def test_cancel_from_the_window_ends_the_lab_processes(
    qtbot: QtBot, lab: Any, tmp_path: Path
) -> None:
    lab.shape()
    with open_window(qtbot, lab.library, isolated_settings(tmp_path)) as window:
        controller = _start(qtbot, window, "iperf3", {"duration": "60"})
        qtbot.waitUntil(lambda: window.run_tabs.tab_of(controller) is not None, timeout=30_000)
        tab = tab_of(window, controller)
        qtbot.waitUntil(
            lambda: (b := tab.plots.buffer("sum", "throughput_bps")) is not None and len(b) >= 2,
            timeout=30_000,
        )
        assert _iperf3_in(lab.namespace("client")) and _iperf3_in(lab.namespace("server"))
        qtbot.mouseClick(tab.progress.cancel_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: controller.phase is RunPhase.FINISHED, timeout=30_000)
        assert controller.run is not None and controller.run.status is RunStatus.CANCELLED
        deadline = time.monotonic() + 5
        while (
            _iperf3_in(lab.namespace("client")) or _iperf3_in(lab.namespace("server"))
        ) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _iperf3_in(lab.namespace("client")) and not _iperf3_in(lab.namespace("server"))


def test_burst_probe_from_the_window_detects_the_step_live(
    qtbot: QtBot, lab: Any, tmp_path: Path
) -> None:
    from pairbench.analysis.burst import BurstState
    from pairbench.library.analyses import get_analyses
    from pairbench.ui.run.presets import BURST_PROBE_PRESET

    # 1 Gbit/s burst over a 200 Mbit/s baseline with a 1000 MB bucket: ~10.5 s of burst.
    lab.shape("--rate", "200mbit", "--burst-rate", "1gbit", "--bucket", "1000MB")
    with open_window(qtbot, lab.library, isolated_settings(tmp_path)) as window:
        panel = window.run_panel
        assert panel.select_pair("lab")
        index = panel.preset_combo.findData(BURST_PROBE_PRESET)
        panel.preset_combo.setCurrentIndex(index)
        panel.preset_combo.activated.emit(index)
        assert panel.probe_mode
        panel.probe_box.max_duration.setValue(90)
        panel.probe_box.after_step.setValue(5)
        click_start(qtbot, panel)
        controller = last_controller(panel)
        qtbot.waitUntil(lambda: window.run_tabs.tab_of(controller) is not None, timeout=30_000)
        tab = tab_of(window, controller)
        qtbot.waitUntil(
            lambda: (
                tab.burst.estimate is not None and tab.burst.estimate.state is BurstState.CONFIRMED
            ),
            timeout=60_000,
        )
        assert tab.burst.panel.isVisible()
        estimate = tab.burst.estimate
        assert estimate.burst_bps == pytest.approx(1e9, rel=0.1)
        assert estimate.baseline_bps == pytest.approx(200e6, rel=0.1)
        qtbot.waitUntil(lambda: controller.phase is RunPhase.FINISHED, timeout=60_000)
        assert controller.run is not None
        assert controller.run.status is RunStatus.COMPLETED, controller.run.error
        assert controller.run.duration is not None and controller.run.duration < 60
        with Library.open(lab.library) as lib:
            analyses = get_analyses(lib, controller.run.id)
        assert analyses["burst"]["detected"] is True


def test_a_queue_of_three_and_run_again_on_the_lab(qtbot: QtBot, lab: Any, tmp_path: Path) -> None:
    """Three runs queued on the lab pair go one after the other; one of them, opened in the
    Library, is run again from its detail with its commands shown, on the lab."""
    lab.shape("--delay", "2ms")
    with open_window(qtbot, lab.library, isolated_settings(tmp_path)) as window:
        panel = window.run_panel
        assert panel.select_pair("lab") and panel.select_tool("ping")
        set_field(panel, "count", "3")
        set_field(panel, "interval", "0.2")
        panel.queue.pause_box.setValue(0.3)
        panel.repeat_box.setValue(3)
        panel.run_form.label_edit.setText("queued")
        assert panel.start() is not None
        qtbot.waitUntil(lambda: panel.queue.done == 3, timeout=90_000)
        with Library.open(lab.library) as lib:
            from pairbench.library.runs import list_runs

            runs = sorted(
                (r for r in list_runs(lib) if r.label == "queued"), key=lambda r: r.started_at
            )
        assert [r.status for r in runs] == [RunStatus.COMPLETED] * 3
        for before, after in itertools.pairwise(runs):
            assert before.ended_at is not None and after.started_at >= before.ended_at
        # Its detail shows the commands that ran on the lab hosts; Run again repeats it.
        view = window.runs_view
        window.tabs.setCurrentWidget(view)
        qtbot.waitUntil(lambda: view.model.row_of(runs[0].id) is not None, timeout=10_000)
        view.open_run(runs[0].id)
        qtbot.waitUntil(lambda: view.detail.again_button.isEnabled(), timeout=10_000)
        commands = view.detail.commands_text.toPlainText()
        assert "# client on lab-client" in commands and "ping" in commands
        panel.repeat_box.setValue(1)
        view.detail.again_button.click()
        assert panel.current_pair() is not None and panel.current_pair().name == "lab"
        panel.run_form.label_edit.setText("again")
        controller = panel.start()
        assert controller is not None
        qtbot.waitUntil(lambda: controller.phase is RunPhase.FINISHED, timeout=60_000)
        assert controller.run is not None and controller.run.status is RunStatus.COMPLETED
        assert dict(controller.run.spec.params) == dict(runs[0].spec.params)
