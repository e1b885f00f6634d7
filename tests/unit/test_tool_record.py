"""The registry is the one list of tools: every fact about a tool is in its ``Tool`` record
(version command, provenance reader, presets, whether a run is a bulk transfer), the places
that use them derive from it, and no module outside ``tools/`` keeps a list of tool names."""

from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path

import pytest

from pairbench.engine.preflight import VERSION_COMMANDS
from pairbench.library import Library
from pairbench.services.importing import import_output
from pairbench.services.pair_check import CHECKABLE_TOOLS
from pairbench.tools.provenance import Provenance, provenance
from pairbench.tools.registry import TOOLS
from pairbench.ui.run.presets import BUILTIN_PRESETS

APP = Path(__file__).resolve().parents[2] / "app" / "pairbench"
IPERF2 = Path(__file__).resolve().parents[1] / "data" / "iperf2"
# Literals that name several tools and are not per-tool knowledge of the registry's: what the
# vendor builds need (services/tool_install.py, the lab's VendorTool list), the campaign
# editor's example text, and the probes' tools.
ALLOWED = {
    ("services/tool_install.py", "_NEEDS"),
    ("ui/campaign/tests_editor.py", "DEFAULT_PARAMS"),
    ("ui/campaign/tests_editor.py", "PROBE_TOOLS"),
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_every_tool_record_is_whole(name: str) -> None:
    tool = TOOLS[name]
    assert tool.version_argv and not tool.version_argv[0].startswith("-")
    assert VERSION_COMMANDS[name] == tool.version_argv
    assert name in CHECKABLE_TOOLS
    assert isinstance(provenance(name, ""), Provenance)  # a reader, which never raises
    assert tool.presets, f"{name} has no preset"
    for preset in tool.presets:
        tool.resolve(preset.params)  # a preset runs as it is
        assert preset.source.split(":", 1)[0].endswith(".txt"), preset.source  # a field report
        assert any(p.name == preset.name and p.tool == name for p in BUILTIN_PRESETS)
        if tool.bulk_transfer is not None:
            assert isinstance(tool.bulk_transfer(tool.resolve(preset.params)), bool)


def _tool_lists(path: Path) -> list[str]:
    """The names of the literals in ``path`` (dicts, sets, lists, tuples) that hold two or
    more tool names as keys or items."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            label = target.id if isinstance(target, ast.Name) else ast.unparse(target)
            for literal in ast.walk(node.value):
                items: list[ast.expr | None] = []
                if isinstance(literal, ast.Dict):
                    items = list(literal.keys)
                elif isinstance(literal, ast.Set | ast.List | ast.Tuple):
                    items = list(literal.elts)
                names = {
                    i.value
                    for i in items
                    if isinstance(i, ast.Constant) and isinstance(i.value, str) and i.value in TOOLS
                }
                if len(names) >= 2:
                    found.append(f"{label} {sorted(names)}")
                    break
    return found


def test_no_list_of_tools_is_kept_outside_the_registry() -> None:
    found = []
    for path in sorted(APP.rglob("*.py")):
        relative = path.relative_to(APP).as_posix()
        if relative.startswith("tools/"):
            continue
        found += [
            f"{relative}: {item}"
            for item in _tool_lists(path)
            if (relative, item.split(" ", 1)[0]) not in ALLOWED
        ]
    assert found == []


def test_the_scan_finds_a_hand_kept_list(tmp_path: Path) -> None:
    kept = tmp_path / "kept.py"
    kept.write_text('THROUGHPUT = frozenset({"iperf3", "nuttcp"})\nOK = {"iperf3": 1}\n')
    assert _tool_lists(kept) == ["THROUGHPUT ['iperf3', 'nuttcp']"]


def test_iperf2_output_says_its_addresses_streams_and_start() -> None:
    enhanced = (IPERF2 / "tcp_t2_enhanced.out").read_text(encoding="utf-8")
    found = provenance("iperf2", enhanced)
    started = dt.datetime(2026, 11, 22, 0, 35, 15, tzinfo=dt.UTC).timestamp()  # "-e": "on ..."
    assert found == Provenance(started, "127.0.0.1", "127.0.0.1", {"streams": "1"})
    two = provenance("iperf2", (IPERF2 / "tcp_t3_P2.out").read_text(encoding="utf-8"))
    assert (two.started_at, two.params) == (None, {"streams": "2"})  # no -e: no time
    assert provenance("iperf2", "Client connecting to 127.0.0.1") == Provenance()


def test_an_iperf2_import_has_provenance(library: Library) -> None:
    text = (IPERF2 / "tcp_t3_P2.out").read_text(encoding="utf-8")
    run = import_output(library, "iperf2", text, pair="local", source_name="tcp_t3_P2.out")
    assert dict(run.spec.params) == {"streams": "2"}
    assert run.host_facts["client"]["address"] == "127.0.0.1"
    assert run.host_facts["server"]["address"] == "127.0.0.1"
