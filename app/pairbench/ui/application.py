"""Starting the Qt application: QApplication, the library, the engine bridge, the main window."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from pairbench import __version__
from pairbench.services.library import Library, LibraryError, LibraryFullError
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.desktop import report_startup, set_desktop_identity
from pairbench.ui.focus_style import install_focus_style
from pairbench.ui.main_window import MainWindow
from pairbench.ui.secret_prompt import GuiSecretPrompt
from pairbench.ui.team_sync import TeamSync

# Where the window keeps its layout and last choices (an INI file); tests point it elsewhere.
SETTINGS_ENV = "PAIRBENCH_SETTINGS"


def create_app() -> QApplication:
    """The QApplication (reused if one exists, as under pytest-qt)."""
    existing = QApplication.instance()
    if existing is None:
        app = QApplication(sys.argv[:1])
    elif isinstance(existing, QApplication):
        app = existing
    else:
        raise RuntimeError("a QCoreApplication without widgets is already running")
    app.setApplicationName("Pairbench")
    app.setOrganizationName("Pairbench")
    app.setApplicationVersion(__version__)
    set_desktop_identity(app)  # the icon (package data) and the .desktop file's name
    install_focus_style(app)  # keyboard focus that can be seen
    return app


def app_settings() -> QSettings:
    """The user's settings: ``$PAIRBENCH_SETTINGS`` if set, else Pairbench/workbench.ini
    in the user's configuration directory."""
    path = os.environ.get(SETTINGS_ENV)
    if path:
        return QSettings(path, QSettings.Format.IniFormat)
    return QSettings(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, "Pairbench", "workbench"
    )


def run_app(library_path: Path) -> int:
    """Open the library and show the workbench until the user closes it."""
    app = create_app()
    try:
        library = Library.open(library_path)  # checked here: a bad file is refused before Qt
    except (LibraryError, LibraryFullError) as exc:
        QMessageBox.critical(None, "Pairbench", str(exc))
        return 1
    if library.full is not None:  # open for one connection only; the window needs two
        library.close()
        words = "the window opens it once there is room (the pairbench command reads it now)"
        QMessageBox.critical(None, "Pairbench", str(library.full.keeping(words)))
        return 1
    prompt = GuiSecretPrompt()
    bridge = EngineBridge(library_path, secrets=prompt)
    team = TeamSync(bridge, library_path)
    try:
        window = MainWindow(bridge, library, app_settings(), secret_prompt=prompt)
        window.teamConnected.connect(team.refresh)
        window.show()
        _show_library_warnings(window, library.warnings)
        _quit_on_signals(app, window)
        report_startup(window)  # only with PAIRBENCH_REPORT_STARTUP=1 (signals handled by then)
        return app.exec()
    finally:
        team.stop()
        bridge.shutdown()
        library.close()


def _show_library_warnings(window: MainWindow, warnings: list[str]) -> QMessageBox | None:
    """What opening the library found and repaired (e.g. samples lost with a deleted WAL),
    or found wrong (a host with a name reserved for this computer, and how to rename it)."""
    if not warnings:
        return None
    box = QMessageBox(
        QMessageBox.Icon.Warning,
        "Pairbench: about this library",
        "\n\n".join(warnings),
        QMessageBox.StandardButton.Ok,
        window,
    )
    box.setObjectName("libraryWarnings")
    box.setModal(False)
    box.open()
    return box


def _quit_on_signals(app: QApplication, window: MainWindow) -> None:
    """Close the window cleanly on SIGINT/SIGTERM (Qt alone would ignore or die on them)."""

    def request_quit(_signum: int, _frame: object) -> None:
        window.close_without_asking()
        app.closeAllWindows()
        app.quit()

    signal.signal(signal.SIGINT, request_quit)
    signal.signal(signal.SIGTERM, request_quit)
    # Python runs signal handlers only between bytecodes: wake the interpreter regularly.
    timer = QTimer(app)
    timer.timeout.connect(lambda: None)
    timer.start(200)
