"""The window's layout from one launch to the next: every named splitter's sizes and the
tab that was in front (the window's geometry and docks are Qt's own saveState)."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QSplitter, QTabWidget, QWidget

PREFIX = "splitters/"
KEY_TAB = "window/tab"


def save_layout_state(root: QWidget, tabs: QTabWidget, settings: QSettings) -> None:
    """Keep the sizes of every splitter that has an object name, and the current tab."""
    for splitter in root.findChildren(QSplitter):
        name = splitter.objectName()
        if name:
            settings.setValue(PREFIX + name, splitter.saveState())
    settings.setValue(KEY_TAB, tabs.tabText(tabs.currentIndex()))


def restore_layout_state(root: QWidget, tabs: QTabWidget, settings: QSettings) -> None:
    """Give the named splitters their kept sizes and bring the kept tab to the front (a tab
    that no longer exists, e.g. a run's, is ignored)."""
    for splitter in root.findChildren(QSplitter):
        name = splitter.objectName()
        state = settings.value(PREFIX + name) if name else None
        if state is not None:
            splitter.restoreState(state)
    title = settings.value(KEY_TAB)
    for index in range(tabs.count()):
        if tabs.tabText(index) == title:
            tabs.setCurrentIndex(index)
            break
