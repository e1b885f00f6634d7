"""The run form's saved state: each tool's typed values and where they came from, in QSettings."""

from __future__ import annotations

import json
from collections.abc import Mapping

from PySide6.QtCore import QSettings

from pairbench.ui.run.form_origins import Origin, ToolChoices, origins_from_json, origins_to_json

# QSettings keys
KEY_PAIR = "run/pair"
KEY_TOOL = "run/tool"
KEY_PARAMS = "run/params"  # JSON: tool → {param: value}
KEY_ORIGINS = "run/origins"  # JSON: tool → {param: "preset"} (the others are the user's)
KEY_PRESET = "run/preset"  # the preset the form follows ("": none)


def saved_choices(settings: QSettings) -> dict[str, ToolChoices]:
    """Each tool's saved values with their origins (unreadable settings: none)."""
    try:
        data = json.loads(str(settings.value(KEY_PARAMS, "") or "{}"))
        origins = json.loads(str(settings.value(KEY_ORIGINS, "") or "{}"))
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    found: dict[str, ToolChoices] = {}
    for tool, values in data.items():
        if not isinstance(values, dict):
            continue
        kept = {str(k): str(v) for k, v in values.items()}
        marks = origins_from_json(origins, str(tool))
        found[str(tool)] = ToolChoices(kept, {k: marks.get(k, Origin.USER) for k in kept})
    return found


def save_choices(settings: QSettings, choices: Mapping[str, ToolChoices]) -> None:
    """Each tool's values and their origins, for the next start."""
    values = {tool: dict(c.values) for tool, c in choices.items()}
    settings.setValue(KEY_PARAMS, json.dumps(values, sort_keys=True))
    settings.setValue(KEY_ORIGINS, json.dumps(origins_to_json(dict(choices)), sort_keys=True))


def label_tag(origin: Origin | None) -> tuple[str, str]:
    """The tag beside the label and its tooltip: where the label came from."""
    if origin is Origin.PRESET:
        return "preset", "The preset's name: it changes with the preset"
    if origin is Origin.USER:
        return "yours", "Typed by you: cleared if the tool or the kind of run changes"
    return "", ""
