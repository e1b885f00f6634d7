"""What the window's menus and shortcuts do: import and export, new run, start and cancel,
closing a tab, finding the Library's search, the user guide and the version."""

from __future__ import annotations

import platform
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QMessageBox

from pairbench import __version__
from pairbench.domain import RunSpec
from pairbench.services.library import Library
from pairbench.services.run_export import export_runs, format_of
from pairbench.ui.file_places import EXPORTS, IMPORTS, remember, start_folder, start_path
from pairbench.ui.guide_pages import SCREEN_PAGES, guide_dir
from pairbench.ui.library.jobs import call_for, error_text
from pairbench.ui.run.run_tab import RunTab
from pairbench.ui.user_guide import UserGuide

if TYPE_CHECKING:
    from pairbench.ui.main_window import MainWindow


class WindowActions(QObject):
    """The window's commands; each works on the views the window composed."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.guide: UserGuide | None = None

    # -- File ------------------------------------------------------------------------------

    def ask_import(self) -> None:
        """Choose saved tool outputs and import them (through the import dialog)."""
        settings = self.window.settings
        paths, _ = QFileDialog.getOpenFileNames(
            self.window, "Import tool outputs", str(start_folder(settings, IMPORTS))
        )
        if paths:
            remember(settings, IMPORTS, paths[0])
            self.show_tab(self.window.runs_view)
            self.window.runs_view.files.import_files([Path(p) for p in paths])

    def ask_export(self) -> None:
        """Export the runs selected in the Library as JSON, CSV or an evidence bundle."""
        view = self.window.runs_view
        ids = [run.id for run in view.selected_runs()]
        if not ids:
            self.window.statusBar().showMessage("Select the runs to export in the Library first")
            self.show_tab(view)
            return
        path, _ = QFileDialog.getSaveFileName(
            self.window,
            f"Export {len(ids)} run{'s' if len(ids) != 1 else ''}",
            start_path(self.window.settings, EXPORTS, "runs.json"),
            "JSON (*.json);;CSV (*.csv);;Evidence bundle (*.zip)",
        )
        if path:
            remember(self.window.settings, EXPORTS, path)
            self.export(ids, Path(path))

    def export(self, ids: list[int], path: Path) -> None:
        """Write the runs to ``path`` (format by suffix) on the engine thread; the status
        bar says where it wrote, or why not."""
        try:
            fmt = format_of(path)
        except ValueError as exc:
            QMessageBox.warning(self.window, "Pairbench", str(exc))
            return

        async def job(lib: Library) -> list[str]:
            return export_runs(lib, ids, path, fmt)

        def done(notes: list[str]) -> None:
            extra = f" ({'; '.join(notes)})" if notes else ""
            self.window.statusBar().showMessage(
                f"Wrote {len(ids)} run(s) to {path.resolve()} ({fmt}){extra}"
            )
            self.window.exported.emit(path)

        def failed(error: BaseException) -> None:
            self.window.statusBar().showMessage(f"Export failed: {error_text(error)}")
            QMessageBox.warning(self.window, "Pairbench", f"Export failed: {error_text(error)}")

        call_for(self.window, self.window.bridge, job, done, failed)

    def show_team_dialog(self) -> QDialog:
        """File ▸ Team library…: connect, see how it stands, publish what waits."""
        from pairbench.ui.team_dialog import TeamDialog

        window = self.window
        dialog = TeamDialog(window.bridge, window.bridge.library_path, window)
        dialog.connected.connect(window.teamConnected)
        dialog.connected.connect(lambda _url: window.runs_view.team.check())
        dialog.open()
        return dialog

    def close_current_tab(self) -> None:
        """Close the current run tab (a running run is cancelled after asking)."""
        tab = self.window.tabs.currentWidget()
        if isinstance(tab, RunTab):
            self.window.run_tabs.close_tab(tab)

    # -- Run -------------------------------------------------------------------------------

    def new_run(self) -> None:
        """Show the run panel and put the focus on its tool."""
        self.window.run_dock.show()
        self.window.run_dock.raise_()
        self.window.run_panel.run_form.tool_combo.setFocus()

    def run_again(self, spec: RunSpec) -> None:
        """The run panel set to repeat ``spec`` (from a run's detail)."""
        self.new_run()
        self.window.run_panel.fill_from(spec)

    def cancel_current_run(self) -> None:
        """Cancel the run of the current tab, after asking (its tab stays)."""
        tab = self.window.tabs.currentWidget()
        if not isinstance(tab, RunTab) or not tab.controller.active:
            self.window.statusBar().showMessage("No run in progress in this tab")
            return
        answer = QMessageBox.question(
            self.window,
            "Cancel the run?",
            f"Cancel {tab.controller.title}? What it measured so far is kept as a cancelled run.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer == QMessageBox.StandardButton.Yes:
            tab.controller.cancel()

    def current_run_tab(self) -> RunTab | None:
        """The run tab in front, or None (the status bar says so)."""
        tab = self.window.tabs.currentWidget()
        if isinstance(tab, RunTab):
            return tab
        self.window.statusBar().showMessage("Show a run's tab first", 5000)
        return None

    def pin_baseline(self) -> None:
        """Run ▸ Pin a baseline…: the current run tab's dialog."""
        tab = self.current_run_tab()
        if tab is not None and tab.baseline_pin is not None:
            tab.baseline_pin.choose()

    def analyse_burst(self) -> None:
        """Run ▸ Analyse burst credits: of the run shown in the Library's detail, else of the
        run selected in its list (as its context menu does); the Library comes to the front."""
        view = self.window.runs_view
        self.show_tab(view)
        if view.stack.currentWidget() is view.detail:
            if view.detail.burst_box.analyse_button.isEnabled():
                view.detail.analyse_burst()
                return
        elif view.can_analyse_burst():
            view.analyse_burst_selected()
            return
        self.window.statusBar().showMessage(
            "Burst credits: open or select one stored throughput run of this computer first", 5000
        )

    # -- View ------------------------------------------------------------------------------

    def follow_run(self) -> None:
        tab = self.current_run_tab()
        if tab is not None:
            tab.plots.set_follow(True)

    def show_whole_run(self) -> None:
        tab = self.current_run_tab()
        if tab is not None:
            tab.plots.show_all()

    def show_tab(self, widget: object) -> None:
        index = self.window.tabs.indexOf(widget)  # type: ignore[arg-type]
        if index >= 0:
            self.window.tabs.setCurrentIndex(index)

    def search_library(self) -> None:
        """The Library tab, its list, the focus in its search box."""
        view = self.window.runs_view
        self.show_tab(view)
        view.show_list()
        search = view.filters.search_edit
        search.setFocus()
        search.selectAll()

    # -- Help ------------------------------------------------------------------------------

    def screen_in_view(self) -> str:
        """The screen the user is on (a key of ``SCREEN_PAGES``): the run panel while the
        focus is in it, else the tab in front."""
        window = self.window
        focus = QApplication.focusWidget()
        if focus is not None and window.run_dock.isAncestorOf(focus):
            return "run panel"
        tab = window.tabs.currentWidget()
        if isinstance(tab, RunTab):
            return "run"
        if tab is window.runs_view and window.runs_view.runs.team:
            return "Team"
        return next((title for title, w in window.fixed_tabs.items() if w is tab), "window")

    def show_guide(self, screen: str | None = None) -> UserGuide:
        """The user guide in a window of its own, on the page of the screen in view (F1)."""
        if self.guide is None:
            self.guide = UserGuide(guide_dir(), self.window)
        self.guide.show_page(SCREEN_PAGES[screen or self.screen_in_view()])
        self.guide.show()
        self.guide.raise_()
        return self.guide

    def about_text(self) -> str:
        return (
            f"Pairbench {__version__}\n\n"
            "A workbench for cloud network and storage benchmarks.\n\n"
            f"Library: {self.window.library.path}\n"
            f"Python {platform.python_version()}, PySide6 {pyside_version}"
        )

    def show_about(self) -> None:
        QMessageBox.about(self.window, "About Pairbench", self.about_text())
