"""What the hosts panel's parts share: engine calls, the message bar and the one open dialog."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from PySide6.QtWidgets import QDialog, QWidget

from pairbench.ui.bridge import EngineBridge, EngineJob
from pairbench.ui.library.jobs import call_for, error_text
from pairbench.ui.library.message_bar import MessageBar

T = TypeVar("T")


class PanelJobs:
    """Submits jobs for ``owner`` (callbacks skipped once it is gone), shows their outcome in
    ``message`` and keeps the add/edit/import/install dialog that is open, if any."""

    def __init__(self, owner: QWidget, bridge: EngineBridge, message: MessageBar) -> None:
        self.owner = owner
        self.bridge = bridge
        self.message = message
        self.dialog: QDialog | None = None

    def call(
        self,
        job: EngineJob[T],
        on_done: Callable[[T], None],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        """Run ``job`` on the engine thread; errors go to the message bar unless handled."""
        call_for(self.owner, self.bridge, job, on_done, on_error or self.show_error)

    def show_error(self, error: BaseException) -> None:
        self.message.show_message("error", error_text(error))

    def say(self, kind: str, text: str) -> None:
        """A message ("error", "info", "ok") in the panel's bar."""
        self.message.show_message(kind, text)

    def open_dialog(self, dialog: QDialog) -> None:
        """Show ``dialog`` (window-modal) as the panel's open dialog; deleted once closed."""
        self.dialog = dialog
        dialog.finished.connect(lambda _result: self._dialog_closed(dialog))
        dialog.open()

    def _dialog_closed(self, dialog: QDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()
