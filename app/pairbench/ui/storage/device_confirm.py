"""The typed confirmation a device target needs: the suite destroys the device's data."""

from __future__ import annotations

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
    """Asks for the device's name typed again; OK only once it matches."""

    def __init__(self, device: str, host: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("storage_confirm")
        self.setWindowTitle("Destroy the data on this device?")
        self.device = device
        text = QLabel(
            f"The suite writes to <b>{device}</b> on <b>{host}</b> directly: everything on "
            "it (file systems, partition table, data) is <b>destroyed</b>.<br><br>"
            f"Type <code>{device}</code> to go on."
        )
        text.setWordWrap(True)
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("storage_confirm_name")
        self.name_edit.setPlaceholderText(device)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok = self.ok_button
        ok.setText("Destroy and run")
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
