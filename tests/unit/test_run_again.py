"""Repeating a run: the ``pairbench run`` line keeps only the parameters that differ from the
tool's defaults, quotes hostile text once, and a repeat drops the tags of where it ran."""

from __future__ import annotations

import shlex

from pairbench.domain import Run, RunSpec, RunStatus
from pairbench.services.run_again import (
    changed_params,
    command_lines,
    run_again_line,
    run_again_spec,
)
from pairbench.tools import iperf3


def _run(params: dict[str, str], label: str = "", tags: dict[str, str] | None = None) -> Run:
    spec = RunSpec("wan east", "iperf3", params, label, tags or {})
    return Run(
        1,
        spec,
        RunStatus.COMPLETED,
        0.0,
        1.0,
        "iperf 3.12",
        {},
        True,
        {},
        label,
        tags or {},
        "",
        None,
    )


def test_the_line_names_only_what_differs_from_the_defaults() -> None:
    resolved = iperf3.resolve({"streams": "4", "udp": "true", "bitrate": "50M"})
    run = _run(resolved, label="it's a 'test'; rm -rf /")
    line = run_again_line(run)
    argv = shlex.split(line)
    assert argv[:6] == ["pairbench", "run", "--pair", "wan east", "--tool", "iperf3"]
    sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
    assert sets == ["streams=4", "udp=true", "bitrate=50M"]  # the tool's order, no defaults
    assert argv[-2:] == ["--label", "it's a 'test'; rm -rf /"]  # one argument, as given
    assert shlex.split(run_again_line(run, pair="lab2"))[3] == "lab2"
    assert changed_params("nosuchtool", {"a": "1"}) == {"a": "1"}


def test_a_repeat_keeps_its_own_tags_not_those_of_its_campaign_or_import() -> None:
    tags = {"zone": "a", "campaign": "3", "campaign_cell": "1", "imported": "x.json"}
    spec = run_again_spec(_run(iperf3.resolve({"streams": "2"}), "l", tags), pair="lab1")
    assert spec.pair == "lab1" and spec.tags == {"zone": "a"}
    assert dict(spec.params) == {"streams": "2"} and spec.label == "l"


def test_stored_commands_read_as_lines_server_first() -> None:
    record = {
        "main": {
            "host": "c",
            "argv": ["uperf", "-m", "p.xml"],
            "line": "uperf -m p.xml",
            "env": {"nthr": "8 x"},
        },
        "server": {"host": "s", "argv": ["uperf", "-s"], "line": "uperf -s", "env": {}},
    }
    assert command_lines(record) == [
        ("server", "s", "uperf -s"),
        ("client", "c", "nthr='8 x' uperf -m p.xml"),
    ]
