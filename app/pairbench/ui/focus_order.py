"""Tab order that follows what a form shows, top to bottom: a widget's tab stops (its own
focusable children, in the order they were made) and a chain of them."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget


def takes_tab(widget: QWidget) -> bool:
    """True if Tab may stop at ``widget`` (not a part that hands its focus to another)."""
    return bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus) and widget.focusProxy() is None


def tab_stops(widget: QWidget) -> list[QWidget]:
    """``widget`` and its focusable descendants in its own window (a combo box's popup
    list is not), in the order they were made."""
    window = widget.window()
    found = [widget] if takes_tab(widget) else []
    found += [c for c in widget.findChildren(QWidget) if takes_tab(c) and c.window() is window]
    return found


def chain(widgets: Iterable[QWidget]) -> list[QWidget]:
    """Make Tab go through ``widgets`` in this order (duplicates dropped); the chain."""
    order: list[QWidget] = []
    for widget in widgets:
        if widget not in order:
            order.append(widget)
    for first, second in itertools.pairwise(order):
        QWidget.setTabOrder(first, second)
    return order
