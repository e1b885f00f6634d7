"""The Hosts panel of a run's tab: both hosts' telemetry, live (``ui/run/hosts_table.py``).

Fed by the ``RunController``'s telemetry records; redrawn at most every ``REDRAW_MS`` and only
when something changed; hidden until the first telemetry arrives. Live it shows each figure's
latest value; once the run ended, each figure's median over the run (up to the tool's last
interval: the hosts idle after it). ``show_figures`` fills it from a stored run's figures
(the run detail's Hosts tab). Nothing scrolls sideways: the columns that do not fit the width
go on to a second band (or more) under the first, each band headed by its titles and with a
line per host (``band_size``).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QGridLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from pairbench.domain import Record
from pairbench.ui.run.hosts_table import HostsTable, hosts_table, take_latest

REDRAW_MS = 250
SPACING = 16  # between columns
# Room a band must leave before the panel takes one band fewer (live figures change width
# every redraw: without it, the panel would jump between one and two bands).
SLACK = 40


def band_size(widths: Sequence[int], head: int, room: int, current: int = 0) -> int:
    """How many columns a band holds: the most whose bands, columns aligned one above the
    other (each as wide as its widest cell in any band) after the ``head`` column of host
    names, fit ``room`` (at least one). More than ``current`` only with ``SLACK`` to spare."""
    count = len(widths)
    for size in range(count, 1, -1):
        aligned = [max(widths[j::size]) for j in range(size)]
        need = head + sum(aligned) + SPACING * size
        if need <= room - (SLACK if current and size > current else 0):
            return size
    return 1


class HostsPanel(QGroupBox):
    """Rows client and server, a column per figure that tells what limits the run; the
    columns wrap into bands rather than scroll sideways."""

    def __init__(self, proto: str = "", parent: QWidget | None = None) -> None:
        super().__init__("Hosts", parent)
        self.setObjectName("hosts_panel")
        self.proto = proto
        self.figures: dict[tuple[str, str], float] = {}
        self._history: dict[tuple[str, str], list[tuple[float, float]]] = {}
        self.table = HostsTable((), ())
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(8, 2, 8, 4)
        self._body = QWidget()
        self._box.addWidget(self._body)
        self._heads: list[QLabel] = []  # a column's title
        self._names: list[list[QLabel]] = []  # per band, a label per host
        self._labels: dict[tuple[int, int], QLabel] = {}  # (host row from 1, column from 1)
        self._shape: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        self.band = 0  # columns a band holds now (0: not placed yet)
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._redraw)
        self.setVisible(False)

    def add_records(self, records: list[Record]) -> None:
        """Telemetry records of the live run (the latest value of each figure is shown)."""
        take_latest(self.figures, records)
        for stream, t, metrics, values in records:
            for metric, value in zip(metrics, values, strict=True):
                self._history.setdefault((stream, metric), []).append((t, value))
        self._dirty = True
        if not self._timer.isActive():
            self._timer.start()

    def show_figures(self, figures: Mapping[tuple[str, str], float]) -> None:
        """Show these figures now (a stored run's)."""
        self.figures = dict(figures)
        self._dirty = True
        self._redraw()

    def finish(self, last_t: float | None = None) -> None:
        """The run ended: show each figure's median over the run (samples up to just after
        ``last_t``, the tool's last interval, when known), then stop the timer."""
        medians = {}
        for key, samples in self._history.items():
            kept = [v for t, v in samples if (last_t is None or t <= last_t + 0.6) and v == v]
            if kept:
                medians[key] = statistics.median(kept)
        if medians:
            self.figures = medians
            self.setTitle("Hosts (medians over the run)")
        self._dirty = True
        self._redraw()
        self._timer.stop()

    def texts(self) -> dict[str, dict[str, str]]:
        """What the panel shows: role → column → text (for tests and copying)."""
        return {
            role: dict(zip(self.table.columns, cells, strict=True))
            for role, cells in self.table.rows
        }

    def bands(self) -> list[list[str]]:
        """The column titles of each band, top to bottom (for tests)."""
        titles = list(self.table.columns)
        size = self.band or len(titles) or 1
        return [titles[i : i + size] for i in range(0, len(titles), size)]

    def minimumSizeHint(self) -> QSize:
        """As narrow as one column a band (the columns wrap), as high as the bands now."""
        hint = super().minimumSizeHint()
        margins = self._box.contentsMargins()
        widths = self._widths()
        narrow = self._head_width() + SPACING + max(widths, default=0)
        return QSize(narrow + margins.left() + margins.right(), hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place()

    def _redraw(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        table = hosts_table(self.figures, self.proto)
        self.table = table
        shape = (table.columns, tuple(role for role, _ in table.rows))
        if shape != self._shape:
            self._rebuild(shape)
        for r, (_role, cells) in enumerate(table.rows, start=1):
            for c, text in enumerate(cells, start=1):
                label = self._labels[(r, c)]
                if label.text() != text:
                    label.setText(text)
        self.setVisible(bool(table.rows))
        self._place()

    def _rebuild(self, shape: tuple[tuple[str, ...], tuple[str, ...]]) -> None:
        """New labels for a new set of columns or hosts (placed by ``_place``)."""
        self._shape = shape
        for label in [*self._heads, *(n for names in self._names for n in names)]:
            label.deleteLater()
        for label in self._labels.values():
            label.deleteLater()
        self._heads, self._names, self._labels = [], [], {}
        columns, roles = shape
        for title in columns:
            head = QLabel(title)
            head.setStyleSheet("color: #555;")
            self._heads.append(head)
        for r in range(1, len(roles) + 1):
            for c in range(1, len(columns) + 1):
                label = QLabel("—")
                label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                label.setStyleSheet("font-weight: bold;")
                self._labels[(r, c)] = label
        self.band = 0

    def _widths(self) -> list[int]:
        """Each column's width: its widest cell, in the font it is drawn in (bold cells: the
        style sheet's font, applied by polishing)."""
        roles = len(self._shape[1])
        columns = [
            [self._heads[c], *(self._labels[(r, c + 1)] for r in range(1, roles + 1))]
            for c in range(len(self._heads))
        ]
        for label in (label for column in columns for label in column):
            label.ensurePolished()
        return [max(label.sizeHint().width() for label in column) for column in columns]

    def _head_width(self) -> int:
        metrics = self.fontMetrics()
        return max((metrics.horizontalAdvance(role) for role in self._shape[1]), default=0) + 4

    def _place(self) -> None:
        """Lay the columns out in as few bands as the width allows (only when that changed)."""
        if not self._heads:
            return
        margins = self._box.contentsMargins()
        room = self.contentsRect().width() - margins.left() - margins.right()
        size = band_size(self._widths(), self._head_width(), room, self.band)
        if size == self.band:
            return
        self.band = size
        body = QWidget()
        grid = QGridLayout(body)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(SPACING)
        grid.setVerticalSpacing(2)
        roles = self._shape[1]
        per_band = 1 + len(roles)
        bands = (len(self._heads) + size - 1) // size
        while len(self._names) < bands:
            self._names.append([_name_label(role) for role in roles])
        for band in range(bands):
            top = band * per_band
            for r, name in enumerate(self._names[band], start=1):
                grid.addWidget(name, top + r, 0)
            for j, c in enumerate(range(band * size, min((band + 1) * size, len(self._heads)))):
                grid.addWidget(self._heads[c], top, j + 1)
                for r in range(1, len(roles) + 1):
                    grid.addWidget(self._labels[(r, c + 1)], top + r, j + 1)
            if band:
                grid.setRowMinimumHeight(top, self.fontMetrics().height() + 6)
        for names in self._names[bands:]:
            for name in names:
                name.setParent(None)
                name.deleteLater()
        del self._names[bands:]
        grid.setColumnStretch(size + 1, 1)
        old = self._body
        self._box.replaceWidget(old, body)
        old.deleteLater()
        self._body = body
        if self.isVisible():
            body.show()  # now, not on the next turn of the event loop (no blank frame)
        self.updateGeometry()


def _name_label(role: str) -> QLabel:
    name = QLabel(role)
    name.setStyleSheet("color: #555;")
    return name
