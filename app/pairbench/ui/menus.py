"""The window's menu bar (File, Run, View, Help) and its keyboard shortcuts: every command
has a name, a mnemonic and a shortcut, listed beside it in its menu (the run tab's buttons
too: Pin a baseline, Follow, Show the whole run; the Library's Analyse burst credits)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from pairbench.ui.library.burst_box import ANALYSE_SHORTCUT
from pairbench.ui.window_actions import WindowActions

if TYPE_CHECKING:
    from pairbench.ui.main_window import MainWindow


def _action(
    menu: QMenu, text: str, shortcut: str | None, slot: Callable[[], object], tip: str = ""
) -> QAction:
    action = QAction(text, menu)
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
    if tip:
        action.setStatusTip(tip)
        action.setToolTip(tip)
    action.triggered.connect(lambda _checked=False: slot())
    menu.addAction(action)
    return action


def build_menus(window: MainWindow, actions: WindowActions) -> dict[str, QAction]:
    """Fill the window's menu bar; the actions by name (tests and the accessibility check)."""
    bar = window.menuBar()
    made: dict[str, QAction] = {}
    file = bar.addMenu("&File")
    made["import"] = _action(
        file, "&Import tool outputs…", "Ctrl+I", actions.ask_import, "Store saved outputs as runs"
    )
    made["export"] = _action(
        file, "&Export selected runs…", "Ctrl+E", actions.ask_export, "JSON, CSV or a bundle"
    )
    made["team"] = _action(
        file,
        "&Team library…",
        "Ctrl+Shift+T",
        actions.show_team_dialog,
        "Connect to a team library on PostgreSQL; publish runs",
    )
    file.addSeparator()
    made["close_tab"] = _action(file, "&Close tab", "Ctrl+W", actions.close_current_tab)
    made["quit"] = _action(file, "&Quit", "Ctrl+Q", window.close)
    run = bar.addMenu("&Run")
    made["new_run"] = _action(run, "&New run", "Ctrl+N", actions.new_run, "Focus the run panel")
    made["start"] = _action(run, "&Start", "F5", window.run_panel.start, "Start the run")
    made["queue"] = _action(
        run, "Add to &queue", "Shift+F5", window.run_panel.add_to_queue, "Run after the queue"
    )
    made["cancel"] = _action(
        run, "&Cancel the current run…", "Esc", actions.cancel_current_run, "Asks first"
    )
    run.addSeparator()
    made["pin"] = _action(
        run, "&Pin a baseline…", "Ctrl+B", actions.pin_baseline, "Under the current run's curves"
    )
    made["burst"] = _action(
        run,
        "Analyse &burst credits",
        ANALYSE_SHORTCUT,
        actions.analyse_burst,
        "Of the stored run shown or selected in the Library (as pairbench analyze burst)",
    )
    view = bar.addMenu("&View")
    for number, (name, widget) in enumerate(window.fixed_tabs.items(), start=1):
        made[f"tab_{name}"] = _action(
            view,
            f"&{number} {name}",
            f"Ctrl+{number}",
            functools.partial(actions.show_tab, widget),
        )
    view.addSeparator()
    made["search"] = _action(view, "&Search the Library", "Ctrl+F", actions.search_library)
    made["follow"] = _action(
        view, "F&ollow the run", "Ctrl+L", actions.follow_run, "The latest minutes in view"
    )
    made["show_all"] = _action(view, "Show the &whole run", "Ctrl+0", actions.show_whole_run)
    view.addSeparator()
    dock = window.run_dock.toggleViewAction()
    dock.setText("Run &panel")
    dock.setShortcut(QKeySequence("Ctrl+Shift+R"))
    view.addAction(dock)
    made["run_panel"] = dock
    help_menu = bar.addMenu("&Help")
    made["guide"] = _action(help_menu, "&User guide", "F1", actions.show_guide)
    made["about"] = _action(help_menu, "&About Pairbench", "Ctrl+F1", actions.show_about)
    return made
