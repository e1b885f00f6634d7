"""The typed confirmation a device target needs: the suite destroys the device's data (and,
to resume a suite whose device now holds a file system or partitions, destroys those)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class DeviceConfirmDialog(QDialog):
    """Asks for the device's name typed again; OK only once it matches. With ``resume_of``
    (a suite's id) it confirms resuming that suite over what the device now ``held``."""

    def __init__(
        self,
        device: str,
        host: str,
        parent: QWidget | None = None,
        *,
        resume_of: int | None = None,
        held: Sequence[str] = (),
    ) -> None:
        super().__init__(parent)
        self.setObjectName("storage_confirm")
        self.device = device
        self.resume_of = resume_of
        where = f"<b>{html.escape(device)}</b> on <b>{html.escape(host)}</b>"
        if resume_of is None:
            self.setWindowTitle("Destroy the data on this device?")
            said = (
                f"The suite writes to {where} directly: everything on it (file systems, "
                "partition table, data) is <b>destroyed</b>."
            )
        else:
            self.setWindowTitle(f"Resume suite #{resume_of} over what the device holds?")
            found = html.escape(" and ".join(held) or "data")
            said = (
                f"Suite #{resume_of}'s device {where} now holds <b>{found}</b>, which the "
                "suite did not write (made after it stopped?). Resuming writes over it: it is "
                "<b>destroyed</b>."
            )
        text = QLabel(f"{said}<br><br>Type <code>{html.escape(device)}</code> to go on.")
        text.setWordWrap(True)
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("storage_confirm_name")
        self.name_edit.setPlaceholderText(device)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok = self.ok_button
        ok.setText("Destroy and run" if resume_of is None else "Destroy and resume")
        ok.setEnabled(False)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.name_edit.textChanged.connect(lambda t: ok.setEnabled(t.strip() == device))
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.name_edit)
        layout.addWidget(self.buttons)

    @property
    def ok_button(self) -> QPushButton:
        button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        assert button is not None
        return button

    def typed(self) -> str:
        """What the user typed (the request's ``confirm``)."""
        return self.name_edit.text().strip()
