"""The window serves the hands: a menu bar with shortcuts driven by real key presses, the
Library's search, closing a tab, the user guide and the version, exporting the selected runs
(saying where), Run again from a run's detail, a 1280×720 window without overflow, and an
accessibility check (every action and button has a visible name and a keyboard path)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QAbstractButton, QApplication, QFileDialog, QTextBrowser
from pytestqt.qtbot import QtBot
from run_kit import isolated_settings, open_window, save_png

from pairbench.library import Library
from pairbench.services.importing import import_output
from pairbench.ui.guide_pages import guide_dir

CAPTURE = (
    Path(__file__).resolve().parents[1] / "data" / "captures" / "iperf3" / "v321_tcp_P2_json.out"
)
SHORTCUTS = {
    "new_run": "Ctrl+N",
    "start": "F5",
    "cancel": "Esc",
    "close_tab": "Ctrl+W",
    "quit": "Ctrl+Q",
    "search": "Ctrl+F",
    "export": "Ctrl+E",
    "guide": "F1",
    "team": "Ctrl+Shift+T",
    "queue": "Shift+F5",
    "pin": "Ctrl+B",
    "burst": "Ctrl+Shift+B",
    "follow": "Ctrl+L",
    "show_all": "Ctrl+0",
    "run_panel": "Ctrl+Shift+R",
    "about": "Ctrl+F1",
}


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return isolated_settings(tmp_path)


def test_menus_have_names_mnemonics_and_the_shortcuts(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    with open_window(qtbot, library_path, settings, size=(1280, 720)) as window:
        actions = window.menu_actions
        for name, keys in SHORTCUTS.items():
            assert actions[name].shortcut() == QKeySequence(keys), name
        titles = [a.text() for a in window.menuBar().actions()]
        assert titles == ["&File", "&Run", "&View", "&Help"]
        # Accessibility: every action has a visible name with a mnemonic (a keyboard path),
        # and every action of every menu a shortcut, none taken twice.
        for name, action in actions.items():
            assert action.text().strip() and "&" in action.text(), name
        keys: list[str] = []
        for menu_action in window.menuBar().actions():
            menu = menu_action.menu()
            assert menu is not None
            for action in menu.actions():
                if not action.isSeparator():
                    assert not action.shortcut().isEmpty(), action.text()
                    keys.append(action.shortcut().toString())
        assert len(keys) == len(set(keys)), keys
        assert actions["run_panel"].isEnabled()  # the dock can be hidden (and shown)
        # ...and so does every button of every tab: a text or an accessible name.
        for button in window.findChildren(QAbstractButton):
            if button.isVisibleTo(window) and button.parent() is not None:
                named = button.text().strip() or button.accessibleName().strip()
                named = named or button.toolTip().strip()
                assert named, f"a nameless button in {type(button.parent()).__name__}"
        # The fixed tabs are reachable from the keyboard: Ctrl+2 is Hosts.
        qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
        assert window.tabs.currentWidget() is window.hosts_panel
        # Ctrl+F: the Library, its search box focused.
        qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
        assert window.tabs.currentWidget() is window.runs_view
        qtbot.waitUntil(lambda: window.runs_view.search_edit.hasFocus(), timeout=5_000)
        # Ctrl+N: the run panel's tool box.
        qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: window.run_panel.run_form.tool_combo.hasFocus(), timeout=5_000)
        # F1: the user guide, on the page of the run panel (the focus is in it).
        guide = window.actions_.show_guide()
        text = guide.findChild(QTextBrowser, "guide").toPlainText()
        if guide_dir() is not None:
            assert guide.page == "window.md"
            assert "Pairbench" in text and "Campaigns" in text
        else:
            assert "not installed" in text
        guide.close()
        assert "Pairbench" in window.actions_.about_text()
        # 1280×720: every tab fits beside the run panel, nothing overflows.
        assert window.minimumSizeHint().width() <= 1280
        assert window.minimumSizeHint().height() <= 720
        assert window.width() <= 1280
        for title, widget in window.fixed_tabs.items():
            window.tabs.setCurrentWidget(widget)
            QApplication.processEvents()
            assert widget.width() >= widget.minimumSizeHint().width(), title
            save_png(window, f"window-1280-{title.lower().replace(' ', '-')}.png")


def test_export_says_where_and_run_again_fills_the_panel(
    qtbot: QtBot,
    library_path: Path,
    settings: QSettings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with Library.open(library_path) as lib:
        run = import_output(lib, "iperf3", CAPTURE.read_text(), pair="local", label="P2")
    with open_window(qtbot, library_path, settings) as window:
        view = window.runs_view
        qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=10_000)
        view.table.selectAll()
        out = tmp_path / "export" / "runs.csv"
        out.parent.mkdir()
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
        with qtbot.waitSignal(window.exported, timeout=10_000):
            qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
        assert out.is_file() and str(out.resolve()) in window.statusBar().currentMessage()
        # Run again from the run's detail: the panel holds its tool, parameters and label.
        view.open_run(run.id)
        qtbot.waitUntil(lambda: view.detail.again_button.isEnabled(), timeout=10_000)
        view.detail.again_button.click()
        panel = window.run_panel
        assert panel.current_tool().name == "iperf3"
        assert panel.form is not None
        assert panel.form.values()["streams"] == "2" and panel.form.values()["duration"] == "3"
        assert panel.run_form.label_edit.text() == "P2"
        assert panel.current_pair() is not None and panel.current_pair().name == "local"


def test_burst_credits_are_analysed_from_the_keyboard(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    with Library.open(library_path) as lib:
        run = import_output(lib, "iperf3", CAPTURE.read_text(), pair="local", label="P2")
    keys = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    with open_window(qtbot, library_path, settings) as window:
        view = window.runs_view
        qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=10_000)
        # From another tab with nothing selected: the Library comes up and says what to do.
        window.tabs.setCurrentWidget(window.hosts_panel)
        view.table.clearSelection()
        qtbot.keyClick(window, Qt.Key.Key_B, keys)
        assert window.tabs.currentWidget() is view
        assert "select one stored throughput run" in window.statusBar().currentMessage()
        # The selected run, by the key the list's context menu shows beside its entry (that
        # entry does not take the key from the Run menu's).
        assert view.select_run(run.id)
        menu = view.pins.context_menu()
        [entry] = [a for a in menu.actions() if a.text() == "Analyse burst credits"]
        assert entry.shortcut() == window.menu_actions["burst"].shortcut()
        with qtbot.waitSignal(view.detail.burstAnalysed, timeout=20_000) as analysed:
            qtbot.keyClick(window, Qt.Key.Key_B, keys)
        assert analysed.args[0] == run.id and view.stack.currentWidget() is view.detail
        # The run shown in the detail: analysed again.
        button = view.detail.burst_box.analyse_button
        qtbot.waitUntil(lambda: button.isEnabled() and button.text() == "Analyse again")
        with qtbot.waitSignal(view.detail.burstAnalysed, timeout=20_000) as again:
            qtbot.keyClick(window, Qt.Key.Key_B, keys)
        assert again.args[0] == run.id


def test_the_layout_is_kept_from_one_launch_to_the_next(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    from PySide6.QtWidgets import QSplitter

    with open_window(qtbot, library_path, settings) as window:
        split = window.runs_view.findChild(QSplitter, "library_split")
        assert split is not None
        total = sum(split.sizes())
        split.setSizes([total // 4, total - total // 4])
        kept = split.sizes()
        window.tabs.setCurrentWidget(window.campaign_panel)
        window.run_panel.select_tool("ping")
    with open_window(qtbot, library_path, settings) as again:
        split = again.runs_view.findChild(QSplitter, "library_split")
        assert split is not None
        sizes = split.sizes()  # the same share (the splitter may not be shown at full size yet)
        assert abs(sizes[0] / sum(sizes) - kept[0] / sum(kept)) < 0.02, (sizes, kept)
        assert again.tabs.currentWidget() is again.campaign_panel
        assert again.run_panel.current_tool().name == "ping"
