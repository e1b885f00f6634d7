"""What the run panel's Start does: the choices checked, a probe's run made, the run submitted.

Also the row of buttons that start runs (Start, the number of runs, Add to queue).
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtWidgets import QPushButton, QSpinBox

from pairbench.domain import HostPair, RunSpec
from pairbench.services.burst import burst_probe_spec
from pairbench.tools.base import Tool
from pairbench.ui.bridge import EngineBridge, RunHandle, RunSignals
from pairbench.ui.run.controller import RunController
from pairbench.ui.run.param_form import ParamForm
from pairbench.ui.run.run_queue import QueuedRun

MAX_REPEATS = 999


def start_row() -> tuple[QPushButton, QSpinBox, QPushButton]:
    """Start (the default button), the number of runs, and Add to queue."""
    start = QPushButton("Start")
    start.setObjectName("start_run")
    start.setDefault(True)
    start.setMinimumHeight(32)
    repeats = QSpinBox()
    repeats.setRange(1, MAX_REPEATS)
    repeats.setPrefix("Runs: ")
    repeats.setToolTip("Start this run so many times, one after the other")
    repeats.setAccessibleName("Number of runs")
    queue = QPushButton("Add to queue")
    queue.setToolTip("Run after the runs already queued")
    return start, repeats, queue


def checked_run(
    pair: HostPair | None,
    tool: Tool,
    form: ParamForm,
    label: str,
    controllers: Iterable[RunController],
) -> tuple[HostPair, RunSpec] | str:
    """The pair and spec to run, or what is wrong (for the user)."""
    if pair is None:
        return "Choose a pair to run on."
    errors = form.errors()
    if errors:
        return "Fix the parameters first:\n" + "\n".join(f"• {e}" for e in errors.values())
    values = form.changed_values()  # as with --set: defaults are the tool's
    try:
        tool.resolve(values)
    except ValueError as exc:
        return f"These parameters cannot be combined: {exc}"
    busy = next((c for c in controllers if c.active and c.pair.name == pair.name), None)
    if busy is not None:
        return (
            f"{pair.name} is busy with run {busy.title}: two runs on one pair would "
            "disturb each other's results. Wait for it or cancel it."
        )
    return pair, RunSpec(pair.name, tool.name, values, label=label)


def probe_run(pair: HostPair, spec: RunSpec, max_duration_s: int, after_step_s: float) -> QueuedRun:
    """The burst probe's run for the choices (``ValueError`` if it cannot start)."""
    streams = int(spec.params.get("streams", "") or 2)
    probe = burst_probe_spec(pair, max_duration_s=max_duration_s, streams=streams, label=spec.label)
    return QueuedRun(pair, probe, after_step_s)


def submit_run(
    bridge: EngineBridge,
    pair: HostPair,
    spec: RunSpec,
    signals: RunSignals,
    *,
    accept_new_host_key: bool,
    after_step_s: float | None,
) -> RunHandle:
    """Submit a run (a burst probe with ``after_step_s``) to the engine thread."""
    if after_step_s is None:
        return bridge.start_run(
            pair, spec, accept_new_host_key=accept_new_host_key, signals=signals
        )
    return bridge.start_probe(
        pair,
        spec,
        after_step_s=after_step_s,
        accept_new_host_key=accept_new_host_key,
        signals=signals,
    )
