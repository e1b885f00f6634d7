"""The run panel's form: pair, preset, tool, label, and the chosen tool's parameters.

Each value beyond a default says where it came from ("preset" or "yours", beside the
field), and the rules of ``form_origins`` keep a run from being mislabelled: choosing a
preset sets its label and its values and clears what the previous preset set; another tool,
or a change of the kind of run (iperf3's ``udp``), clears the preset's values and label, and
a label the user typed for the earlier tool or kind of run (it is shown, greyed, in the empty
field). Each tool's own typed values are kept while another tool is shown, and saved.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
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
from pairbench.ui.run.form_origins import (
    Origin,
    ToolChoices,
    after_edit,
    with_preset,
    without_preset,
)
from pairbench.ui.run.form_settings import (
    KEY_PAIR,
    KEY_PRESET,
    KEY_TOOL,
    label_tag,
    save_choices,
    saved_choices,
)
from pairbench.ui.run.pair_choice import PairChoice
from pairbench.ui.run.param_form import TAG_STYLE, TAG_WIDTH, ParamForm
from pairbench.ui.run.presets import Preset

DEFAULT_TOOL = "iperf3"
LABEL_HINT = "optional, e.g. same zone, placement group"


def _tool_tip(tool: Tool) -> str:
    where = "on the server host" if tool.server_only else "between the pair's hosts"
    return f"{tool.name}: runs {where}; install: {tool.install_hint}"


class RunForm(QWidget):
    """The run's choices; each tool's values are kept while another is shown, and saved."""

    toolChanged = Signal()  # another tool is shown: ``form`` is a new ParamForm
    paramsChanged = Signal()  # a value of the current form changed
    presetLeft = Signal()  # the form no longer follows the preset it followed

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
        self.preset: Preset | None = None  # the preset the form follows
        self.label_origin: Origin | None = None
        self._label_tool = ""  # the tool (and kind of run) a typed label was typed for
        self._choices: dict[str, ToolChoices] = saved_choices(settings)
        self._switching = False  # the program changes the tool (a preset, Run again)

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
        self.label_edit.setPlaceholderText(LABEL_HINT)
        self._label_set = ""  # the label the form itself set last (any other text is typed)
        self.label_edit.textChanged.connect(self._label_typed)
        self.label_tag = QLabel()
        self.label_tag.setObjectName("origin_label")
        self.label_tag.setFixedWidth(TAG_WIDTH)
        self.label_tag.setStyleSheet(TAG_STYLE)
        label_row = QHBoxLayout()
        label_row.setSpacing(4)
        label_row.addWidget(self.label_edit, 1)
        label_row.addWidget(self.label_tag)

        choices = QFormLayout()
        choices.addRow("Pair", self.pair_choice)
        choices.addRow("Preset", presets)
        choices.addRow("Tool", self.tool_combo)
        choices.addRow("Label", label_row)
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

    # -- reading -----------------------------------------------------------------------------

    def current_pair(self) -> HostPair | None:
        return self.pair_choice.current()

    def current_tool(self) -> Tool:
        return TOOLS[str(self.tool_combo.currentData())]

    def label(self) -> str:
        return self.label_edit.text().strip()

    def changed_values(self) -> dict[str, str]:
        """The parameters that differ from the tool's defaults (as the CLI's ``--set``)."""
        assert self.form is not None
        return self.form.changed_values()

    def origin(self, name: str) -> Origin | None:
        """Where the current tool's ``name`` came from (None: its default)."""
        return self._current().origin(name)

    # -- what the program sets -----------------------------------------------------------------

    def select_tool(self, name: str) -> bool:
        index = self.tool_combo.findData(name)
        if index < 0:
            return False
        self.tool_combo.setCurrentIndex(index)
        return True

    def apply_preset(self, preset: Preset) -> list[str]:
        """Follow ``preset``: its tool, its values (the previous preset's cleared, the user's
        kept where they still apply), its name as the label. The names the tool lacks."""
        self._store_form()
        if self.preset is not None:
            left = self.preset.tool
            self._choices[left] = without_preset(self._choices.get(left, ToolChoices()))
            if left == self.form_tool:
                self._refill()
        tool = TOOLS[preset.tool]
        before = self._choices.get(tool.name, ToolChoices())
        self._choices[tool.name] = with_preset(before, tool, preset.params)
        self.preset = preset
        self._show_tool(tool.name)
        self.set_label(preset.name, Origin.PRESET)
        return [name for name in preset.params if name not in tool.params]

    def fill(self, tool: str, params: dict[str, str], label: str) -> list[str]:
        """Repeat a run: its tool, its values and its label, all the user's (no preset)."""
        self._store_form()
        self._leave_preset()
        known = {k: v for k, v in params.items() if k in TOOLS[tool].params}
        self._choices[tool] = ToolChoices(known, dict.fromkeys(known, Origin.USER))
        self._show_tool(tool)
        self.set_label(label, Origin.USER if label else None)
        return [name for name in params if name not in TOOLS[tool].params]

    def resume_preset(self, preset: Preset) -> None:
        """At start-up: the saved values followed ``preset`` (its name is the label)."""
        if preset.tool != self.form_tool:
            return
        self.preset = preset
        self.set_label(preset.name, Origin.PRESET)
        self._show_origins()

    def follow_preset(self, preset: Preset) -> None:
        """The current values were just saved as ``preset``: the form follows it."""
        self._store_form()
        choices = self._current()
        origins = dict(choices.origins)
        for name in preset.params:
            if name in choices.values:
                origins[name] = Origin.PRESET
        self._choices[self.form_tool] = ToolChoices(choices.values, origins)
        self.preset = preset
        self._show_origins()

    def set_label(self, text: str, origin: Origin | None) -> None:
        """Set the label and say where it came from."""
        self._label_set = text
        self.label_edit.setText(text)
        self.label_edit.setPlaceholderText(LABEL_HINT)
        self.label_origin = origin if text else None
        self._label_tool = self._kind()
        self._show_label_origin()

    # -- what the user does ----------------------------------------------------------------------

    def _tool_chosen(self, _index: int) -> None:
        self._store_form()
        if not self._switching:  # the user chose another tool
            self._leave_preset()
            self._label_no_longer_applies()
        self._show_form()
        self.toolChanged.emit()

    def _edited(self, name: str) -> None:
        assert self.form is not None
        tool = self.current_tool()
        choices, changed_kind = after_edit(self._current(), tool, name, self.form.values()[name])
        self._choices[tool.name] = choices
        if changed_kind:  # another kind of run: what described the earlier one goes
            self._leave_preset()
            self._label_no_longer_applies()
            self._refill()
        self._show_origins()

    def _label_typed(self, text: str) -> None:
        if text == self._label_set:
            return  # the form's own
        self._label_set = ""
        self.label_origin = Origin.USER if text.strip() else None
        self._label_tool = self._kind()
        self._show_label_origin()

    # -- the rules' plumbing -----------------------------------------------------------------------

    def _kind(self) -> str:
        """The tool and its kind of run (its tied parameters' values): what a label fits."""
        tool = self.current_tool()
        values = self.form.values() if self.form is not None else {}
        modes = [f"{m}={values.get(m, tool.params[m].default)}" for m in sorted(tool.tied)]
        return " ".join([tool.name, *modes])

    def _current(self) -> ToolChoices:
        return self._choices.get(self.form_tool, ToolChoices())

    def _store_form(self) -> None:
        """The shown form's values into the tool's choices (origins kept)."""
        if self.form is None:
            return
        values = self.form.changed_values()
        origins = self._current().origins
        self._choices[self.form_tool] = ToolChoices(
            values, {k: origins.get(k, Origin.USER) for k in values}
        )

    def _leave_preset(self) -> None:
        """The form no longer follows its preset: the preset's values and label go."""
        if self.preset is None:
            return
        tool = self.preset.tool
        self._choices[tool] = without_preset(self._choices.get(tool, ToolChoices()))
        if tool == self.form_tool:
            self._refill()
        if self.label_origin is Origin.PRESET:
            self.set_label("", None)
        self.preset = None
        self.presetLeft.emit()

    def _label_no_longer_applies(self) -> None:
        """A typed label fits the tool and kind of run it was typed for: cleared on a
        change of either (shown greyed in the empty field, to type again if still meant)."""
        if self.label_origin is not Origin.USER:
            return
        old, kind = self.label(), self._label_tool
        self.set_label("", None)
        self.label_edit.setPlaceholderText(f"cleared: {old!r} was for {kind}")

    def _show_tool(self, name: str) -> None:
        if name == self.form_tool:
            self._refill()
            self._show_origins()
            return
        self._switching = True
        try:
            self.select_tool(name)
        finally:
            self._switching = False

    def _refill(self) -> None:
        """The form shows the tool's choices (left alone when it already does: a field
        being typed in keeps its cursor)."""
        if self.form is not None and self.form.changed_values() != dict(self._current().values):
            self.form.set_values(self._current().values)

    def _show_form(self) -> None:
        tool = self.current_tool()
        self.form_tool = tool.name
        self.form = ParamForm(tool.params)
        self.form.setObjectName(f"form_{tool.name}")
        self.form.set_values(self._current().values)
        self.form.changed.connect(self.paramsChanged)
        self.form.edited.connect(self._edited)
        self.form_area.setWidget(self.form)
        self._show_origins()

    def _show_origins(self) -> None:
        if self.form is not None:
            name = self.preset.name if self.preset is not None else ""
            self.form.show_origins(self._current().origins, name)

    def _show_label_origin(self) -> None:
        text, tip = label_tag(self.label_origin)
        self.label_tag.setText(text)
        self.label_tag.setToolTip(tip)

    # -- settings ------------------------------------------------------------------------------

    def saved_preset(self) -> str:
        """The name of the preset the form followed when it was saved ("": none)."""
        return str(self.settings.value(KEY_PRESET, "") or "")

    def save_state(self) -> None:
        """Remember the pair, the tool, each tool's parameters and their origins, and the
        preset followed, for the next start."""
        self._store_form()
        pair = self.current_pair()
        if pair is not None:
            self.settings.setValue(KEY_PAIR, pair.name)
        self.settings.setValue(KEY_TOOL, self.current_tool().name)
        save_choices(self.settings, self._choices)
        self.settings.setValue(KEY_PRESET, self.preset.name if self.preset else "")
