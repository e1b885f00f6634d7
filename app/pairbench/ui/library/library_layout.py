"""The library view's list page laid out: filters, pinned runs, the runs or studies, drop hint."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from pairbench.tools.registry import TOOLS
from pairbench.ui.hosts.form_rows import NOTE_STYLE


def drop_hint() -> QLabel:
    """What a drop of files does, and the keys that open and edit a run."""
    label = QLabel(
        f"Drop saved tool output files ({', '.join(sorted(TOOLS))}) here to import them. "
        "Double-click or Enter opens a run; F2 edits its label."
    )
    label.setStyleSheet(NOTE_STYLE)
    label.setWordWrap(True)
    return label


def runs_split(table: QWidget, editor: QWidget) -> QSplitter:
    """The run table above the selected runs' editor (the table gets the room)."""
    split = QSplitter(Qt.Orientation.Vertical)
    split.setObjectName("library_split")
    split.addWidget(table)
    split.addWidget(editor)
    split.setStretchFactor(0, 5)
    split.setStretchFactor(1, 1)
    split.setChildrenCollapsible(False)
    return split


def list_page(*parts: QWidget, stretch: QWidget) -> QWidget:
    """``parts`` one above the other, ``stretch`` taking the room left."""
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(0, 0, 0, 0)
    for part in parts:
        layout.addWidget(part, 1 if part is stretch else 0)
    return page
