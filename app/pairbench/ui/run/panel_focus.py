"""The run panel's Tab order: as the form reads, top to bottom — pair, preset, tool, label,
the tool's parameters in their order, the burst probe's fields, Start, Runs, Add to queue,
the progress and the queue. (Widgets made later, such as a new tool's form, would otherwise
come after everything else.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from pairbench.ui.focus_order import chain, tab_stops

if TYPE_CHECKING:
    from pairbench.ui.run.run_panel import RunPanel


def panel_order(panel: RunPanel) -> list[QWidget]:
    """The panel's tab stops in reading order."""
    form = panel.run_form
    order: list[QWidget] = [
        *tab_stops(form.pair_choice),
        *tab_stops(panel.preset_picker),
        form.tool_combo,
        form.label_edit,
    ]
    if form.form is not None:
        order += form.form.focus_chain()
    for part in (panel.probe_box, panel.host_key_box, panel.install_box):
        order += tab_stops(part)
    order += [panel.start_button, *tab_stops(panel.repeat_box), panel.queue_button]
    order += [*tab_stops(panel.progress), *tab_stops(panel.queue)]
    return order


def chain_panel(panel: RunPanel) -> list[QWidget]:
    """Set the panel's Tab order (again: after its tool's form was rebuilt)."""
    return chain(panel_order(panel))
