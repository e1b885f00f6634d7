"""The main window: a thin shell that composes the feature views."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow, QTabWidget

from pairbench.library import Library
from pairbench.ui.library.runs_view import RunsView


class MainWindow(QMainWindow):
    """Composes the views; holds no logic of its own."""

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.setWindowTitle(f"Pairbench — {library.path}")
        self.resize(1100, 700)
        self.tabs = QTabWidget()
        self.runs_view = RunsView(library)
        self.tabs.addTab(self.runs_view, "Library")
        self.setCentralWidget(self.tabs)
        self.statusBar().showMessage(f"Library: {library.path}")
