"""The five lab verdicts in the window: each case started from the run panel at 1280×720, the
Hosts panel filled live for both hosts, the verdict in the summary as stored with the run.
A screenshot of each is saved in ``test-output/screens-l/`` (``verdict-<limit>.png``), and the
window's layout checked as it is drawn then (``layout_kit.layout_problems``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from layout_kit import layout_problems
from pytestqt.qtbot import QtBot
from run_kit import click_start, isolated_settings, last_controller, open_window, set_field

from pairbench.library import Library
from pairbench.library.analyses import get_analysis
from pairbench.ui.main_window import MainWindow
from pairbench.ui.run.controller import RunPhase
from pairbench.ui.run.run_tab import RunTab
from testkit import REPO

pytestmark = pytest.mark.lab

SCREENS = REPO / "test-output" / "screens-l"
UDP_2G = {"udp": "true", "bitrate": "2G", "length": "8000"}
# (shaping, form values, the verdict's limit)
CASES: tuple[tuple[tuple[str, ...], dict[str, str], str], ...] = (
    (("--rate", "200mbit"), {}, "network"),
    ((), {"streams": "1"}, "cpu"),
    ((), {**UDP_2G, "window": "8K"}, "receive-buffer"),
    (("--delay", "50ms"), {"window": "64K"}, "window"),
    (("--rate", "1gbit"), {"udp": "true", "bitrate": "50M"}, "rate"),
)


def _run(qtbot: QtBot, window: MainWindow, values: dict[str, str]) -> RunTab:
    panel = window.run_panel
    assert panel.select_pair("lab") and panel.select_tool("iperf3")
    for name, value in {"duration": "4", "streams": "1", "udp": "false", "bitrate": "0",
                        "length": "0", "window": "0", **values}.items():  # fmt: skip
        set_field(panel, name, value)
    click_start(qtbot, panel)
    controller = last_controller(panel)
    qtbot.waitUntil(lambda: window.run_tabs.tab_of(controller) is not None, timeout=30_000)
    tab = window.run_tabs.tab_of(controller)
    assert tab is not None
    qtbot.waitUntil(lambda: {"client", "server"} <= set(tab.hosts.texts()), timeout=30_000)
    assert controller.phase is RunPhase.RUNNING  # the panel fills while the run goes
    qtbot.waitUntil(lambda: controller.phase is RunPhase.FINISHED, timeout=90_000)
    qtbot.waitUntil(lambda: tab.summary_box.findChild(object, "verdict") is not None)
    return tab


@pytest.mark.serial
@pytest.mark.timeout(600)
def test_the_five_verdicts_in_the_window(qtbot: QtBot, lab: Any, tmp_path: Path) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    settings = isolated_settings(tmp_path)
    with open_window(qtbot, lab.library, settings, size=(1280, 720)) as window:
        for shaping, values, limit in CASES:
            lab.shape(*shaping)
            tab = _run(qtbot, window, values)
            controller = tab.controller
            assert controller.run is not None and controller.diagnosis is not None
            with Library.open(lab.library) as lib:
                stored = get_analysis(lib, controller.run.id, "diagnosis")
            assert stored == controller.diagnosis.payload()
            line = tab.summary_box.findChild(object, "verdict")
            assert line.full_text == controller.diagnosis.sentence()
            assert controller.diagnosis.limit == limit, controller.diagnosis
            # As drawn the moment the run ended (no event processed since): nothing over
            # anything, every label whole (a verdict once covered the summary's third row).
            window.grab().save(str(SCREENS / f"verdict-{limit}.png"))
            problems = layout_problems(window)
            assert problems == [], f"{limit}:\n" + "\n".join(problems)
