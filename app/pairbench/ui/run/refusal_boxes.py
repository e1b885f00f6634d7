"""The run panel's answers to a refused run: accept an unknown host key, build a missing tool."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from pairbench.domain.failures import HostKeyUnknownError, RunError, ToolNotInstalledError
from pairbench.ui.hosts.tool_install_dialog import install_label


def _box_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class HostKeyBox(QFrame):
    """The fingerprint of a host key nobody accepted yet, and "Accept the key and start again"."""

    acceptRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = _box_label()
        self.accept_button = QPushButton("Accept the key and start again")
        self.accept_button.setObjectName("accept_host_key")
        self.accept_button.clicked.connect(self.acceptRequested)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(self.accept_button)
        self.setVisible(False)

    def offer(self, unknown: HostKeyUnknownError) -> None:
        self.label.setText(
            f"{unknown.host} presented a host key this computer has not seen before:\n\n"
            f"    {unknown.fingerprint}\n\n"
            "Check it against the host's own key (ssh-keygen -lf on the host). Accepting "
            "pins it in the library; a new key of the pair's other host is accepted the "
            "same way."
        )
        self.setVisible(True)


class InstallOfferBox(QFrame):
    """A run refused because its tool is missing on a host that Pairbench can build it on."""

    installRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.missing: ToolNotInstalledError | None = None
        self.label = _box_label()
        self.button = QPushButton()
        self.button.setObjectName("install_missing_tool")
        self.button.clicked.connect(self.installRequested)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(self.button)
        self.setVisible(False)

    def offer(self, missing: ToolNotInstalledError) -> None:
        self.missing = missing
        self.label.setText(
            f"{missing.tool} is not installed on {missing.host}. Pairbench can build it "
            f"there from its pinned source, as the SSH user, into ~/.local/bin (nothing "
            "system-wide), then start the run again."
        )
        self.button.setText(f"{install_label(missing.tool)} on {missing.host}")
        self.setVisible(True)

    def withdraw(self) -> None:
        """The tool is there now: nothing to offer."""
        self.setVisible(False)
        self.missing = None


def offer_answer(failure: object, host_key: HostKeyBox, install: InstallOfferBox) -> bool:
    """Offer the answer to a refused run, chosen by the failure's type (a tool that can be
    built, an unknown host key); False when there is none to offer."""
    if isinstance(failure, ToolNotInstalledError) and failure.installable:
        install.offer(failure)
        return True
    cause = failure.cause if isinstance(failure, RunError) else None
    if isinstance(cause, HostKeyUnknownError):
        host_key.offer(cause)
        return True
    return False
