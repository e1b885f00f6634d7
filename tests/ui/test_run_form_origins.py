"""Runs never mislabelled: a preset or tool change sets the label and the values it implies
and clears those it made; what the user typed stays where it still applies; each value says
where it came from. And the form by keyboard: Tab follows it, Space ticks a box and nothing
else. All through the real widgets of a real window."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from layout_kit import replay_run
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtWidgets import QApplication, QCheckBox, QWidget
from pytestqt.qtbot import QtBot
from run_kit import isolated_settings, open_window, set_field

from pairbench.tools.registry import TOOLS
from pairbench.ui.main_window import MainWindow
from pairbench.ui.run.presets import BUILTIN_PRESETS
from pairbench.ui.run.run_panel import RunPanel

UDP = "iperf3 UDP 1400-byte datagrams"
TCP2 = "iperf3 TCP, 2 streams"
PING = "ping 1400 bytes"


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return isolated_settings(tmp_path)


@pytest.fixture
def window(qtbot: QtBot, library_path: Path, settings: QSettings) -> Iterator[MainWindow]:
    with open_window(qtbot, library_path, settings, size=(1280, 720)) as main:
        yield main


def _choose_preset(panel: RunPanel, name: str) -> None:
    """As a click in the presets' list does."""
    index = panel.preset_combo.findData(name)
    assert index > 0, name
    panel.preset_combo.setCurrentIndex(index)
    panel.preset_combo.activated.emit(index)


def _choose_tool(panel: RunPanel, name: str) -> None:
    """As a choice in the Tool list does."""
    combo = panel.run_form.tool_combo
    combo.setCurrentIndex(combo.findData(name))


def _type_label(qtbot: QtBot, panel: RunPanel, text: str) -> None:
    edit = panel.run_form.label_edit
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def _submitted(panel: RunPanel) -> tuple[str, dict[str, str], str]:
    """What Start would submit: tool, parameters (beyond the defaults), label."""
    checked = panel.validate()
    assert not isinstance(checked, str), checked
    spec = checked[1]
    return spec.tool, dict(spec.params), spec.label


def _tags(panel: RunPanel) -> dict[str, str]:
    assert panel.form is not None
    return {n: f.tag.text() for n, f in panel.form.fields.items() if f.tag.text()}


def _preset(name: str) -> dict[str, str]:
    """The preset's values beyond its tool's defaults (what Start submits of it)."""
    preset = next(p for p in BUILTIN_PRESETS if p.name == name)
    params = TOOLS[preset.tool].params
    return {k: v for k, v in preset.params.items() if v != params[k].default}


def test_udp_run_then_the_ping_preset_is_labelled_ping(qtbot: QtBot, window: MainWindow) -> None:
    """The issue's sequence: a UDP run labelled by hand, then the ping preset."""
    panel = window.run_panel
    _choose_preset(panel, UDP)
    assert _submitted(panel) == ("iperf3", _preset(UDP), UDP)
    _type_label(qtbot, panel, "udp 1G 1400")
    assert panel.run_form.label_tag.text() == "yours"
    _choose_preset(panel, PING)
    assert _submitted(panel) == ("ping", _preset(PING), PING)
    assert panel.run_form.label_tag.text() == "preset"
    assert _tags(panel) == dict.fromkeys(_preset(PING), "preset")
    # Back on iperf3, nothing of the UDP preset is left.
    _choose_tool(panel, "iperf3")
    assert _submitted(panel) == ("iperf3", {}, "")
    assert panel.preset_combo.currentIndex() == 0  # "Choose a preset…"


def test_ping_then_fio_keeps_neither_label_nor_values(qtbot: QtBot, window: MainWindow) -> None:
    panel = window.run_panel
    _choose_preset(panel, PING)
    _choose_tool(panel, "fio")
    assert _submitted(panel) == ("fio", {}, "")
    assert panel.preset_combo.currentIndex() == 0
    # A label typed for ping does not follow to fio either: cleared, and said so.
    _choose_tool(panel, "ping")
    _type_label(qtbot, panel, "ping 1400")
    _choose_tool(panel, "fio")
    assert _submitted(panel)[2] == ""
    assert "ping 1400" in panel.run_form.label_edit.placeholderText()
    # ping's form lost the preset's values (it was left), nothing the user typed was there.
    _choose_tool(panel, "ping")
    assert _submitted(panel)[1] == {}


def test_iperf3_udp_to_tcp_keeps_no_datagram_length(qtbot: QtBot, window: MainWindow) -> None:
    """Unticking udp on the UDP preset, or choosing the TCP preset: no length=1400."""
    panel = window.run_panel
    _choose_preset(panel, UDP)
    assert panel.form is not None
    box = panel.form.fields["udp"].widget
    assert isinstance(box, QCheckBox)
    # The user unticks it (a click on the box itself, left in its row).
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(6, box.height() // 2))
    _tool, params, label = _submitted(panel)
    assert "length" not in params and "bitrate" not in params and params.get("udp") != "true"
    assert label == "" and panel.preset_combo.currentIndex() == 0

    _choose_preset(panel, UDP)
    _choose_preset(panel, TCP2)
    assert _submitted(panel) == ("iperf3", _preset(TCP2), TCP2)


def test_what_the_user_typed_stays_where_it_applies(qtbot: QtBot, window: MainWindow) -> None:
    panel = window.run_panel
    set_field(panel, "streams", "4")
    set_field(panel, "window", "256K")
    set_field(panel, "congestion", "bbr")  # TCP only: tied to udp
    assert _tags(panel) == {"streams": "yours", "window": "yours", "congestion": "yours"}
    _choose_preset(panel, UDP)
    params = _submitted(panel)[1]
    assert params == {**_preset(UDP), "streams": "4", "window": "256K"}
    assert _tags(panel) == {
        **dict.fromkeys(_preset(UDP), "preset"),
        "streams": "yours",
        "window": "yours",
    }
    _choose_preset(panel, TCP2)  # sets streams itself: the preset's value wins
    assert _submitted(panel)[1] == {**_preset(TCP2), "window": "256K"}
    # Typed values of a tool stay with it while another is shown.
    _choose_tool(panel, "ping")
    set_field(panel, "count", "7")
    _choose_tool(panel, "iperf3")
    assert _submitted(panel)[1] == {"window": "256K"}  # the TCP preset's values left with it
    _choose_tool(panel, "ping")
    assert _submitted(panel)[1] == {"count": "7"}


def test_a_value_typed_over_a_preset_keeps_the_preset(qtbot: QtBot, window: MainWindow) -> None:
    """Changing the duration of the UDP preset is still that preset's kind of run: the
    label and the other values stay, the duration is marked as the user's."""
    panel = window.run_panel
    _choose_preset(panel, UDP)
    set_field(panel, "duration", "20")
    assert _submitted(panel) == ("iperf3", {**_preset(UDP), "duration": "20"}, UDP)
    assert _tags(panel)["duration"] == "yours" and _tags(panel)["length"] == "preset"


def test_the_followed_preset_and_its_marks_come_back(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    with open_window(qtbot, library_path, settings) as window:
        _choose_preset(window.run_panel, UDP)
        set_field(window.run_panel, "streams", "3")
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        assert _submitted(panel) == ("iperf3", {**_preset(UDP), "streams": "3"}, UDP)
        assert panel.preset_combo.currentData() == UDP
        assert _tags(panel)["length"] == "preset" and _tags(panel)["streams"] == "yours"


def _tab_from(qtbot: QtBot, start: QWidget, count: int) -> list[QWidget]:
    """The widgets focus visits on ``count`` presses of Tab from ``start``."""
    start.setFocus()
    qtbot.waitUntil(start.hasFocus, timeout=5_000)
    seen = []
    for _ in range(count):
        focused = QApplication.focusWidget()
        assert focused is not None
        qtbot.keyClick(focused, Qt.Key.Key_Tab)
        now = QApplication.focusWidget()
        assert now is not None
        seen.append(now)
    return seen


@pytest.mark.parametrize("tool", ["iperf3", "fio"])
def test_tab_goes_from_the_label_through_the_parameters_to_start(
    qtbot: QtBot, window: MainWindow, tool: str
) -> None:
    """Also once a run's tab is open beside the panel (its buttons come after)."""
    window.activateWindow()
    replay_run(window, "ping", "c5_i02.out", {"count": "5"})
    panel = window.run_panel
    _choose_tool(panel, tool)
    assert panel.form is not None
    stops = panel.form.focus_chain()
    assert len(stops) >= len(TOOLS[tool].params) - 1
    seen = _tab_from(qtbot, panel.run_form.label_edit, len(stops) + 1)
    assert seen[: len(stops)] == stops
    assert seen[len(stops)] is panel.start_button


def test_space_on_a_checkbox_ticks_it_and_does_nothing_else(
    qtbot: QtBot, window: MainWindow
) -> None:
    """A finished run's tab is open (its "Pin baseline…" a Tab away in the old order):
    Tab to the udp box, Space ticks it; no dialog opens, nothing starts."""
    window.activateWindow()
    controller, _signals = replay_run(window, "ping", "c5_i02.out", {"count": "5"})
    panel = window.run_panel
    assert panel.form is not None
    stops = panel.form.focus_chain()
    box = panel.form.fields["udp"].widget
    seen = _tab_from(qtbot, panel.run_form.label_edit, stops.index(box) + 1)
    assert seen[-1] is box
    runs_before = len(panel.controllers)
    qtbot.keyClick(box, Qt.Key.Key_Space)
    assert isinstance(box, QCheckBox) and box.isChecked()
    assert QApplication.activeModalWidget() is None
    tab = window.run_tabs.tab_of(controller)
    assert tab is not None and tab.baseline_pin is not None and tab.baseline_pin.dialog is None
    assert len(panel.controllers) == runs_before


def test_the_run_tabs_buttons_have_keys(qtbot: QtBot, window: MainWindow) -> None:
    """Ctrl+0 shows the whole run, Ctrl+L follows it again, Ctrl+B asks for a baseline for
    the run in front (keys listed in the View and Run menus): with no other ping run stored,
    the tab says so."""
    window.activateWindow()
    controller, _signals = replay_run(window, "ping", "c5_i02.out", {"count": "5"})
    tab = window.run_tabs.tab_of(controller)
    assert tab is not None and tab.baseline_pin is not None
    ctrl = Qt.KeyboardModifier.ControlModifier
    qtbot.keyClick(window, Qt.Key.Key_0, ctrl)
    assert not tab.plots.follow
    qtbot.keyClick(window, Qt.Key.Key_L, ctrl)
    assert tab.plots.follow
    pin = tab.baseline_pin
    qtbot.keyClick(window, Qt.Key.Key_B, ctrl)
    qtbot.waitUntil(lambda: "No stored ping run" in pin.status.text(), timeout=10_000)
