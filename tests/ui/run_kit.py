"""Helpers for the run-side UI tests: a real window on a real engine, isolated settings."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from pairbench.library import Library
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.main_window import MainWindow
from pairbench.ui.run.controller import RunController
from pairbench.ui.run.run_panel import RunPanel
from pairbench.ui.run.run_tab import RunTab
from testkit import REPO

OUTPUT = REPO / "test-output"


def isolated_settings(tmp_path: Path) -> QSettings:
    """Settings in the test's own directory, never the user's."""
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@contextmanager
def open_window(
    qtbot: QtBot, library_path: Path, settings: QSettings, *, size: tuple[int, int] = (1400, 900)
) -> Iterator[MainWindow]:
    """The workbench on ``library_path``; closed (runs cancelled) and the bridge shut down after."""
    library = Library.open(library_path)
    bridge = EngineBridge(library_path)
    window = MainWindow(bridge, library, settings)
    try:
        window.resize(*size)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: window.run_panel.current_pair() is not None, timeout=10_000)
        yield window
    finally:
        bridge.cancel_all()
        window.close_without_asking()
        bridge.shutdown()
        library.close()


def set_field(panel: RunPanel, name: str, value: str) -> None:
    assert panel.form is not None
    panel.form.fields[name].set_value(value)


def click_start(qtbot: QtBot, panel: RunPanel) -> None:
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)


def last_controller(panel: RunPanel) -> RunController:
    controller = panel.progress.controller
    assert controller is not None
    return controller


def tab_of(window: MainWindow, controller: RunController) -> RunTab:
    tab = window.run_tabs.tab_of(controller)
    assert tab is not None
    return tab


def save_png(widget: object, name: str) -> Path:
    """Grab a widget into ``test-output/NAME`` (for a reviewer to look at)."""
    OUTPUT.mkdir(exist_ok=True)
    path = OUTPUT / name
    assert widget.grab().save(str(path)), path  # type: ignore[attr-defined]
    return path
