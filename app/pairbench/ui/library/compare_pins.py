"""Comparing runs of this computer with team runs from the Library tab: "Add to comparison"
(a button, the list's context menu, Ctrl+D) pins the selected runs in the tray in either
source; Compare then compares the pinned runs and the selection, each run once (a team run
published from this library counts as the local run), and says which pinned runs were
deleted meanwhile."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from pairbench.services.compare_refs import ComparePlan, RunRef, plan_compare
from pairbench.services.library import Library
from pairbench.ui.library.burst_box import ANALYSE_SHORTCUT
from pairbench.ui.library.compare_tray import CompareTray, Pinned
from pairbench.ui.library.jobs import call_for, error_text
from pairbench.ui.library.team_compare import team_refs

if TYPE_CHECKING:
    from pairbench.ui.library.library_view import LibraryView

ADD_SHORTCUT = "Ctrl+D"


class ComparePins(QObject):
    """The tray of a ``LibraryView`` and the actions that fill and use it."""

    def __init__(self, view: LibraryView) -> None:
        super().__init__(view)
        self.view = view
        self.tray = CompareTray()
        self.add_action = QAction("Add to comparison", view)
        self.add_action.setShortcut(QKeySequence(ADD_SHORTCUT))
        self.add_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.add_action.setToolTip(
            "Keep the selected runs for a comparison: switch between this computer and the "
            f"team, add more, then Compare ({ADD_SHORTCUT})"
        )
        self.add_action.triggered.connect(self.add_selected)
        view.addAction(self.add_action)
        self.remove_action = QAction("Remove from comparison", view)
        self.remove_action.triggered.connect(self.remove_selected)
        button = view.editor.pin_button
        button.setToolTip(self.add_action.toolTip())
        button.clicked.connect(self.add_selected)
        self.tray.compareClicked.connect(self.compare)
        self.tray.changed.connect(self._tray_changed)
        view.deleted.connect(self._deleted)
        table = view.table
        table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        table.customContextMenuRequested.connect(self._show_menu)
        self.menu: QMenu | None = None  # the last context menu (tests look at it)

    @property
    def active(self) -> bool:
        """True while runs are pinned (Compare then takes them with the selection)."""
        return bool(self.tray.pins())

    def selected_pins(self) -> list[Pinned]:
        """The selected rows as runs to pin, in the source the list shows."""
        view = self.view
        runs = view.selected_runs()
        if not view.runs.team:
            return [Pinned(run.id, run) for run in runs]
        pins = []
        for ref in team_refs(view.model, runs):
            assert not isinstance(ref, int) and ref.listed is not None
            pins.append(Pinned(ref, ref.listed))
        return pins

    def add_selected(self) -> None:
        """Pin the selected runs."""
        pins = self.selected_pins()
        if not pins:
            self.view.message.show_message("error", "Select runs to add to the comparison.")
            return
        added = self.tray.add(pins)
        count = len(self.tray.pins())
        if not added:
            text = f"Already in the comparison ({count} pinned)."
        else:
            names = ", ".join(p.name for p in added)
            text = (
                f"Added {names} to the comparison ({count} pinned). Select more, here or in "
                "the other source, then Compare."
            )
        self.view.message.show_message("info", text)

    def remove_selected(self) -> None:
        """Unpin the selected runs."""
        self.tray.remove({p.key for p in self.selected_pins()})

    def refs(self) -> list[RunRef]:
        """The pinned runs, then the selected ones (repeats are dropped by the plan)."""
        return [*self.tray.refs(), *(p.ref for p in self.selected_pins())]

    def compare(self) -> None:
        """Compare the pinned runs and the selection, each run once (the library is read on
        the engine thread to find deleted runs and team copies of this computer's runs)."""
        if not self.active:
            self.view.compare_selected()
            return
        refs = self.refs()
        keys = {p.key for p in [*self.tray.pins(), *self.selected_pins()]}
        if len(keys) < 2:
            self.view.message.show_message(
                "error", "Pin or select one more run: a comparison needs two or more."
            )
            return

        async def job(lib: Library) -> ComparePlan:
            return plan_compare(lib, refs)

        def failed(error: BaseException) -> None:
            self.view.message.show_message("error", f"Cannot compare: {error_text(error)}")

        call_for(self.view, self.view.bridge, job, self._planned, failed)

    def _planned(self, plan: ComparePlan) -> None:
        notes = []
        if plan.missing:
            self.tray.remove_local(plan.missing)
            ids = ", ".join(f"#{i}" for i in plan.missing)
            notes.append(
                f"Run{'s' * (len(plan.missing) > 1)} {ids} no longer in this computer's "
                "library (deleted): taken off the comparison."
            )
        if plan.merged:
            same = ", ".join(f"#{i}" for i in dict.fromkeys(plan.merged.values()))
            notes.append(
                f"{same}: picked here and from the team list (the same run, published from "
                "this computer): compared once, as this computer's."
            )
        if len(plan.refs) < 2:
            notes.append("Fewer than two runs left to compare.")
            self.view.message.show_message("error", " ".join(notes))
            return
        if notes:
            self.view.message.show_message("info", " ".join(notes))
        self.view.compareRequested.emit(plan.refs)

    def _deleted(self, run_ids: list[int]) -> None:
        gone = self.tray.remove_local(run_ids)
        if gone:
            names = ", ".join(p.name for p in gone)
            self.view.message.show_message(
                "info", f"Deleted, so taken off the comparison: {names}."
            )

    def _tray_changed(self) -> None:
        self.remove_action.setEnabled(bool(self.tray.keys()))

    # -- the list's context menu -------------------------------------------------------------

    def context_menu(self) -> QMenu:
        """The list's context menu for the selection: Open, Analyse burst credits, Compare,
        Add to / Remove from the comparison."""
        view = self.view
        if self.menu is not None:
            self.menu.deleteLater()  # one menu at a time
        menu = QMenu(view.table)
        selected = self.selected_pins()
        open_action = menu.addAction("Open", view.open_selected)
        open_action.setEnabled(len(selected) == 1)
        burst = menu.addAction("Analyse burst credits", view.analyse_burst_selected)
        burst.setShortcut(QKeySequence(ANALYSE_SHORTCUT))  # shown; Run ▸'s action acts on it
        burst.setEnabled(view.can_analyse_burst())
        what = "Compare with the pinned runs" if self.active else "Compare"
        menu.addAction(what, self.compare)
        menu.addSeparator()
        menu.addAction(self.add_action)
        if {p.key for p in selected} & self.tray.keys():
            menu.addAction(self.remove_action)
        self.menu = menu
        return menu

    def _show_menu(self, pos: QPoint) -> None:
        self.context_menu().popup(self.view.table.viewport().mapToGlobal(pos))
