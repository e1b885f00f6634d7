"""Run presets taken from the field reports (plain data, Qt-free), and user presets as JSON.

The built-in presets are the tool records' (``Tool.presets``) and the burst probe's: each names
the tool and only the parameters that differ from the tool's defaults; where it came from is in
``source`` (a file under ``shared/field-reports``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from pairbench.tools.registry import TOOLS


def burst_probe_label(streams: str, after_step_s: float) -> str:
    """The burst probe's label for its parameters (the preset's name with the defaults)."""
    count = f"{streams} stream" + ("" if streams == "1" else "s")
    return f"Burst probe (iperf3, {count}, stops {after_step_s:g} s after the step)"


BURST_PROBE_PRESET = burst_probe_label("2", 30)


@dataclass(frozen=True, slots=True)
class Preset:
    """A named set of parameter values for one tool."""

    name: str
    tool: str
    params: Mapping[str, str] = field(default_factory=dict)
    source: str = ""  # the field report it reproduces; "" for a user's own preset
    user: bool = False
    probe: str = ""  # "burst": started as the burst probe (engine.burst), not a plain run


# Each tool's presets (its record's, in the registry's order), then the burst probe.
BUILTIN_PRESETS: tuple[Preset, ...] = (
    *(
        Preset(preset.name, tool.name, preset.params, preset.source)
        for tool in TOOLS.values()
        for preset in tool.presets
    ),
    Preset(
        BURST_PROBE_PRESET,
        "iperf3",
        {"streams": "2", "duration": "3600"},
        "ec2-r4-burst-credits-iperf3.txt: the long run, ended once the step is measured",
        probe="burst",
    ),
)


def presets_to_json(presets: list[Preset]) -> str:
    """User presets as a JSON list (what the settings store)."""
    return json.dumps(
        [{"name": p.name, "tool": p.tool, "params": dict(p.params)} for p in presets],
        sort_keys=True,
    )


def presets_from_json(text: str) -> list[Preset]:
    """User presets from ``presets_to_json`` output; malformed entries are skipped."""
    try:
        items = json.loads(text) if text else []
    except ValueError:
        return []
    presets: list[Preset] = []
    if not isinstance(items, list):
        return presets
    for item in items:
        if not isinstance(item, dict):
            continue
        name, tool, params = item.get("name"), item.get("tool"), item.get("params")
        if not isinstance(name, str) or not isinstance(tool, str) or not isinstance(params, dict):
            continue
        clean = {str(k): str(v) for k, v in params.items()}
        presets.append(Preset(name, tool, clean, user=True))
    return presets
