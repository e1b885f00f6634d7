"""The run library view: a table of every stored run, refreshed on demand."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from pairbench.library import Library
from pairbench.library.runs import list_runs
from pairbench.ui.library.runs_model import RunsTableModel


class RunsView(QWidget):
    """Lists the runs of a library."""

    def __init__(self, library: Library) -> None:
        super().__init__()
        self._library = library
        self.model = RunsTableModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)
        self.count_label = QLabel()
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        top = QHBoxLayout()
        top.addWidget(self.count_label)
        top.addStretch(1)
        top.addWidget(refresh)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table)
        self.refresh()

    def refresh(self) -> None:
        runs = list_runs(self._library)
        self.model.set_runs(runs)
        self.table.resizeColumnsToContents()
        if runs:
            self.count_label.setText(f"{len(runs)} runs")
        else:
            self.count_label.setText(
                "No runs yet. Try: pairbench run --pair local --tool iperf3 --set duration=5"
            )
