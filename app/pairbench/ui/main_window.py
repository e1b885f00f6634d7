"""The main window: a thin shell that composes the feature views into tabs and docks."""

from __future__ import annotations

from PySide6.QtCore import QObject, QSettings, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QTabBar,
    QTabWidget,
    QWidget,
)

from pairbench.services.compare_refs import RunRef
from pairbench.services.library import Library
from pairbench.services.studies import Study
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.campaign.campaign_panel import CampaignPanel
from pairbench.ui.hosts.hosts_panel import HostsPanel
from pairbench.ui.layout_state import restore_layout_state, save_layout_state
from pairbench.ui.library.library_view import LibraryView
from pairbench.ui.menus import build_menus
from pairbench.ui.run.run_panel import RunPanel
from pairbench.ui.run.run_tabs import RunTabs
from pairbench.ui.secret_prompt import GuiSecretPrompt
from pairbench.ui.storage.storage_panel import StoragePanel
from pairbench.ui.window_actions import WindowActions

KEY_GEOMETRY = "window/geometry"
KEY_STATE = "window/state"
FIRST_SIZE = QSize(1400, 900)


class MainWindow(QMainWindow):
    """Composes the views; holds no logic of its own beyond closing cleanly."""

    exported = Signal(object)  # Path: runs exported from File ▸ Export
    teamConnected = Signal(str)  # File ▸ Team library… kept a team library (its address)

    def __init__(
        self,
        bridge: EngineBridge,
        library: Library,
        settings: QSettings,
        *,
        secret_prompt: GuiSecretPrompt | None = None,
    ) -> None:
        super().__init__()
        self.bridge = bridge
        self.library = library  # the GUI thread's own connection (reads for compare views)
        self.settings = settings
        self.compare_windows: list[QWidget] = []
        self.compare_loads: list[QObject] = []  # "Compare" requests: runs load, then a window
        self.fixed_tabs: dict[str, QWidget] = {}  # title → view (View menu, Ctrl+1...)
        self.secret_prompt = secret_prompt
        self.ask_before_closing = True
        self.closed = False
        self.setWindowTitle(f"Pairbench — {library.path}")
        self.resize(self._first_size())

        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.setTabsClosable(True)  # run tabs close; add_fixed_tab removes the button
        self.setCentralWidget(self.tabs)

        # Feature views. Each is built by its own package; this window only places them.
        self.runs_view = LibraryView(bridge)  # the run library; refresh() after each run
        self.add_fixed_tab(self.runs_view, "Library")
        self.runs_view.accept_drops_on(self)  # saved tool outputs dropped anywhere import
        self.runs_view.compareRequested.connect(self._open_compare)
        self.hosts_panel = HostsPanel(bridge)
        self.add_fixed_tab(self.hosts_panel, "Hosts")
        self.storage_panel = StoragePanel(bridge, secrets=secret_prompt)
        self.add_fixed_tab(self.storage_panel, "Storage suite")
        self.campaign_panel = CampaignPanel(bridge, secrets=secret_prompt)
        self.add_fixed_tab(self.campaign_panel, "Campaigns")
        self.run_panel = RunPanel(bridge, settings)
        self.run_dock = self.add_dock(self.run_panel, "Run", "run_dock")
        self.run_tabs = RunTabs(self.tabs, self, bridge=bridge)

        self.run_panel.runLaunched.connect(self.run_tabs.track)
        self.hosts_panel.changed.connect(self.run_panel.refresh_pairs)
        self.run_tabs.runFinished.connect(self._run_finished)
        self.run_tabs.activeCountChanged.connect(self._show_active_count)
        self.storage_panel.suiteFinished.connect(self._run_finished)  # its jobs are runs
        self.campaign_panel.campaignFinished.connect(self._run_finished)
        self.runs_view.studyOpenRequested.connect(self.open_study)

        self.actions_ = WindowActions(self)
        self.runs_view.runAgainRequested.connect(self.actions_.run_again)
        self.menu_actions = build_menus(self, self.actions_)

        self.active_label = QLabel()
        self.statusBar().addPermanentWidget(self.active_label)
        self.statusBar().showMessage(f"Library: {library.path}")
        self._restore_layout()

    # -- composition helpers (for feature views) ---------------------------------------------

    def add_fixed_tab(self, widget: QWidget, title: str) -> int:
        """A tab that cannot be closed (Library, Hosts...)."""
        index = self.tabs.addTab(widget, title)
        self.fixed_tabs[title] = widget
        for side in (QTabBar.ButtonPosition.RightSide, QTabBar.ButtonPosition.LeftSide):
            self.tabs.tabBar().setTabButton(index, side, None)
        return index

    def add_dock(
        self,
        widget: QWidget,
        title: str,
        name: str,
        area: Qt.DockWidgetArea = Qt.DockWidgetArea.LeftDockWidgetArea,
    ) -> QDockWidget:
        """A dock (``name`` keeps its place across starts)."""
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        # Closable: View ▸ Run panel (and its shortcut) hides and shows it on any tab; Qt
        # greys out a dock's toggle action unless the dock may be closed.
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(area, dock)
        return dock

    # -- state -----------------------------------------------------------------------------

    def _first_size(self) -> QSize:
        """The size of a first start: ``FIRST_SIZE``, within the screen's free area (a
        1280×720 laptop gets all of it, never a window wider than the screen)."""
        screen = self.screen() or QApplication.primaryScreen()
        if screen is None:
            return FIRST_SIZE
        room = screen.availableGeometry().size()
        return FIRST_SIZE.boundedTo(room)

    def _restore_layout(self) -> None:
        geometry = self.settings.value(KEY_GEOMETRY)
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resizeDocks([self.run_dock], [400], Qt.Orientation.Horizontal)
        state = self.settings.value(KEY_STATE)
        if state is not None:
            self.restoreState(state)
        restore_layout_state(self, self.tabs, self.settings)

    def save_layout(self) -> None:
        self.settings.setValue(KEY_GEOMETRY, self.saveGeometry())
        self.settings.setValue(KEY_STATE, self.saveState())
        save_layout_state(self, self.tabs, self.settings)
        self.run_panel.save_state()
        self.settings.sync()

    def _run_finished(self, _run: object) -> None:
        if not self.closed:  # runs cancelled while closing report after the library closed
            self.runs_view.refresh()

    def open_study(self, study: Study) -> None:
        """Show a storage suite or campaign of the Library as the study it is: in the
        Storage suite or Campaigns tab."""
        if study.kind == "suite":
            self.tabs.setCurrentWidget(self.storage_panel)
            self.storage_panel.open_suite(study.id)
        else:
            self.tabs.setCurrentWidget(self.campaign_panel)
            self.campaign_panel.open_campaign_id(study.id)

    def _show_active_count(self, count: int) -> None:
        self.active_label.setText(
            f"{count} run{'s' if count != 1 else ''} in progress" if count else ""
        )

    # -- closing ---------------------------------------------------------------------------

    def close_without_asking(self) -> None:
        """Close, cancelling runs in progress without a question (SIGTERM, logout)."""
        self.ask_before_closing = False
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        active = self.bridge.active_runs()
        if active and self.ask_before_closing and not self._confirm_close(len(active)):
            event.ignore()
            return
        self.save_layout()
        if self.secret_prompt is not None:
            self.secret_prompt.cancel_pending()
        if active:
            self.statusBar().showMessage(f"Cancelling {len(active)} run(s)…")
            QApplication.processEvents()
            self.bridge.cancel_all()  # remote processes ended, runs stored as cancelled
        self.bridge.shutdown()
        self.closed = True
        event.accept()

    def _confirm_close(self, count: int) -> bool:
        runs = "1 run is" if count == 1 else f"{count} runs are"
        answer = QMessageBox.question(
            self,
            "Runs in progress",
            f"{runs} still in progress. Cancel and quit?\n\n"
            "The tools are stopped on every host and the runs are kept in the library as "
            "cancelled, with what they measured so far.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _open_compare(self, run_ids: list[RunRef]) -> None:
        from pairbench.ui.compare.loading import open_compare

        # This computer's run ids or TeamRefs; team series cached for the window's session.
        load = open_compare(self.bridge, run_ids, self, self.runs_view.team.cache)
        load.opened.connect(self.compare_windows.append)
        load.opened.connect(self._help_on_compare)
        self.compare_loads.append(load)

    def _help_on_compare(self, view: QWidget) -> None:
        """F1 in a compare window opens the guide's page on comparing runs."""
        key = QShortcut(QKeySequence("F1"), view)
        key.activated.connect(lambda: self.actions_.show_guide("compare"))
