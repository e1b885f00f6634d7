"""Where each value of the run form came from, and what a preset, a tool or a mode change
does to them (plain data, Qt-free).

A value beyond the tool's default came from a preset or was typed by the user. Choosing a
preset clears what the previous preset set and sets its own values (and the kind of run it
implies: iperf3's ``udp`` false for a TCP preset); what the user typed is kept where it
still applies. A parameter that changes the kind of run (``Tool.tied``) clears, when it
changes, the parameters whose meaning it changes, whoever set them: a datagram length typed
for UDP is no TCP buffer length.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from pairbench.tools.base import Tool


class Origin(enum.Enum):
    """Who set a value (or the label)."""

    PRESET = "preset"
    USER = "user"


@dataclass(frozen=True, slots=True)
class ToolChoices:
    """One tool's values that differ from its defaults, and the origin of each."""

    values: Mapping[str, str] = field(default_factory=dict)
    origins: Mapping[str, Origin] = field(default_factory=dict)

    def origin(self, name: str) -> Origin | None:
        return self.origins.get(name) if name in self.values else None

    def typed(self) -> dict[str, str]:
        """The values the user typed."""
        return {k: v for k, v in self.values.items() if self.origin(k) is Origin.USER}


def _defaults(tool: Tool) -> dict[str, str]:
    return {name: param.default for name, param in tool.params.items()}


def _choices(tool: Tool, values: Mapping[str, str], origins: Mapping[str, Origin]) -> ToolChoices:
    """Only values beyond the defaults, each with its origin (USER unless said)."""
    defaults = _defaults(tool)
    kept = {k: v for k, v in values.items() if k in defaults and v != defaults[k]}
    return ToolChoices(kept, {k: origins.get(k, Origin.USER) for k in kept})


def without_preset(choices: ToolChoices) -> ToolChoices:
    """The user's values only: what a preset set is cleared (back to the defaults)."""
    typed = choices.typed()
    return ToolChoices(typed, dict.fromkeys(typed, Origin.USER))


def with_preset(choices: ToolChoices, tool: Tool, preset: Mapping[str, str]) -> ToolChoices:
    """``choices`` after choosing a preset of ``tool``: the earlier preset's values cleared,
    the preset's set, the kind of run it implies (its tied parameters, at their default
    when it names none), the user's values kept unless the preset sets them or the kind of
    run changed under them."""
    defaults = _defaults(tool)
    values = dict(without_preset(choices).values)
    origins = dict.fromkeys(values, Origin.USER)
    for mode, dependents in tool.tied.items():
        before = values.get(mode, defaults[mode])
        after = preset.get(mode, defaults[mode])
        values.pop(mode, None)  # the preset decides the kind of run
        if before != after:
            for name in dependents:
                values.pop(name, None)
    for name, value in preset.items():
        if name in defaults:
            values[name] = value
            origins[name] = Origin.PRESET
    return _choices(tool, values, origins)


def after_edit(choices: ToolChoices, tool: Tool, name: str, value: str) -> tuple[ToolChoices, bool]:
    """``choices`` once the user set ``name`` to ``value``; True when that changed the kind
    of run (its tied parameters are then cleared, whoever set them)."""
    defaults = _defaults(tool)
    before = choices.values.get(name, defaults.get(name, ""))
    values = dict(choices.values)
    origins = dict(choices.origins)
    values[name] = value
    origins[name] = Origin.USER
    changed_kind = name in tool.tied and value != before
    if changed_kind:
        for dependent in tool.tied[name]:
            values.pop(dependent, None)
    return _choices(tool, values, origins), changed_kind


def origins_to_json(by_tool: Mapping[str, ToolChoices]) -> dict[str, dict[str, str]]:
    """Tool → {parameter: "preset"} (values not listed are the user's)."""
    return {
        tool: {k: o.value for k, o in choices.origins.items() if o is Origin.PRESET}
        for tool, choices in by_tool.items()
    }


def origins_from_json(data: object, tool: str) -> dict[str, Origin]:
    """The origins saved for ``tool`` by ``origins_to_json`` (malformed data: none)."""
    if not isinstance(data, dict) or not isinstance(data.get(tool), dict):
        return {}
    return {str(k): Origin.PRESET for k, v in data[tool].items() if v == Origin.PRESET.value}
