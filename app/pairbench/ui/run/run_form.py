"""The run panel's form: pair, preset, tool, label, and the chosen tool's parameters."""

from __future__ import annotations

import json

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain import LOCAL_PAIR, HostPair
from pairbench.tools.base import Tool
from pairbench.tools.registry import TOOLS
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.run.pair_choice import PairChoice
from pairbench.ui.run.param_form import ParamForm

DEFAULT_TOOL = "iperf3"

# QSettings keys
KEY_PAIR = "run/pair"
KEY_TOOL = "run/tool"
KEY_PARAMS = "run/params"  # JSON: tool → {param: value}


def _tool_tip(tool: Tool) -> str:
    where = "on the server host" if tool.server_only else "between the pair's hosts"
    return f"{tool.name}: runs {where}; install: {tool.install_hint}"


class RunForm(QWidget):
    """The run's choices; each tool's values are kept while another is shown, and saved."""

    toolChanged = Signal()  # another tool was chosen: ``form`` is a new ParamForm
    paramsChanged = Signal()  # a value of the current form changed

    def __init__(
        self,
        bridge: EngineBridge,
        settings: QSettings,
        presets: QWidget,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self.form: ParamForm | None = None
        self.form_tool = ""
        self._params_by_tool: dict[str, dict[str, str]] = self._saved_params()

        wanted = str(settings.value(KEY_PAIR, LOCAL_PAIR.name) or LOCAL_PAIR.name)
        self.pair_choice = PairChoice(bridge, wanted)
        self.tool_combo = QComboBox()
        self.tool_combo.setObjectName("tool_combo")
        for name, tool in TOOLS.items():
            self.tool_combo.addItem(name, name)
            self.tool_combo.setItemData(
                self.tool_combo.count() - 1, _tool_tip(tool), Qt.ItemDataRole.ToolTipRole
            )
        self.label_edit = QLineEdit()
        self.label_edit.setObjectName("run_label")
        self.label_edit.setPlaceholderText("optional, e.g. same zone, placement group")

        choices = QFormLayout()
        choices.addRow("Pair", self.pair_choice)
        choices.addRow("Preset", presets)
        choices.addRow("Tool", self.tool_combo)
        choices.addRow("Label", self.label_edit)
        self.form_area = QScrollArea()
        self.form_area.setWidgetResizable(True)
        self.form_area.setFrameShape(QFrame.Shape.NoFrame)
        heading = QLabel("Parameters")
        heading.setStyleSheet("font-weight: bold;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(choices)
        layout.addWidget(heading)
        layout.addWidget(self.form_area, 1)

        saved_tool = str(settings.value(KEY_TOOL, DEFAULT_TOOL) or DEFAULT_TOOL)
        self.select_tool(saved_tool if saved_tool in TOOLS else DEFAULT_TOOL)
        self._show_form()
        self.tool_combo.currentIndexChanged.connect(self._tool_chosen)

    def current_pair(self) -> HostPair | None:
        return self.pair_choice.current()

    def current_tool(self) -> Tool:
        return TOOLS[str(self.tool_combo.currentData())]

    def select_tool(self, name: str) -> bool:
        index = self.tool_combo.findData(name)
        if index < 0:
            return False
        self.tool_combo.setCurrentIndex(index)
        return True

    def label(self) -> str:
        return self.label_edit.text().strip()

    def changed_values(self) -> dict[str, str]:
        """The parameters that differ from the tool's defaults (as the CLI's ``--set``)."""
        assert self.form is not None
        return self.form.changed_values()

    def _tool_chosen(self, _index: int) -> None:
        self._show_form()
        self.toolChanged.emit()

    def _show_form(self) -> None:
        if self.form is not None:
            self._params_by_tool[self.form_tool] = self.form.changed_values()
        tool = self.current_tool()
        self.form_tool = tool.name
        self.form = ParamForm(tool.params)
        self.form.setObjectName(f"form_{tool.name}")
        self.form.set_values(self._params_by_tool.get(tool.name, {}))
        self.form.changed.connect(self.paramsChanged)
        self.form_area.setWidget(self.form)

    def _saved_params(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(str(self.settings.value(KEY_PARAMS, "") or "{}"))
        except ValueError:
            return {}
        if not isinstance(data, dict):
            return {}
        return {
            str(tool): {str(k): str(v) for k, v in values.items()}
            for tool, values in data.items()
            if isinstance(values, dict)
        }

    def save_state(self) -> None:
        """Remember the pair, the tool and each tool's parameters for the next start."""
        if self.form is not None:
            self._params_by_tool[self.form_tool] = self.form.changed_values()
        pair = self.current_pair()
        if pair is not None:
            self.settings.setValue(KEY_PAIR, pair.name)
        self.settings.setValue(KEY_TOOL, self.current_tool().name)
        self.settings.setValue(KEY_PARAMS, json.dumps(self._params_by_tool, sort_keys=True))
