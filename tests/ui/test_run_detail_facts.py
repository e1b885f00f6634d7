"""A run's detail lists its host facts under "Host facts" (a host per branch, each fact a
line); "none recorded" only when the run has none."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from pairbench.domain import RunSpec, RunStatus
from pairbench.library import Library
from pairbench.library.runs import create_run, finish_run, set_run_facts
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.run_detail import RunDetailView

FACTS = {"client": {"kernel": "6.1.0-27", "mtu": "9001"}, "server": {"cpus": "16"}}


def _facts_item(view: RunDetailView) -> tuple[str, dict[str, dict[str, str]]]:
    """The "Host facts" line's own text and what it lists, host by host."""
    tree = view.info_tree
    [top] = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
             if tree.topLevelItem(i).text(0) == "Host facts"]  # fmt: skip
    listed = {}
    for i in range(top.childCount()):
        host = top.child(i)
        listed[host.text(0)] = {host.child(j).text(0): host.child(j).text(1)
                                for j in range(host.childCount())}  # fmt: skip
    return top.text(1), listed


def test_host_facts_are_listed_and_none_recorded_only_without_them(
    qtbot: QtBot, library: Library, library_path: Path
) -> None:
    with_facts = create_run(library, RunSpec("local", "iperf3", {}))
    set_run_facts(library, with_facts, host_facts=FACTS)
    without = create_run(library, RunSpec("local", "iperf3", {}))
    for run_id in (with_facts, without):
        finish_run(library, run_id, RunStatus.COMPLETED, summary={}, complete=True)
    bridge = EngineBridge(library_path)
    try:
        view = RunDetailView(bridge)
        qtbot.addWidget(view)
        with qtbot.waitSignal(view.loaded, timeout=10_000):
            view.show_run(with_facts)
        assert _facts_item(view) == ("", FACTS)
        with qtbot.waitSignal(view.loaded, timeout=10_000):
            view.show_run(without)
        assert _facts_item(view) == ("none recorded", {})
    finally:
        bridge.shutdown()
