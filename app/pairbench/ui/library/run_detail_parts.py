"""The run detail's parts: its labels, info tree and text panes as made, and its titles' words."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QHeaderView, QLabel, QLayout, QPlainTextEdit, QTreeWidget

# isort: split

from pairbench.domain import Run
from pairbench.domain.timestamps import time_text
from pairbench.services.run_browser import RunDetail
from pairbench.ui.library.run_info import wrap_values
from pairbench.ui.library.runs_model import STATUS_COLORS


def title_label() -> QLabel:
    """The run's title: bold, a quarter larger, wrapped (the window never widens for it)."""
    label = QLabel("Loading…")
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 1.25)
    font.setBold(True)
    label.setFont(font)
    label.setWordWrap(True)
    return label


def selectable_label(color: str | None = None) -> QLabel:
    """A wrapped line the user can select (and copy), in ``color`` when given."""
    label = QLabel()
    label.setWordWrap(True)
    if color is not None:
        label.setStyleSheet(f"color: {color};")
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def info_tree() -> QTreeWidget:
    """The run's facts, two columns; long values wrap: never cut, never a sideways scroll."""
    tree = QTreeWidget()
    tree.setColumnCount(2)
    tree.setHeaderLabels(["", "Value"])
    tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
    tree.setAlternatingRowColors(True)
    tree.setMinimumWidth(300)
    wrap_values(tree)
    return tree


def mono_text() -> QPlainTextEdit:
    """A read-only pane of text in the system's fixed font, lines never wrapped."""
    text = QPlainTextEdit()
    text.setReadOnly(True)
    text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    mono.setStyleHint(QFont.StyleHint.Monospace)
    text.setFont(mono)
    return text


def clear_layout(layout: QLayout) -> None:
    """Every widget of ``layout`` gone from the view now, not at the next event loop."""
    while layout.count():
        item = layout.takeAt(0)
        widget = item.widget() if item is not None else None
        if widget is not None:
            widget.hide()
            widget.setParent(None)
            widget.deleteLater()


def run_title(run: Run, team_note: str) -> str:
    """``Run 12 · iperf3 on pair · label`` (``Team run`` for a team library's run)."""
    return f"{'Team run' if team_note else 'Run'} {run.id} · {run.spec.tool} on {run.spec.pair}" + (
        f" · {run.label}" if run.label else ""
    )


def run_subtitle(run: Run, duration: str, team_note: str) -> str:
    """The run's status (in its colour), start, duration, tool version and origin."""
    color = STATUS_COLORS.get(run.status)
    status = (
        f'<span style="color:{color.name()}">{run.status.value}</span>'
        if color
        else run.status.value
    )
    return (
        f"{status} · started {time_text(run.started_at)} · {duration}"
        + (f" · {run.tool_version}" if run.tool_version else "")
        + (f" · {team_note}" if team_note else "")
    )


def raw_text_of(detail: RunDetail) -> str:
    """The raw output as shown: said when it is cut, or that none was stored."""
    text = detail.raw_text
    if detail.raw_truncated:
        text += "\n\n[… the raw output is longer; the rest is not shown here]"
    return text or "(no raw output stored)"
