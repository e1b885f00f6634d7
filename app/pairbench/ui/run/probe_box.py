"""The burst probe's own fields in the run panel: how long to measure the baseline after the
step, and how long the probe may run at most. Shown while a probe preset is chosen."""

from __future__ import annotations

from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QGroupBox, QLabel, QSpinBox, QWidget

from pairbench.services.burst import DEFAULT_AFTER_STEP_S, DEFAULT_MAX_DURATION_S
from pairbench.ui.run.form_origins import Origin
from pairbench.ui.run.presets import Preset, burst_probe_label
from pairbench.ui.run.run_form import RunForm

MAX_AFTER_STEP_S = 3600.0
MAX_DURATION_S = 24 * 3600


class BurstProbeBox(QGroupBox):
    """ "After step (s)" and "max duration (s)" for a burst probe."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Burst probe", parent)
        self.setObjectName("burst_probe_box")
        self.after_step = QDoubleSpinBox()
        self.after_step.setObjectName("probe_after_step")
        self.after_step.setRange(0.0, MAX_AFTER_STEP_S)
        self.after_step.setDecimals(0)
        self.after_step.setValue(DEFAULT_AFTER_STEP_S)
        self.after_step.setToolTip("How long the baseline is measured after the step is confirmed")
        self.max_duration = QSpinBox()
        self.max_duration.setObjectName("probe_max_duration")
        self.max_duration.setRange(10, MAX_DURATION_S)
        self.max_duration.setValue(DEFAULT_MAX_DURATION_S)
        self.max_duration.setToolTip("The probe ends by then even without a step")
        note = QLabel(
            "iperf3 TCP with the streams above and 1 s intervals; it stops by itself once the "
            "step from burst to baseline is confirmed and measured this long. The estimates "
            "are stored with the run."
        )
        note.setWordWrap(True)
        note.setStyleSheet("color: #555;")
        form = QFormLayout(self)
        form.addRow("After step (s)", self.after_step)
        form.addRow("Max duration (s)", self.max_duration)
        form.addRow(note)
        self.setVisible(False)

    @property
    def after_step_s(self) -> float:
        return float(self.after_step.value())

    @property
    def max_duration_s(self) -> int:
        return int(self.max_duration.value())

    def follow_preset(self, preset: Preset) -> None:
        """Shown for a probe preset, its maximum duration the preset's duration."""
        self.setVisible(preset.probe == "burst")
        if preset.probe == "burst" and preset.params.get("duration", "").isdigit():
            self.max_duration.setValue(int(preset.params["duration"]))

    def relabel(self, run_form: RunForm) -> None:
        """While the burst probe is chosen, the label it set follows its parameters
        (streams, after step); a label the user typed stays."""
        form = run_form.form
        if self.isHidden() or form is None or "streams" not in form.fields:
            return
        if run_form.label_origin is not Origin.PRESET:
            return
        label = burst_probe_label(form.values().get("streams", "1"), self.after_step_s)
        if label != run_form.label():
            run_form.set_label(label, Origin.PRESET)
