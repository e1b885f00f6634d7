"""Starting the Qt application: QApplication, the library, the main window, the event loop."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from pairbench import __version__
from pairbench.library import Library, LibraryError
from pairbench.ui.main_window import MainWindow

# resources/ beside app/ in a source checkout.
ICON_PATH = Path(__file__).resolve().parents[3] / "resources" / "pairbench.svg"


def create_app() -> QApplication:
    """The QApplication (reused if one exists, as under pytest-qt)."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Pairbench")
    app.setOrganizationName("Pairbench")
    app.setApplicationVersion(__version__)
    if ICON_PATH.is_file():
        app.setWindowIcon(QIcon(str(ICON_PATH)))
    return app  # type: ignore[return-value]


def run_app(library_path: Path) -> int:
    """Open the library and show the workbench until the user closes it."""
    app = create_app()
    try:
        library = Library.open(library_path)
    except LibraryError as exc:
        QMessageBox.critical(None, "Pairbench", str(exc))
        return 1
    window = MainWindow(library)
    window.show()
    _quit_on_signals(app)
    try:
        return app.exec()
    finally:
        library.close()


def _quit_on_signals(app: QApplication) -> None:
    """Close the window cleanly on SIGINT/SIGTERM (Qt alone would ignore or die on them)."""

    def request_quit(_signum: int, _frame: object) -> None:
        app.closeAllWindows()
        app.quit()

    signal.signal(signal.SIGINT, request_quit)
    signal.signal(signal.SIGTERM, request_quit)
    # Python runs signal handlers only between bytecodes: wake the interpreter regularly.
    timer = QTimer(app)
    timer.timeout.connect(lambda: None)
    timer.start(200)
