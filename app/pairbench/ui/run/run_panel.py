"""The run panel: pick a pair, a tool and its parameters (or a preset), then Start.

Pairs come from the library through the bridge; the form is generated from the tool's
parameters and checked by the same code as the CLI's ``--set``; a run that cannot start says
why here (never a traceback), and an unknown host key can be accepted explicitly.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping

import shiboken6
from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain import LOCAL_PAIR, HostPair, RunSpec
from pairbench.domain.failures import HostKeyUnknownError, RunError, ToolNotInstalledError
from pairbench.engine.burst import burst_probe_spec
from pairbench.services.hosts import all_pairs
from pairbench.services.library import Library
from pairbench.tools.base import Tool
from pairbench.tools.registry import TOOLS
from pairbench.ui.bridge import EngineBridge, RunSignals
from pairbench.ui.hosts.tool_install_dialog import ToolInstallDialog, install_label
from pairbench.ui.run.controller import RunController
from pairbench.ui.run.param_form import ParamForm
from pairbench.ui.run.presets import BUILTIN_PRESETS, Preset, presets_from_json, presets_to_json
from pairbench.ui.run.probe_box import BurstProbeBox
from pairbench.ui.run.progress import RunProgress

DEFAULT_TOOL = "iperf3"
_CLI_HINT_RE = re.compile(r"\s*\(--accept-new-host-key on the command line\)")

# QSettings keys
KEY_PAIR = "run/pair"
KEY_TOOL = "run/tool"
KEY_PARAMS = "run/params"  # JSON: tool → {param: value}
KEY_USER_PRESETS = "run/user_presets"  # JSON list

_ERROR_STYLE = (
    "QLabel { color: #8e0000; background: #fdecea; border: 1px solid #f5c2c0;"
    " border-radius: 3px; padding: 6px; }"
)
_BANNER_STYLE = (
    "QLabel { color: #5d4200; background: #fff4ce; border: 1px solid #f0d58c;"
    " border-radius: 3px; padding: 6px; }"
)


def pair_title(pair: HostPair) -> str:
    return f"{pair.name} — {pair.description}" if pair.description else pair.name


def friendly_error(message: str) -> str:
    """An engine error for the window (the CLI's own hints removed)."""
    return _CLI_HINT_RE.sub("", message).strip()


class RunPanel(QWidget):
    """Where runs are set up and started."""

    runLaunched = Signal(object)  # RunController
    pairsLoaded = Signal(list)  # list[HostPair]

    def __init__(
        self, bridge: EngineBridge, settings: QSettings, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.settings = settings
        self.controllers: list[RunController] = []
        self.form: ParamForm | None = None
        self.form_tool = ""
        self.pairs: list[HostPair] = []
        self.user_presets: list[Preset] = presets_from_json(
            str(settings.value(KEY_USER_PRESETS, "") or "")
        )
        self._params_by_tool: dict[str, dict[str, str]] = self._saved_params()
        self._applying_preset = False
        self._last_launch: tuple[HostPair, RunSpec, float | None] | None = None
        self._wanted_pair = str(settings.value(KEY_PAIR, LOCAL_PAIR.name) or LOCAL_PAIR.name)

        self.banner = QLabel()
        self.banner.setObjectName("iperf3_banner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(_BANNER_STYLE)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.setVisible(False)

        self.pair_combo = QComboBox()
        self.pair_combo.setObjectName("pair_combo")
        self.pair_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.pair_combo.setMinimumContentsLength(12)
        self.pair_combo.setPlaceholderText("Loading pairs…")
        refresh_pairs = QToolButton()
        refresh_pairs.setText("↻")
        refresh_pairs.setToolTip("Reload the pairs from the library")
        refresh_pairs.clicked.connect(self.refresh_pairs)
        pair_row = QHBoxLayout()
        pair_row.addWidget(self.pair_combo, 1)
        pair_row.addWidget(refresh_pairs)

        self.tool_combo = QComboBox()
        self.tool_combo.setObjectName("tool_combo")
        for name, tool in TOOLS.items():
            self.tool_combo.addItem(name, name)
            self.tool_combo.setItemData(
                self.tool_combo.count() - 1, self._tool_tip(tool), Qt.ItemDataRole.ToolTipRole
            )

        self.preset_combo = QComboBox()
        self.preset_combo.setObjectName("preset_combo")
        self.preset_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.preset_combo.setMinimumContentsLength(12)
        self.preset_combo.activated.connect(self._preset_activated)
        self.save_preset_button = QToolButton()
        self.save_preset_button.setText("Save…")
        self.save_preset_button.setToolTip("Save the tool and its parameters as a preset")
        self.save_preset_button.clicked.connect(self._ask_save_preset)
        self.delete_preset_button = QToolButton()
        self.delete_preset_button.setText("Delete")
        self.delete_preset_button.setToolTip("Delete the chosen preset (your own presets only)")
        self.delete_preset_button.clicked.connect(self._delete_current_preset)
        preset_row = QHBoxLayout()
        preset_row.addWidget(self.preset_combo, 1)
        preset_row.addWidget(self.save_preset_button)
        preset_row.addWidget(self.delete_preset_button)

        self.label_edit = QLineEdit()
        self.label_edit.setObjectName("run_label")
        self.label_edit.setPlaceholderText("optional, e.g. same zone, placement group")

        choices = QFormLayout()
        choices.addRow("Pair", pair_row)
        choices.addRow("Preset", preset_row)
        choices.addRow("Tool", self.tool_combo)
        choices.addRow("Label", self.label_edit)

        self.form_area = QScrollArea()
        self.form_area.setWidgetResizable(True)
        self.form_area.setFrameShape(QFrame.Shape.NoFrame)
        self.probe_box = BurstProbeBox()  # shown while the burst probe preset is chosen
        self.probe_box.max_duration.valueChanged.connect(self._probe_duration_changed)

        self.start_button = QPushButton("Start")
        self.start_button.setObjectName("start_run")
        self.start_button.setDefault(True)
        self.start_button.setMinimumHeight(32)
        self.start_button.clicked.connect(self.start)

        self.error_label = QLabel()
        self.error_label.setObjectName("run_error")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(_ERROR_STYLE)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.setVisible(False)

        self.host_key_box = QFrame()
        self.host_key_box.setFrameShape(QFrame.Shape.StyledPanel)
        self.host_key_label = QLabel()
        self.host_key_label.setWordWrap(True)
        self.host_key_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.accept_key_button = QPushButton("Accept the key and start again")
        self.accept_key_button.setObjectName("accept_host_key")
        self.accept_key_button.clicked.connect(self.accept_host_key)
        key_layout = QVBoxLayout(self.host_key_box)
        key_layout.addWidget(self.host_key_label)
        key_layout.addWidget(self.accept_key_button)
        self.host_key_box.setVisible(False)

        # A run refused because its tool is missing on a host that Pairbench can build it on.
        self.install_box = QFrame()
        self.install_box.setFrameShape(QFrame.Shape.StyledPanel)
        self.install_label = QLabel()
        self.install_label.setWordWrap(True)
        self.install_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.install_button = QPushButton()
        self.install_button.setObjectName("install_missing_tool")
        self.install_button.clicked.connect(self.install_missing_tool)
        install_layout = QVBoxLayout(self.install_box)
        install_layout.addWidget(self.install_label)
        install_layout.addWidget(self.install_button)
        self.install_box.setVisible(False)
        self.missing: ToolNotInstalledError | None = None
        self.install_dialog: ToolInstallDialog | None = None

        self.progress = RunProgress()

        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addLayout(choices)
        heading = QLabel("Parameters")
        heading.setStyleSheet("font-weight: bold;")
        layout.addWidget(heading)
        layout.addWidget(self.form_area, 1)
        layout.addWidget(self.probe_box)
        layout.addWidget(self.error_label)
        layout.addWidget(self.host_key_box)
        layout.addWidget(self.install_box)
        layout.addWidget(self.start_button)
        layout.addWidget(self.progress)

        self._fill_presets()
        saved_tool = str(settings.value(KEY_TOOL, DEFAULT_TOOL) or DEFAULT_TOOL)
        self.select_tool(saved_tool if saved_tool in TOOLS else DEFAULT_TOOL)
        self._tool_chosen(self.tool_combo.currentIndex())
        self.tool_combo.currentIndexChanged.connect(self._tool_chosen)
        self.check_local_tools()
        self.refresh_pairs()

    # -- pairs -----------------------------------------------------------------------------

    def refresh_pairs(self) -> None:
        """Reload the pairs from the library (through the engine thread)."""

        async def job(library: Library) -> list[HostPair]:
            return all_pairs(library)

        def done(pairs: list[HostPair]) -> None:
            if shiboken6.isValid(self):  # the window may have closed meanwhile
                self._set_pairs(pairs)

        def failed(error: BaseException) -> None:
            if shiboken6.isValid(self):
                self.show_error(f"Could not read the pairs from the library: {error}")

        self.bridge.call(job, done, failed)

    def _set_pairs(self, pairs: list[HostPair]) -> None:
        current = self.current_pair()
        wanted = current.name if current else self._wanted_pair
        self.pairs = list(pairs)
        self.pair_combo.clear()
        for pair in self.pairs:
            self.pair_combo.addItem(pair_title(pair), pair.name)
        names = [pair.name for pair in self.pairs]
        for choice in (wanted, LOCAL_PAIR.name):
            if choice in names:
                self.pair_combo.setCurrentIndex(names.index(choice))
                break
        if not self.pairs:
            self.pair_combo.setPlaceholderText("No pairs: add one under Hosts & pairs")
        self.pairsLoaded.emit(self.pairs)

    def current_pair(self) -> HostPair | None:
        name = self.pair_combo.currentData()
        return next((pair for pair in self.pairs if pair.name == name), None)

    def select_pair(self, name: str) -> bool:
        index = self.pair_combo.findData(name)
        if index < 0:
            self._wanted_pair = name
            return False
        self.pair_combo.setCurrentIndex(index)
        return True

    # -- tools and the form ----------------------------------------------------------------

    def current_tool(self) -> Tool:
        return TOOLS[str(self.tool_combo.currentData())]

    def select_tool(self, name: str) -> bool:
        index = self.tool_combo.findData(name)
        if index < 0:
            return False
        self.tool_combo.setCurrentIndex(index)
        return True

    def _tool_chosen(self, _index: int) -> None:
        if self.form is not None:
            self._params_by_tool[self.form_tool] = self.form.changed_values()
        tool = self.current_tool()
        self.form_tool = tool.name
        self.form = ParamForm(tool.params)
        self.form.setObjectName(f"form_{tool.name}")
        self.form.set_values(self._params_by_tool.get(tool.name, {}))
        self.form_area.setWidget(self.form)
        if not self._applying_preset:
            self.preset_combo.setCurrentIndex(0)
            self.probe_box.setVisible(False)
        self.clear_error()

    @staticmethod
    def _tool_tip(tool: Tool) -> str:
        where = "on the server host" if tool.server_only else "between the pair's hosts"
        return f"{tool.name}: runs {where}; install: {tool.install_hint}"

    def check_local_tools(self) -> None:
        """Show how to install iperf3 when this computer lacks it."""
        if shutil.which("iperf3") is not None:
            self.banner.setVisible(False)
            return
        hint = TOOLS["iperf3"].install_hint if "iperf3" in TOOLS else "apt-get install iperf3"
        self.banner.setText(
            "iperf3 is not installed on this computer, so the “This computer” pair cannot run "
            f"it yet. Install it with:  sudo {hint}"
        )
        self.banner.setVisible(True)

    # -- presets ---------------------------------------------------------------------------

    def presets(self) -> list[Preset]:
        return [*BUILTIN_PRESETS, *self.user_presets]

    def _fill_presets(self) -> None:
        self.preset_combo.clear()
        self.preset_combo.addItem("Choose a preset…", None)
        model = self.preset_combo.model()
        assert isinstance(model, QStandardItemModel)
        for preset in BUILTIN_PRESETS:
            self.preset_combo.addItem(preset.name, preset.name)
            item = model.item(self.preset_combo.count() - 1)
            if preset.tool in TOOLS:
                item.setToolTip(f"From the field reports: {preset.source}")
            else:
                item.setEnabled(False)
                item.setToolTip(f"{preset.tool} is not available in this version yet")
        if self.user_presets:
            self.preset_combo.insertSeparator(self.preset_combo.count())
            for preset in self.user_presets:
                self.preset_combo.addItem(f"{preset.name} (yours)", preset.name)
                item = model.item(self.preset_combo.count() - 1)
                item.setToolTip(f"{preset.tool}: {_params_summary(preset.params)}")
                if preset.tool not in TOOLS:
                    item.setEnabled(False)

    def find_preset(self, name: str) -> Preset | None:
        # User presets shadow built-ins of the same name.
        for preset in [*self.user_presets, *BUILTIN_PRESETS]:
            if preset.name == name:
                return preset
        return None

    def _preset_activated(self, index: int) -> None:
        name = self.preset_combo.itemData(index)
        if name:
            self.apply_preset(str(name))

    def apply_preset(self, name: str) -> bool:
        """Choose the preset's tool and fill the form with its values."""
        preset = self.find_preset(name)
        if preset is None or preset.tool not in TOOLS:
            missing = preset.tool if preset else name
            self.show_error(f"The preset {name!r} cannot be used: {missing} is not available")
            return False
        self._applying_preset = True
        try:
            self.select_tool(preset.tool)
            assert self.form is not None
            unknown = self.form.set_values(preset.params)
        finally:
            self._applying_preset = False
        index = self.preset_combo.findData(name)
        if preset.user:  # the user's own entry, not a built-in of the same name
            index = max(
                (
                    i
                    for i in range(self.preset_combo.count())
                    if self.preset_combo.itemData(i) == name
                ),
                default=index,
            )
        self.preset_combo.setCurrentIndex(index)
        self.probe_box.setVisible(preset.probe == "burst")
        if preset.probe == "burst" and preset.params.get("duration", "").isdigit():
            self.probe_box.max_duration.setValue(int(preset.params["duration"]))
        previous = self.label_edit.text()
        if not previous or self.find_preset(previous) is not None:
            self.label_edit.setText(preset.name)
        if unknown:
            self.show_error(
                f"The preset {name!r} sets parameters {preset.tool} does not have: "
                f"{', '.join(unknown)} (ignored)"
            )
        else:
            self.clear_error()
        return True

    def _ask_save_preset(self) -> None:
        name, ok = QInputDialog.getText(self, "Save preset", "Name of the preset:")
        if ok and name.strip():
            self.save_user_preset(name.strip())

    def save_user_preset(self, name: str) -> Preset:
        """Save the current tool and its non-default values as the user's preset ``name``."""
        assert self.form is not None
        preset = Preset(name, self.current_tool().name, self.form.changed_values(), user=True)
        self.user_presets = [p for p in self.user_presets if p.name != name] + [preset]
        self._store_user_presets()
        self._fill_presets()
        self.preset_combo.setCurrentIndex(self.preset_combo.findText(f"{name} (yours)"))
        return preset

    def delete_user_preset(self, name: str) -> bool:
        before = len(self.user_presets)
        self.user_presets = [p for p in self.user_presets if p.name != name]
        if len(self.user_presets) == before:
            return False
        self._store_user_presets()
        self._fill_presets()
        return True

    def _delete_current_preset(self) -> None:
        name = self.preset_combo.currentData()
        preset = self.find_preset(str(name)) if name else None
        if preset is None or not preset.user:
            self.show_error("Only your own presets can be deleted.")
            return
        self.delete_user_preset(preset.name)

    def _store_user_presets(self) -> None:
        self.settings.setValue(KEY_USER_PRESETS, presets_to_json(self.user_presets))

    # -- starting runs ---------------------------------------------------------------------

    def validate(self) -> tuple[HostPair, RunSpec] | str:
        """The pair and spec to run, or what is wrong (for the user)."""
        pair = self.current_pair()
        if pair is None:
            return "Choose a pair to run on."
        tool = self.current_tool()
        assert self.form is not None
        errors = self.form.errors()
        if errors:
            return "Fix the parameters first:\n" + "\n".join(f"• {e}" for e in errors.values())
        values = self.form.changed_values()  # as with --set: defaults are the tool's
        try:
            tool.resolve(values)
        except ValueError as exc:
            return f"These parameters cannot be combined: {exc}"
        busy = next((c for c in self.controllers if c.active and c.pair.name == pair.name), None)
        if busy is not None:
            return (
                f"{pair.name} is busy with run {busy.title}: two runs on one pair would "
                "disturb each other's results. Wait for it or cancel it."
            )
        return pair, RunSpec(pair.name, tool.name, values, label=self.label_edit.text().strip())

    def start(self) -> RunController | None:
        """Start a run with the current choices; None (and the reason shown) if it cannot."""
        checked = self.validate()
        if isinstance(checked, str):
            self.show_error(checked)
            return None
        pair, spec = checked
        self.save_state()
        if not self.probe_mode:
            return self.launch(pair, spec)
        try:
            streams = int(spec.params.get("streams", "") or 2)
            spec = burst_probe_spec(
                pair,
                max_duration_s=self.probe_box.max_duration_s,
                streams=streams,
                label=spec.label,
            )
        except ValueError as exc:
            self.show_error(f"The burst probe cannot start: {exc}")
            return None
        return self.launch(pair, spec, after_step_s=self.probe_box.after_step_s)

    @property
    def probe_mode(self) -> bool:
        """True while the burst probe preset is chosen (Start then starts the probe)."""
        return not self.probe_box.isHidden()

    def _probe_duration_changed(self, seconds: int) -> None:
        if self.form is not None and "duration" in self.form.fields:
            self.form.fields["duration"].set_value(str(seconds))

    def launch(
        self,
        pair: HostPair,
        spec: RunSpec,
        *,
        accept_new_host_key: bool = False,
        after_step_s: float | None = None,
    ) -> RunController:
        """Submit a run to the engine and follow it (a burst probe with ``after_step_s``)."""
        self.clear_error()
        signals = RunSignals()
        controller = RunController(signals, pair, spec, self)  # connected before submitting
        if after_step_s is None:
            controller.handle = self.bridge.start_run(
                pair, spec, accept_new_host_key=accept_new_host_key, signals=signals
            )
        else:
            controller.handle = self.bridge.start_probe(
                pair,
                spec,
                after_step_s=after_step_s,
                accept_new_host_key=accept_new_host_key,
                signals=signals,
            )
        controller.failed.connect(lambda message: self._run_failed(controller, message))
        controller.changed.connect(self._prune)
        self.controllers.append(controller)
        self._last_launch = (pair, spec, after_step_s)
        self.progress.bind(controller)
        self.runLaunched.emit(controller)
        return controller

    def _prune(self) -> None:
        self.controllers = [
            c for c in self.controllers if c.active or c is self.progress.controller
        ]

    def _run_failed(self, controller: RunController, message: str) -> None:
        missing = controller.failure
        if (
            isinstance(missing, ToolNotInstalledError)
            and missing.installable
            and controller is self.progress.controller
        ):
            self.missing = missing
            self.install_label.setText(
                f"{missing.tool} is not installed on {missing.host}. Pairbench can build it "
                f"there from its pinned source, as the SSH user, into ~/.local/bin (nothing "
                "system-wide), then start the run again."
            )
            self.install_button.setText(f"{install_label(missing.tool)} on {missing.host}")
            self.install_box.setVisible(True)
            self.error_label.setVisible(False)
            return
        unknown_key = missing.cause if isinstance(missing, RunError) else None
        if isinstance(unknown_key, HostKeyUnknownError) and controller is self.progress.controller:
            host, fingerprint = unknown_key.host, unknown_key.fingerprint
            self.host_key_label.setText(
                f"{host} presented a host key this computer has not seen before:\n\n"
                f"    {fingerprint}\n\n"
                "Check it against the host's own key (ssh-keygen -lf on the host). Accepting "
                "pins it in the library; a new key of the pair's other host is accepted the "
                "same way."
            )
            self.host_key_box.setVisible(True)
            self.error_label.setVisible(False)
            return
        self.show_error(f"The run could not start: {friendly_error(message)}")

    def accept_host_key(self) -> RunController | None:
        """Start the refused run again, accepting the host key that stopped it."""
        if self._last_launch is None:
            return None
        self.host_key_box.setVisible(False)
        pair, spec, after_step_s = self._last_launch
        return self.launch(pair, spec, accept_new_host_key=True, after_step_s=after_step_s)

    def install_missing_tool(self) -> ToolInstallDialog | None:
        """Build the tool the refused run lacked; the run starts again once it is there."""
        missing = self.missing
        if missing is None:
            return None
        dialog = ToolInstallDialog(self.bridge, missing.host, missing.tool, self)
        dialog.installed.connect(self._tool_installed)
        self.install_dialog = dialog
        dialog.start()
        dialog.open()
        return dialog

    def _tool_installed(self, _result: object) -> None:
        self.install_box.setVisible(False)
        self.missing = None
        if self._last_launch is not None:
            pair, spec, after_step_s = self._last_launch
            self.launch(pair, spec, after_step_s=after_step_s)

    def show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.setVisible(True)

    def clear_error(self) -> None:
        self.error_label.setVisible(False)
        self.error_label.clear()
        self.host_key_box.setVisible(False)
        self.install_box.setVisible(False)

    # -- settings --------------------------------------------------------------------------

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


def _params_summary(params: Mapping[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "defaults"
