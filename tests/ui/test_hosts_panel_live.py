"""The Hosts panel and the verdict in the window: live from a real run, from the engine's
signals, and in a stored run's detail (Hosts tab, summary row)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pytestqt.qtbot import QtBot
from run_kit import (
    click_start,
    isolated_settings,
    last_controller,
    open_window,
    save_png,
    set_field,
    tab_of,
)

from compare_runs import store_run
from pairbench.domain import LOCAL_PAIR, Record, RunSpec
from pairbench.domain.diagnosis import Diagnosis
from pairbench.library import Library
from pairbench.library.analyses import get_analysis, store_analysis
from pairbench.ui.bridge import EngineBridge, RunSignals
from pairbench.ui.library.run_detail import RunDetailView
from pairbench.ui.run.controller import RunController
from pairbench.ui.run.run_tab import RunTab
from testkit import require_program

CPU = ("cpu_busy_percent", "cpu_softirq_percent", "cpu_irq_percent", "cpu_steal_percent")


def _telemetry(t: float) -> list[Record]:
    return [
        Record("client:cpu0", t, CPU, (98.0, 12.0, 1.0, 0.0)),
        Record("client:cpu1", t, CPU, (40.0, 0.0, 0.0, 0.0)),
        Record("client:cpu", t, CPU, (69.0, 6.0, 0.5, 3.0)),
        Record("client:net", t, ("nic_rx_bps", "nic_tx_bps", "nic_rx_drop_pps"), (1e6, 9.4e8, 0.0)),
        Record("server:udp", t, ("udp_rcvbuf_error_pps",), (8317.0,)),
        Record("server:nic", t, ("ethtool_bw_in_allowance_exceeded_pps",), (1204.0,)),
        Record(
            "server:proc", t, ("proc_thread_max_percent", "proc_thread_wait_percent"), (64.0, 35.0)
        ),
    ]


def test_the_panel_shows_each_hosts_figures_as_they_come(qtbot: QtBot) -> None:
    signals = RunSignals()
    spec = RunSpec(LOCAL_PAIR.name, "iperf3", {"duration": "10", "udp": "true"})
    tab = RunTab(RunController(signals, LOCAL_PAIR, spec))
    qtbot.addWidget(tab)
    assert not tab.hosts.isVisibleTo(tab)  # nothing yet
    signals.started.emit(3, spec, 10.0)
    signals.telemetry.emit(_telemetry(1.0))
    qtbot.waitUntil(lambda: tab.hosts.texts().get("client") is not None, timeout=5_000)
    texts = tab.hosts.texts()
    assert texts["client"]["Busiest core"] == "core 0: 98 %, softirq 13 %"
    assert texts["client"]["All cores"] == "69 %, steal 3 %"
    assert texts["client"]["NIC"] == "↓ 1.00 Mbit/s  ↑ 940 Mbit/s"
    assert texts["server"]["UDP buffer errors"] == "+8317/s"
    assert texts["server"]["Allowance exceeded"] == "bw_in +1204/s"
    assert texts["server"]["Tool's thread"] == "ran 64 %, waited 35 %"
    assert "TCP retransmits" not in tab.hosts.table.columns  # a UDP run
    assert tab.hosts.isVisibleTo(tab)


def test_the_verdict_ends_the_summary(qtbot: QtBot) -> None:
    from pairbench.domain import Run, RunStatus

    signals = RunSignals()
    spec = RunSpec(LOCAL_PAIR.name, "iperf3", {"duration": "1"})
    tab = RunTab(RunController(signals, LOCAL_PAIR, spec))
    qtbot.addWidget(tab)
    signals.started.emit(4, spec, 1.0)
    verdict = Diagnosis("cpu", "server", ("server core 3: 98 % busy", "second"))
    signals.diagnosis.emit(verdict.payload())
    run = Run(
        id=4,
        spec=spec,
        status=RunStatus.COMPLETED,
        started_at=1.0,
        ended_at=2.0,
        summary={"throughput_bps": 9e9},
    )
    signals.finished.emit(run)
    qtbot.waitUntil(lambda: tab.summary_box.isVisibleTo(tab), timeout=5_000)
    line = tab.summary_box.findChild(object, "verdict")
    assert line is not None
    assert line.full_text == "Limited by cpu on the server: server core 3: 98 % busy"
    assert line.toolTip() == "Limited by cpu on the server: server core 3: 98 % busy\nsecond"


def test_a_real_run_fills_the_panel_and_the_summary(
    qtbot: QtBot, tmp_path: Path, library_path: Path
) -> None:
    require_program("iperf3")
    with open_window(qtbot, library_path, isolated_settings(tmp_path), size=(1280, 720)) as window:
        panel = window.run_panel
        panel.select_tool("iperf3")
        set_field(panel, "duration", "3")
        click_start(qtbot, panel)
        qtbot.waitUntil(lambda: panel.progress.controller is not None, timeout=10_000)
        controller = last_controller(panel)
        qtbot.waitUntil(lambda: window.run_tabs.tab_of(controller) is not None, timeout=10_000)
        tab = tab_of(window, controller)
        qtbot.waitUntil(lambda: bool(tab.hosts.texts()), timeout=30_000)  # live, mid-run
        assert controller.run is None
        qtbot.waitUntil(lambda: controller.run is not None, timeout=60_000)
        qtbot.waitUntil(lambda: tab.summary_box.findChild(object, "verdict") is not None)
        texts = tab.hosts.texts()
        assert texts["client"]["Busiest core"].startswith("core ")
        assert texts["client"]["NIC"].startswith("↓ ")
        save_png(window, "hosts-panel-local-iperf3.png")
        line = tab.summary_box.findChild(object, "verdict")
        with Library.open(library_path) as lib:
            stored = get_analysis(lib, controller.run.id, "diagnosis")
        assert stored is not None and controller.diagnosis is not None
        assert controller.diagnosis.payload() == stored
        assert line.full_text == controller.diagnosis.sentence()


def test_a_stored_runs_detail_has_its_hosts_and_verdict(
    qtbot: QtBot, library: Library, library_path: Path
) -> None:
    t = np.arange(1.0, 6.0)
    run_id = store_run(
        library,
        summary={"throughput_bps": 9.4e8},
        series={"throughput_bps": (t, np.full(5, 9.4e8))},
        streams={
            "client:cpu0": {"cpu_busy_percent": (t, np.full(5, 97.0))},
            "client:net": {"nic_tx_bps": (t, np.full(5, 9.4e8)), "nic_rx_bps": (t, np.zeros(5))},
        },
    )
    verdict = Diagnosis("cpu", "client", ("client core 0: 97 % busy", "a thread"))
    store_analysis(library, run_id, "diagnosis", verdict.payload())
    library.conn.commit()
    bridge = EngineBridge(library_path)
    try:
        view = RunDetailView(bridge)
        qtbot.addWidget(view)
        with qtbot.waitSignal(view.loaded, timeout=10_000):
            view.show_run(run_id)
        assert view.summary_texts()["Limited by"] == "cpu (client)"
        assert view.hosts.verdict.text() == "Limited by cpu on the client: client core 0: 97 % busy"
        assert view.hosts.panel.texts()["client"]["Busiest core"] == "core 0: 97 %"
        assert [plot.metric for plot in view.plots] == ["throughput_bps"]  # no telemetry there
        assert {plot.metric for plot in view.hosts.plots} == {
            "cpu_busy_percent",
            "nic_rx_bps",
            "nic_tx_bps",
        }
    finally:
        bridge.shutdown()
