"""Deleting runs from the Library: asked first (naming them), then done on the engine
thread; the view says what went and refreshes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

from pairbench.domain import Run
from pairbench.services.library import Library
from pairbench.services.runs import delete_runs
from pairbench.ui.library.jobs import call_for, error_text

if TYPE_CHECKING:
    from pairbench.ui.library.library_view import LibraryView


def delete_asking(view: LibraryView, runs: list[Run]) -> None:
    """Delete ``runs`` once the user says yes; ``view.deleted`` lists the ids that went."""
    if len(runs) == 1:
        run = runs[0]
        what = f"run {run.id} ({run.spec.tool} on {run.spec.pair}" + (
            f", {run.label})" if run.label else ")"
        )
    else:
        what = f"{len(runs)} runs ({', '.join(str(r.id) for r in runs[:8])}" + (
            "…)" if len(runs) > 8 else ")"
        )
    answer = QMessageBox.question(
        view,
        "Delete runs",
        f"Delete {what}? Its series and raw output are removed too. This cannot be undone.",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No,
    )
    if answer != QMessageBox.StandardButton.Yes:
        return
    ids = [run.id for run in runs]

    async def job(lib: Library) -> list[int]:
        return delete_runs(lib, ids)

    def done(gone: list[int]) -> None:
        view.message.show_message(
            "ok", f"Deleted run{'s' if len(gone) > 1 else ''} {', '.join(map(str, gone))}."
        )
        view.refresh()
        view.deleted.emit(gone)

    def failed(error: BaseException) -> None:
        view.message.show_message("error", f"Not deleted: {error_text(error)}")
        view.refresh()

    call_for(view, view.bridge, job, done, failed)
