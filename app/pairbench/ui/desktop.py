"""Desktop identity (icon, .desktop name) and the opt-in startup report of the main window.

The icons ship inside the package (``pairbench/resources/icons/hicolor/NxN/apps/``, package
data), so an installed wheel and the PyInstaller bundle need nothing from a source checkout.

``PAIRBENCH_REPORT_STARTUP=1`` prints one line on stderr once the main window is first exposed
and painted::

    pairbench-startup: window-shown monotonic=12345.678901 icon-sizes=16,24,32,... guide=DIR

``monotonic`` is ``time.monotonic()`` (CLOCK_MONOTONIC, one clock for every process on the
machine), so a launcher that noted ``time.monotonic()`` before starting the process gets the
launch-to-window time by subtraction (``python -m bench bundle_start``, ``tests/bundle``).
``guide`` is the folder of the user guide's pages Help ▸ User guide reads (``none``), last.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QWidget

from pairbench.ui.guide_pages import guide_dir

ICON_THEME_DIR = Path(__file__).resolve().parents[1] / "resources" / "icons" / "hicolor"
DESKTOP_FILE_NAME = "pairbench"  # resources/pairbench.desktop
REPORT_ENV = "PAIRBENCH_REPORT_STARTUP"
REPORT_MARKER = "pairbench-startup:"


def app_icon() -> QIcon:
    """The application icon: every PNG size the package ships (empty if none is found)."""
    icon = QIcon()
    for png in sorted(ICON_THEME_DIR.glob("*/apps/pairbench.png")):
        icon.addFile(str(png))
    return icon


def set_desktop_identity(app: QGuiApplication) -> None:
    """Window icon and desktop file name (task bars match the window to pairbench.desktop)."""
    icon = app_icon()
    if not icon.isNull():
        app.setWindowIcon(icon)
    app.setDesktopFileName(DESKTOP_FILE_NAME)


class _FirstExposure(QObject):
    """Event filter on the window's QWindow: report once, after the first exposure's paint."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        handle = self._window.windowHandle()
        if event.type() == QEvent.Type.Expose and handle is not None and handle.isExposed():
            watched.removeEventFilter(self)
            # Queued: runs after Qt has painted and flushed the exposed window.
            QTimer.singleShot(0, self._report)
        return False

    def _report(self) -> None:
        now = time.monotonic()
        sizes = sorted({s.width() for s in self._window.windowIcon().availableSizes()})
        print(
            f"{REPORT_MARKER} window-shown monotonic={now:.6f} "
            f"icon-sizes={','.join(map(str, sizes)) or 'none'} guide={guide_dir() or 'none'}",
            file=sys.stderr,
            flush=True,
        )


def report_startup(window: QWidget) -> None:
    """With ``PAIRBENCH_REPORT_STARTUP=1``, report the window's first exposure (call after show)."""
    if os.environ.get(REPORT_ENV, "") in ("", "0"):
        return
    handle = window.windowHandle()
    if handle is None:
        return
    if handle.isExposed():  # already exposed (unusual): report right away
        _FirstExposure(window)._report()
        return
    handle.installEventFilter(_FirstExposure(window))
