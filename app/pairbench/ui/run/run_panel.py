"""The run panel: pick a pair, a tool and its parameters (or a preset), then Start.

It composes the form (pair, preset, tool, label, parameters), the burst probe's fields, the
error line, the answers to a refused run (accept an unknown host key, build a missing tool),
Start and the progress of the last run. The form is checked by the same code as the CLI's
``--set``; a run that cannot start says why here (never a traceback), decided from the
failure's type, never its message.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QVBoxLayout, QWidget

from pairbench.domain import HostPair, RunSpec
from pairbench.tools.base import Tool
from pairbench.tools.registry import TOOLS
from pairbench.ui.bridge import EngineBridge, RunSignals
from pairbench.ui.hosts.tool_install_dialog import ToolInstallDialog
from pairbench.ui.run.controller import RunController
from pairbench.ui.run.error_line import ErrorLine, friendly_error
from pairbench.ui.run.iperf3_banner import LocalIperf3Banner
from pairbench.ui.run.panel_focus import chain_panel
from pairbench.ui.run.param_form import ParamForm
from pairbench.ui.run.preset_picker import PresetPicker
from pairbench.ui.run.presets import Preset
from pairbench.ui.run.probe_box import BurstProbeBox
from pairbench.ui.run.progress import RunProgress
from pairbench.ui.run.refusal_boxes import HostKeyBox, InstallOfferBox, offer_answer
from pairbench.ui.run.run_form import RunForm
from pairbench.ui.run.run_queue import QueuedRun, RunQueue
from pairbench.ui.run.run_start import checked_run, probe_run, start_row, submit_run


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
        self.install_dialog: ToolInstallDialog | None = None
        self._last_launch: tuple[HostPair, RunSpec, float | None] | None = None

        self.banner = LocalIperf3Banner()
        self.preset_picker = PresetPicker(settings)
        self.run_form = RunForm(bridge, settings, self.preset_picker)
        self.probe_box = BurstProbeBox()  # shown while the burst probe preset is chosen
        self.error_line = ErrorLine()
        self.host_key_box = HostKeyBox()
        self.install_box = InstallOfferBox()
        self.start_button, self.repeat_box, self.queue_button = start_row()
        self.progress = RunProgress()
        self.queue = RunQueue(self._launch_queued)

        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(self.run_form, 1)
        layout.addWidget(self.probe_box)
        layout.addWidget(self.error_line)
        layout.addWidget(self.host_key_box)
        layout.addWidget(self.install_box)
        starts = QHBoxLayout()
        starts.addWidget(self.start_button, 1)
        starts.addWidget(self.repeat_box)
        starts.addWidget(self.queue_button)
        layout.addLayout(starts)
        layout.addWidget(self.progress)
        layout.addWidget(self.queue)

        self.run_form.pair_choice.loaded.connect(self.pairsLoaded)
        self.run_form.pair_choice.loadFailed.connect(self.show_error)
        self.run_form.toolChanged.connect(self.clear_error)
        self.run_form.toolChanged.connect(self.chain_focus)  # the new form's fields in turn
        self.run_form.presetLeft.connect(self._preset_left)
        self.preset_picker.activated.connect(self.apply_preset)
        self.preset_picker.saveRequested.connect(self.save_user_preset)
        self.preset_picker.refused.connect(self.show_error)
        self.probe_box.max_duration.valueChanged.connect(self._probe_duration_changed)
        self.probe_box.after_step.valueChanged.connect(self._relabel_probe)
        self.run_form.paramsChanged.connect(self._relabel_probe)
        self.host_key_box.acceptRequested.connect(self.accept_host_key)
        self.install_box.installRequested.connect(self.install_missing_tool)
        self.start_button.clicked.connect(self.start)
        self.queue_button.clicked.connect(self.add_to_queue)

        self._resume_saved_preset()
        self.chain_focus()
        self.banner.check()
        self.refresh_pairs()

    # -- the choices ---------------------------------------------------------------------------

    @property
    def form(self) -> ParamForm | None:
        """The chosen tool's parameters."""
        return self.run_form.form

    @property
    def preset_combo(self) -> QComboBox:
        """The presets' list (choosing in it applies the preset)."""
        return self.preset_picker.combo

    def refresh_pairs(self) -> None:
        """Reload the pairs from the library (through the engine thread)."""
        self.run_form.pair_choice.refresh()

    def current_pair(self) -> HostPair | None:
        return self.run_form.current_pair()

    def select_pair(self, name: str) -> bool:
        return self.run_form.pair_choice.select(name)

    def current_tool(self) -> Tool:
        return self.run_form.current_tool()

    def select_tool(self, name: str) -> bool:
        return self.run_form.select_tool(name)

    def chain_focus(self) -> list[QWidget]:
        """Tab goes through the panel as it reads (``panel_focus``); the order."""
        return chain_panel(self)

    def _preset_left(self) -> None:
        """Another tool or kind of run: the preset no longer describes the choices."""
        self.preset_picker.reset()
        self.probe_box.setVisible(False)

    def _resume_saved_preset(self) -> None:
        preset = self.preset_picker.find_preset(self.run_form.saved_preset())
        if preset is not None and preset.tool == self.current_tool().name:
            self.run_form.resume_preset(preset)
            self.preset_picker.show_chosen(preset)
            self.probe_box.setVisible(preset.probe == "burst")

    def apply_preset(self, name: str) -> bool:
        """Choose the preset's tool, its values and its label (see ``RunForm.apply_preset``)."""
        preset = self.preset_picker.find_preset(name)
        if preset is None or preset.tool not in TOOLS:
            missing = preset.tool if preset else name
            self.show_error(f"The preset {name!r} cannot be used: {missing} is not available")
            return False
        unknown = self.run_form.apply_preset(preset)
        self.preset_picker.show_chosen(preset)
        self.probe_box.follow_preset(preset)
        self._relabel_probe()
        if unknown:
            self.show_error(
                f"The preset {name!r} sets parameters {preset.tool} does not have: "
                f"{', '.join(unknown)} (ignored)"
            )
        else:
            self.clear_error()
        self.chain_focus()
        return True

    def save_user_preset(self, name: str) -> Preset:
        """Save the current tool and its non-default values as the user's preset ``name``."""
        tool = self.current_tool().name
        preset = self.preset_picker.save_user_preset(name, tool, self.run_form.changed_values())
        self.run_form.follow_preset(preset)
        return preset

    def delete_user_preset(self, name: str) -> bool:
        return self.preset_picker.delete_user_preset(name)

    @property
    def probe_mode(self) -> bool:
        """True while the burst probe preset is chosen (Start then starts the probe)."""
        return not self.probe_box.isHidden()

    def _relabel_probe(self) -> None:
        self.probe_box.relabel(self.run_form)

    def _probe_duration_changed(self, seconds: int) -> None:
        if self.form is not None and "duration" in self.form.fields:
            self.form.fields["duration"].set_value(str(seconds))

    # -- starting runs -------------------------------------------------------------------------

    def validate(self) -> tuple[HostPair, RunSpec] | str:
        """The pair and spec to run, or what is wrong (for the user)."""
        assert self.form is not None
        return checked_run(
            self.current_pair(),
            self.current_tool(),
            self.form,
            self.run_form.label(),
            self.controllers,
        )

    def start(self) -> RunController | None:
        """Start a run with the current choices (``Runs`` > 1: that many, one after the
        other, through the queue); None (and the reason shown) if it cannot."""
        entry = self._entry()
        if entry is None:
            return None
        count = self.repeat_box.value()
        if count == 1 and not self.queue.entries and not self.queue.busy:
            return self.launch(entry.pair, entry.spec, after_step_s=entry.after_step_s)
        self.queue.add([entry] * count)
        return self.queue.current

    def fill_from(self, spec: RunSpec) -> list[str]:
        """Set the form to repeat ``spec`` (Run again): its pair when it still exists, its
        tool, parameters and label; what could not be set, in words."""
        problems: list[str] = []
        if not self.select_pair(spec.pair):
            problems.append(f"pair {spec.pair!r} is not in the list: choose one")
        if spec.tool not in TOOLS:
            return [*problems, f"{spec.tool} is not available here"]
        unknown = self.run_form.fill(spec.tool, dict(spec.params), spec.label)
        if unknown:
            problems.append(f"{spec.tool} has no parameter {', '.join(unknown)}")
        if problems:
            self.show_error("Run again: " + "; ".join(problems))
        else:
            self.clear_error()
        self.start_button.setFocus()
        return problems

    def add_to_queue(self) -> bool:
        """Queue ``Runs`` runs with the current choices (started when the queue's turn
        comes); False (and the reason shown) if they cannot run."""
        entry = self._entry()
        if entry is None:
            return False
        self.queue.add([entry] * self.repeat_box.value())
        return True

    def _entry(self) -> QueuedRun | None:
        checked = self.validate()
        if isinstance(checked, str):
            self.show_error(checked)
            return None
        pair, spec = checked
        self.save_state()
        if not self.probe_mode:
            return QueuedRun(pair, spec)
        try:
            return probe_run(pair, spec, self.probe_box.max_duration_s, self.probe_box.after_step_s)
        except ValueError as exc:
            self.show_error(f"The burst probe cannot start: {exc}")
            return None

    def _launch_queued(self, entry: QueuedRun) -> RunController | None:
        return self.launch(entry.pair, entry.spec, after_step_s=entry.after_step_s)

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
        controller.handle = submit_run(
            self.bridge,
            pair,
            spec,
            signals,
            accept_new_host_key=accept_new_host_key,
            after_step_s=after_step_s,
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
        """Offer the answer to a refusal of the last run, chosen by the failure's type."""
        last = controller is self.progress.controller
        if last and offer_answer(controller.failure, self.host_key_box, self.install_box):
            self.error_line.setVisible(False)
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
        missing = self.install_box.missing
        if missing is None:
            return None
        dialog = ToolInstallDialog(self.bridge, missing.host, missing.tool, self)
        dialog.installed.connect(self._tool_installed)
        self.install_dialog = dialog
        dialog.start()
        dialog.open()
        return dialog

    def _tool_installed(self, _result: object) -> None:
        self.install_box.withdraw()
        if self._last_launch is not None:
            pair, spec, after_step_s = self._last_launch
            self.launch(pair, spec, after_step_s=after_step_s)

    def show_error(self, text: str) -> None:
        self.error_line.show_error(text)

    def clear_error(self) -> None:
        """Hide the error line and the answers to an earlier refusal."""
        self.error_line.clear_error()
        self.host_key_box.setVisible(False)
        self.install_box.setVisible(False)

    def save_state(self) -> None:
        """Remember the pair, the tool and each tool's parameters for the next start."""
        self.run_form.save_state()
