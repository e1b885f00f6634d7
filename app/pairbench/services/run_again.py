"""Repeating a stored run: the ``pairbench run`` line that runs it again (its parameters
that differ from the tool's defaults), and its spec on the same or another pair."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from pairbench.domain import Run, RunSpec
from pairbench.engine.command_record import COMMANDS_KIND as COMMANDS_KIND
from pairbench.library import Library
from pairbench.library.analyses import get_analysis
from pairbench.tools.registry import TOOLS

# Tags a run gets from where it ran, not from what it asked for: not carried to a repeat.
_PLACE_TAGS = ("campaign", "suite", "imported", "probe", "phase")


def changed_params(tool: str, params: Mapping[str, str]) -> dict[str, str]:
    """The parameters that differ from the tool's defaults (all of them for an unknown
    tool), in the tool's order."""
    known = TOOLS.get(tool)
    if known is None:
        return dict(params)
    defaults = {name: p.default for name, p in known.params.items()}
    ordered = [n for n in defaults if n in params] + [n for n in params if n not in defaults]
    return {n: params[n] for n in ordered if params[n] != defaults.get(n)}


def run_again_line(run: Run, pair: str | None = None) -> str:
    """The shell line that runs ``run`` again (on ``pair``, else its own), quoted once."""
    argv = ["pairbench", "run", "--pair", pair or run.spec.pair, "--tool", run.spec.tool]
    for name, value in changed_params(run.spec.tool, run.spec.params).items():
        argv += ["--set", f"{name}={value}"]
    if run.label:
        argv += ["--label", run.label]
    return shlex.join(argv)


def run_again_spec(run: Run, pair: str | None = None) -> RunSpec:
    """The spec of a repeat of ``run``: its tool and parameters, label and own tags (not the
    tags of the campaign, suite or import it came from), on ``pair`` or its own."""
    tags = {k: v for k, v in run.spec.tags.items() if not any(k.startswith(t) for t in _PLACE_TAGS)}
    return RunSpec(
        pair or run.spec.pair,
        run.spec.tool,
        changed_params(run.spec.tool, run.spec.params),
        run.label,
        tags,
    )


def command_lines(record: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(role, host, shell line) of a run's stored ``commands`` record: the server first."""
    out: list[tuple[str, str, str]] = []
    for role in ("server", "main"):
        one = record.get(role)
        if isinstance(one, Mapping):
            env = " ".join(f"{k}={shlex.quote(str(v))}" for k, v in dict(one["env"]).items())
            line = f"{env} {one['line']}".strip()
            out.append(("server" if role == "server" else "client", str(one["host"]), line))
    return out


def recorded_command_lines(lib: Library, run_id: int) -> list[tuple[str, str, str]]:
    """(role, host, shell line) of what run ``run_id`` ran, the server first; [] before the
    run stored them (they are stored as its client starts) or for an imported run."""
    record = get_analysis(lib, run_id, COMMANDS_KIND)
    return command_lines(record) if record is not None else []


def asked_text(spec: RunSpec) -> str:
    """A run's tool and the parameters it was asked for beyond the defaults, in the tool's
    order ("iperf3 streams=4 duration=20"; "iperf3 (defaults)")."""
    changed = changed_params(spec.tool, spec.params)
    words = " ".join(f"{k}={shlex.quote(v)}" for k, v in changed.items()) or "(defaults)"
    return f"{spec.tool} {words}"


def commands_text(run: Run, record: dict[str, Any] | None) -> str:
    """The Commands tab: the line that runs it again, then what ran on each host."""
    parts = ["# run it again", run_again_line(run)]
    if record is None:
        parts += ["", "# the commands were not recorded (an imported run, or an older one)"]
        return "\n".join(parts)
    version = record.get("tool_version") or run.tool_version
    for role, host, line in command_lines(record):
        parts += ["", f"# {role} on {host} ({version})", line]
    for name, content in dict(record.get("files") or {}).items():
        parts += ["", f"# file {name}, uploaded to the work directory", str(content)]
    return "\n".join(parts)
