"""Run tabs in the main window's tab widget: one per started run, closable, several at once."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QTabWidget, QWidget

from pairbench.domain import Run
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.run.controller import RunController
from pairbench.ui.run.run_tab import RunTab


class RunTabs(QObject):
    """Opens a tab when a run starts, keeps it updated, asks before closing a running one."""

    runFinished = Signal(object)  # Run
    activeCountChanged = Signal(int)

    def __init__(
        self,
        tabs: QTabWidget,
        parent: QObject | None = None,
        *,
        bridge: EngineBridge | None = None,
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge  # lets a tab pin a stored run as a baseline
        self.tabs_widget = tabs
        self.controllers: list[RunController] = []
        self.tabs: list[RunTab] = []
        if not tabs.tabsClosable():
            tabs.setTabsClosable(True)
        tabs.tabCloseRequested.connect(self._close_requested)

    def track(self, controller: RunController) -> None:
        """Follow a submitted run: its tab opens when it starts."""
        self.controllers.append(controller)
        controller.started.connect(lambda: self._open_tab(controller))
        controller.finished.connect(lambda run: self._finished(controller, run))
        controller.changed.connect(self._count_changed)
        controller.failed.connect(lambda _msg: self._forget_if_tabless(controller))
        self._count_changed()

    def active(self) -> list[RunController]:
        return [c for c in self.controllers if c.active]

    def tab_of(self, controller: RunController) -> RunTab | None:
        return next((tab for tab in self.tabs if tab.controller is controller), None)

    def _open_tab(self, controller: RunController) -> None:
        if self.tab_of(controller) is not None:
            return
        tab = RunTab(controller, bridge=self.bridge)
        self.tabs.append(tab)
        index = self.tabs_widget.addTab(tab, tab.tab_title)
        self.tabs_widget.setTabToolTip(index, controller.title)
        tab.titleChanged.connect(lambda title: self._retitle(tab, title))
        self.tabs_widget.setCurrentIndex(index)

    def _retitle(self, tab: RunTab, title: str) -> None:
        index = self.tabs_widget.indexOf(tab)
        if index >= 0:
            self.tabs_widget.setTabText(index, title)

    def _finished(self, controller: RunController, run: Run) -> None:
        self.runFinished.emit(run)
        self._forget_if_tabless(controller)

    def _forget_if_tabless(self, controller: RunController) -> None:
        forget = not controller.active and self.tab_of(controller) is None
        if forget and controller in self.controllers:
            self.controllers.remove(controller)
        self._count_changed()

    def _count_changed(self) -> None:
        self.activeCountChanged.emit(len(self.active()))

    def _close_requested(self, index: int) -> None:
        widget = self.tabs_widget.widget(index)
        if isinstance(widget, RunTab):
            self.close_tab(widget)

    def close_tab(self, tab: RunTab, *, ask: bool = True) -> bool:
        """Close a run's tab; a running run is cancelled first (after asking). True if closed."""
        controller = tab.controller
        if controller.active:
            if ask and not _confirm_cancel(self.tabs_widget, controller):
                return False
            controller.cancel()
        index = self.tabs_widget.indexOf(tab)
        if index >= 0:
            self.tabs_widget.removeTab(index)
        self.tabs.remove(tab)
        tab.deleteLater()
        self._forget_if_tabless(controller)
        return True


def _confirm_cancel(parent: QWidget, controller: RunController) -> bool:
    answer = QMessageBox.question(
        parent,
        "Cancel the run?",
        f"Run {controller.title} is still in progress. Cancel it and close its tab?\n"
        "What was measured so far is kept in the library as a cancelled run.",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No,
    )
    return answer == QMessageBox.StandardButton.Yes
