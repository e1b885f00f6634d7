"""The run panel's banner saying how to install iperf3 when this computer lacks it."""

from __future__ import annotations

import shutil

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from pairbench.tools.registry import TOOLS

_BANNER_STYLE = (
    "QLabel { color: #5d4200; background: #fff4ce; border: 1px solid #f0d58c;"
    " border-radius: 3px; padding: 6px; }"
)


class LocalIperf3Banner(QLabel):
    """Shown while iperf3 is not on this computer's PATH (the "local" pair needs it)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("iperf3_banner")
        self.setWordWrap(True)
        self.setStyleSheet(_BANNER_STYLE)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setVisible(False)

    def check(self) -> None:
        """Look for iperf3 again and show or hide the banner."""
        if shutil.which("iperf3") is not None:
            self.setVisible(False)
            return
        hint = TOOLS["iperf3"].install_hint if "iperf3" in TOOLS else "apt-get install iperf3"
        self.setText(
            "iperf3 is not installed on this computer, so the “This computer” pair cannot run "
            f"it yet. Install it with:  sudo {hint}"
        )
        self.setVisible(True)
