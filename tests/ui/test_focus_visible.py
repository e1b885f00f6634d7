"""Keyboard focus can be seen: the focused check box (the run form's have no text), button
and field get a ring in the highlight blue; an unfocused one has none, and neither had one
under the desktop's style alone."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QCheckBox, QLineEdit, QPushButton, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from pairbench.ui.application import create_app
from pairbench.ui.focus_style import FOCUS_COLOR, FocusStyle, install_focus_style


def _ring_pixels(widget: QWidget) -> int:
    """Pixels near the focus blue in the widget's picture."""
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    count = 0
    for y in range(image.height()):
        for x in range(image.width()):
            color = QColor(image.pixel(x, y))
            if (
                abs(color.red() - FOCUS_COLOR.red()) < 40
                and abs(color.green() - FOCUS_COLOR.green()) < 40
                and abs(color.blue() - FOCUS_COLOR.blue()) < 40
            ):
                count += 1
    return count


@pytest.mark.parametrize("kind", [QCheckBox, QPushButton, QLineEdit])
def test_the_focused_widget_has_a_ring(qtbot: QtBot, kind: type[QWidget]) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    base = QApplication.style().name()
    ringed = FocusStyle(base)
    plain = kind()
    ring = kind()
    other = QLineEdit()  # takes the focus away
    for widget in (plain, ring, other):
        widget.setFixedSize(120, 28)
    ring.setStyle(ringed)
    layout = QVBoxLayout(host)
    for widget in (plain, ring, other):
        layout.addWidget(widget)
    host.show()
    qtbot.waitExposed(host)
    host.activateWindow()
    qtbot.waitActive(host)

    other.setFocus()
    qtbot.waitUntil(other.hasFocus)
    unfocused = _ring_pixels(ring)
    ring.setFocus()
    qtbot.waitUntil(ring.hasFocus)
    focused = _ring_pixels(ring)
    plain.setFocus()
    qtbot.waitUntil(plain.hasFocus)
    desktop_style_only = _ring_pixels(plain)

    assert focused >= 40, focused  # a ring: tens of pixels of the blue
    assert unfocused < 10 and desktop_style_only < focused // 3


def test_the_application_installs_it_once(qapp: QApplication) -> None:
    assert create_app() is qapp  # the window's application: its style shows focus
    first = qapp.style()
    assert isinstance(qapp.style(), FocusStyle)
    assert install_focus_style(qapp) is first
