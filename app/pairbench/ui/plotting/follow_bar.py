"""The bar above a run's plots: Follow, how much of the latest data it shows, Show all, and
how to zoom, pan and hide a curve (cut to the room there is)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QToolButton, QWidget

from pairbench.ui.elided_label import ElidedLabel

FOLLOW_WINDOWS_S = (60.0, 300.0, 900.0, 3600.0, 6 * 3600.0, 24 * 3600.0)
DEFAULT_FOLLOW_WINDOW_S = 300.0
HINT = "Wheel: zoom · drag: pan · click a legend entry to hide or show its curve"


def window_text(seconds: float) -> str:
    """A follow window as "5 min" or "6 h"."""
    return f"{seconds / 3600:g} h" if seconds >= 3600 else f"{seconds / 60:g} min"


class FollowBar(QWidget):
    """The controls only; ``RunPlots`` connects them."""

    def __init__(self, follow_window_s: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.follow_button = QToolButton()
        self.follow_button.setText("Follow")
        self.follow_button.setCheckable(True)
        self.follow_button.setChecked(True)
        self.follow_button.setToolTip(
            "Keep the latest minutes in view (zooming or panning turns this off)"
        )
        self.window_combo = QComboBox()
        for seconds in FOLLOW_WINDOWS_S:
            self.window_combo.addItem(window_text(seconds), seconds)
        if follow_window_s not in FOLLOW_WINDOWS_S:
            self.window_combo.addItem(window_text(follow_window_s), follow_window_s)
        self.window_combo.setCurrentIndex(self.window_combo.findData(follow_window_s))
        self.window_combo.setToolTip("How much of the latest data Follow shows")
        self.show_all_button = QToolButton()
        self.show_all_button.setText("Show all")
        self.show_all_button.setToolTip("Show the whole run (turns Follow off)")
        self.hint = ElidedLabel(HINT)
        self.hint.setStyleSheet("color: #777;")

        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.follow_button)
        row.addWidget(QLabel("latest"))
        row.addWidget(self.window_combo)
        row.addWidget(self.show_all_button)
        row.addSpacing(12)
        row.addWidget(self.hint, 1)
