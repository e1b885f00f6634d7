"""What the engine says while a run goes on (a stall) shows on the run's progress line, and a
stalled run's tab is marked as such."""

from __future__ import annotations

import time

from pytestqt.qtbot import QtBot

from pairbench.domain import LOCAL_PAIR, Run, RunSpec, RunStatus
from pairbench.ui.bridge import RunSignals
from pairbench.ui.run.controller import RunController
from pairbench.ui.run.run_tab import RunTab

NOTICE = "no report for 3 s (from 4.0 s into the run): the data path may be down"


def test_a_notice_shows_on_the_progress_line_and_a_stall_marks_the_tab(qtbot: QtBot) -> None:
    signals = RunSignals()
    spec = RunSpec(LOCAL_PAIR.name, "iperf3", {"duration": "10"})
    tab = RunTab(RunController(signals, LOCAL_PAIR, spec))
    qtbot.addWidget(tab)
    controller = tab.controller
    signals.started.emit(7, spec, 10.0)
    signals.notice.emit(NOTICE)
    qtbot.waitUntil(lambda: NOTICE in tab.progress.label.full_text(), timeout=5_000)
    run = Run(
        id=7,
        spec=spec,
        status=RunStatus.STALLED,
        started_at=time.time() - 10,
        ended_at=time.time(),
        error="stalled: the tool reported no data from 4.0 s for 5.2 s",
    )
    signals.finished.emit(run)
    qtbot.waitUntil(lambda: controller.run is not None, timeout=5_000)
    assert "Stalled" in controller.status_text()
    assert tab.tab_title.startswith("⚠")
