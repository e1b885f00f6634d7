"""Importing hosts from an OpenSSH config: read it, preview the hosts it gives, add the chosen."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QPushButton

from pairbench.services.library import Library
from pairbench.services.ssh_import import ImportPlan, ImportResult, apply_import, read_plan
from pairbench.ui.hosts.panel_jobs import PanelJobs
from pairbench.ui.hosts.ssh_import_dialog import SshImportDialog


def import_summary(result: ImportResult) -> str:
    """What an import did, in lines: added, skipped and why, warnings."""
    lines = [
        f"{len(result.added)} host(s) added"
        + (f": {', '.join(h.name for h in result.added)}" if result.added else "")
        + f"; {len(result.skipped)} skipped."
    ]
    lines += [f"Skipped {name}: {reason}" for name, reason in result.skipped]
    lines += [f"Warning: {warning}" for warning in result.warnings]
    return "\n".join(lines)


class SshConfigImport(QObject):
    """The import action; ``button`` is off while the config is read."""

    imported = Signal()  # hosts were added

    def __init__(self, jobs: PanelJobs, button: QPushButton, parent: QObject | None = None):
        super().__init__(parent)
        self.jobs = jobs
        self.button = button

    def start(self, path: Path | None = None) -> None:
        """Read an OpenSSH config (default ~/.ssh/config) and preview the hosts it gives."""
        self.button.setEnabled(False)

        async def job(lib: Library) -> ImportPlan:
            return read_plan(lib, path)

        def done(plan: ImportPlan) -> None:
            self.button.setEnabled(True)
            self._preview(plan)

        def failed(error: BaseException) -> None:
            self.button.setEnabled(True)
            self.jobs.show_error(error)

        self.jobs.call(job, done, failed)

    def _preview(self, plan: ImportPlan) -> None:
        if not plan.planned and not plan.skipped:
            where = plan.source or "~/.ssh/config"
            self.jobs.say("info", f"{where} names no concrete host to import.")
            return
        dialog = SshImportDialog(plan, parent=self.jobs.owner)
        dialog.accepted.connect(lambda: self._apply(plan, dialog.chosen()))
        self.jobs.open_dialog(dialog)

    def _apply(self, plan: ImportPlan, chosen: list[str]) -> None:
        async def job(lib: Library) -> ImportResult:
            return apply_import(lib, plan, chosen)

        def done(result: ImportResult) -> None:
            self.jobs.say("ok" if not result.warnings else "info", import_summary(result))
            self.imported.emit()

        self.jobs.call(job, done)
