"""The run panel's presets: the built-in ones and the user's own (kept in the settings)."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QSettings, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QInputDialog, QToolButton, QWidget

from pairbench.tools.registry import TOOLS
from pairbench.ui.run.presets import BUILTIN_PRESETS, Preset, presets_from_json, presets_to_json

KEY_USER_PRESETS = "run/user_presets"  # QSettings key: JSON list


def _params_summary(params: Mapping[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "defaults"


class PresetPicker(QWidget):
    """A list of presets with Save… and Delete; choosing one is the panel's to apply."""

    activated = Signal(str)  # a preset's name was chosen in the list
    saveRequested = Signal(str)  # the user named a new preset of the current choices
    refused = Signal(str)  # why an action cannot be done, in words

    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.user_presets: list[Preset] = presets_from_json(
            str(settings.value(KEY_USER_PRESETS, "") or "")
        )
        self.combo = QComboBox()
        self.combo.setObjectName("preset_combo")
        self.combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.combo.setMinimumContentsLength(12)
        self.combo.activated.connect(self._activated)
        self.save_button = QToolButton()
        self.save_button.setText("Save…")
        self.save_button.setToolTip("Save the tool and its parameters as a preset")
        self.save_button.clicked.connect(self._ask_name)
        self.delete_button = QToolButton()
        self.delete_button.setText("Delete")
        self.delete_button.setToolTip("Delete the chosen preset (your own presets only)")
        self.delete_button.clicked.connect(self._delete_current)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.combo, 1)
        row.addWidget(self.save_button)
        row.addWidget(self.delete_button)
        self._fill()

    def presets(self) -> list[Preset]:
        return [*BUILTIN_PRESETS, *self.user_presets]

    def find_preset(self, name: str) -> Preset | None:
        """The preset ``name`` (the user's own shadows a built-in of the same name)."""
        for preset in [*self.user_presets, *BUILTIN_PRESETS]:
            if preset.name == name:
                return preset
        return None

    def show_chosen(self, preset: Preset) -> None:
        """Show ``preset`` as the one chosen (the user's entry, not a built-in namesake)."""
        index = self.combo.findData(preset.name)
        if preset.user:
            index = max(
                (i for i in range(self.combo.count()) if self.combo.itemData(i) == preset.name),
                default=index,
            )
        self.combo.setCurrentIndex(index)

    def reset(self) -> None:
        """Back to "Choose a preset…" (the choices no longer follow a preset)."""
        self.combo.setCurrentIndex(0)

    def save_user_preset(self, name: str, tool: str, params: Mapping[str, str]) -> Preset:
        """Save ``params`` of ``tool`` as the user's preset ``name`` (replacing one so named)."""
        preset = Preset(name, tool, dict(params), user=True)
        self.user_presets = [p for p in self.user_presets if p.name != name] + [preset]
        self._store()
        self._fill()
        self.combo.setCurrentIndex(self.combo.findText(f"{name} (yours)"))
        return preset

    def delete_user_preset(self, name: str) -> bool:
        before = len(self.user_presets)
        self.user_presets = [p for p in self.user_presets if p.name != name]
        if len(self.user_presets) == before:
            return False
        self._store()
        self._fill()
        return True

    def _fill(self) -> None:
        self.combo.clear()
        self.combo.addItem("Choose a preset…", None)
        model = self.combo.model()
        assert isinstance(model, QStandardItemModel)
        for preset in BUILTIN_PRESETS:
            self.combo.addItem(preset.name, preset.name)
            item = model.item(self.combo.count() - 1)
            if preset.tool in TOOLS:
                item.setToolTip(f"From the field reports: {preset.source}")
            else:
                item.setEnabled(False)
                item.setToolTip(f"{preset.tool} is not available in this version yet")
        if self.user_presets:
            self.combo.insertSeparator(self.combo.count())
            for preset in self.user_presets:
                self.combo.addItem(f"{preset.name} (yours)", preset.name)
                item = model.item(self.combo.count() - 1)
                item.setToolTip(f"{preset.tool}: {_params_summary(preset.params)}")
                if preset.tool not in TOOLS:
                    item.setEnabled(False)

    def _activated(self, index: int) -> None:
        name = self.combo.itemData(index)
        if name:
            self.activated.emit(str(name))

    def _ask_name(self) -> None:
        name, ok = QInputDialog.getText(self, "Save preset", "Name of the preset:")
        if ok and name.strip():
            self.saveRequested.emit(name.strip())

    def _delete_current(self) -> None:
        name = self.combo.currentData()
        preset = self.find_preset(str(name)) if name else None
        if preset is None or not preset.user:
            self.refused.emit("Only your own presets can be deleted.")
            return
        self.delete_user_preset(preset.name)

    def _store(self) -> None:
        self.settings.setValue(KEY_USER_PRESETS, presets_to_json(self.user_presets))
