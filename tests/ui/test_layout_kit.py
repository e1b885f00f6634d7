"""The layout kit finds what it is there to find: each rule of ``layout_problems`` on a small
window that breaks it (so a layout test passing means the rule held, not that it never
looked)."""

from __future__ import annotations

import pyqtgraph as pg
from layout_kit import layout_problems
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

SIZE = (400, 500)
WORD = "Supercalifragilisticexpialidocious-and-then-some-more-letters"


def _window(qtbot: QtBot, *children: QWidget) -> QWidget:
    window = QWidget()
    qtbot.addWidget(window)
    layout = QVBoxLayout(window)
    for child in children:
        layout.addWidget(child)
    window.resize(*SIZE)
    window.show()
    qtbot.waitExposed(window)
    return window


def _fixed(widget: QWidget, width: int) -> QWidget:
    widget.setFixedWidth(width)
    return widget


def test_a_window_that_fits_has_no_problem(qtbot: QtBot) -> None:
    plot = pg.PlotWidget()
    plot.setMinimumHeight(250)
    window = _window(qtbot, QLabel("fits"), plot)
    assert layout_problems(window, size=SIZE) == []


def test_each_rule_is_checked(qtbot: QtBot) -> None:
    wrapped = _fixed(QLabel(f"two words {WORD}"), 120)
    wrapped.setWordWrap(True)
    rich = _fixed(QLabel(f"<b>{WORD}</b>"), 120)
    rich.setTextFormat(Qt.TextFormat.RichText)
    area = QScrollArea()
    area.setWidget(_fixed(QWidget(), 900))
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # cut, not shown
    chart = pg.GraphicsLayoutWidget()
    chart.setFixedHeight(150)
    chart.addPlot(title="left")
    chart.addPlot(title="right")  # two plots side by side in 380 px: each under 200 px wide
    small = pg.PlotWidget(title="small")
    small.setFixedHeight(90)
    window = _window(qtbot, _fixed(QLabel(WORD), 120), wrapped, rich, area, chart, small)
    problems = "\n".join(layout_problems(window, size=SIZE))
    assert f"label {WORD[:40]!r}" in problems and "text " in problems
    assert "label 'two words" in problems and "a word " in problems
    assert f"label '<b>{WORD[:37]}" in problems
    assert "QScrollArea scrolls sideways" in problems
    assert "plot left: " in problems and "plot right: " in problems
    assert "plot small is " in problems and "plot small: data area" in problems
    window.resize(500, 500)
    assert "window is 500×500" in "\n".join(layout_problems(window, size=SIZE))


def test_a_widget_lower_than_its_layout_needs_is_found(qtbot: QtBot) -> None:
    """A box of three labels given less height than its layout's least (as a splitter's pane
    can be): its labels are drawn over each other, and the check says so."""
    box = QWidget()
    box.setObjectName("squeezed")
    column = QVBoxLayout(box)
    for text in ("first", "second", "third"):
        column.addWidget(QLabel(text))
    holder = QWidget()
    box.setParent(holder)
    window = _window(qtbot, holder)
    assert layout_problems(window, size=SIZE) == []  # the box at its own size: fine
    least = column.totalMinimumSize().height()
    box.setGeometry(0, 0, 200, least - 20)
    problems = "\n".join(layout_problems(window, size=SIZE))
    assert f"squeezed is {least - 20} px high, needs {least} px" in problems
