"""The dialog that builds uperf or iperf3 3.21 on a host: its steps as they happen, cancel, the
outcome in words (where the program is now, or why not and what to install first)."""

from __future__ import annotations

import concurrent.futures

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pairbench.services.tool_install import INSTALLABLE, InstallResult
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.jobs import error_text


def install_label(tool: str) -> str:
    """The words of the action: "Install uperf" / "Install iperf3 3.21"."""
    pinned = INSTALLABLE[tool]
    return f"Install {tool} {pinned.version}" if tool == "iperf3" else f"Install {tool}"


class ToolInstallDialog(QDialog):
    """Builds one tool on one host through the bridge; ``installed`` carries the result."""

    installed = Signal(object)  # InstallResult
    failed = Signal(str)  # why not, in words
    _step = Signal(str)  # from the engine thread

    def __init__(
        self, bridge: EngineBridge, host: str, tool: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.bridge, self.host, self.tool = bridge, host, tool
        self.install_result: InstallResult | None = None
        self.error: str | None = None
        self._future: concurrent.futures.Future[InstallResult] | None = None
        self.setWindowTitle(f"{install_label(tool)} on {host}")
        self.setMinimumWidth(520)
        intro = QLabel(
            f"Pairbench uploads the pinned source of {tool} to {host}, builds it there as the "
            f"SSH user and puts the program in that user's ~/.local/bin (searched first by "
            "every run). Nothing is installed system-wide."
        )
        intro.setWordWrap(True)
        self.status = QLabel("Starting…")
        self.status.setObjectName("install_status")
        self.status.setWordWrap(True)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(500)
        self.buttons = QDialogButtonBox()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.accept)
        self.close_button.setVisible(False)
        self.buttons.addButton(self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.buttons.addButton(self.close_button, QDialogButtonBox.ButtonRole.AcceptRole)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.status)
        layout.addWidget(self.log, 1)
        layout.addWidget(self.buttons)
        self._step.connect(self._show_step)

    @property
    def running(self) -> bool:
        return self._future is not None and not self._future.done()

    def start(self) -> None:
        """Begin the build (the dialog shows its steps)."""
        self._future = self.bridge.install_tool(
            self.host,
            self.tool,
            progress=self._step.emit,
            on_done=self._done,
            on_error=self._failed,
        )

    def cancel(self) -> None:
        """Stop the build (the host is left as it was) and close."""
        if self.running and self._future is not None:
            self._future.cancel()
            self._finish(f"Cancelled: nothing was installed on {self.host}.")
            self.error = "cancelled"
            self.failed.emit("cancelled")
        self.reject()

    def reject(self) -> None:
        if self.running and self._future is not None:
            self._future.cancel()
        super().reject()

    def _show_step(self, text: str) -> None:
        self.log.appendPlainText(text)
        self.status.setText(f"{text[:1].upper()}{text[1:]}…")

    def _done(self, result: InstallResult) -> None:
        self.install_result = result
        if result.already:
            text = f"{result.tool} is already on {result.host}: {result.path} ({result.version})."
        else:
            text = f"Installed {result.path} on {result.host} ({result.version})."
        self._finish(text)
        self.installed.emit(result)

    def _failed(self, error: BaseException) -> None:
        self.error = error_text(error)
        self._finish(f"Not installed: {self.error}")
        self.failed.emit(self.error)

    def _finish(self, text: str) -> None:
        self.status.setText(text)
        self.log.appendPlainText(text)
        self.cancel_button.setVisible(False)
        self.close_button.setVisible(True)
