"""A run's detail shows the exact commands it ran and the line that runs it again: "Copy as
command" puts that line on the clipboard, "Run again…" hands its spec to the window."""

from __future__ import annotations

import shlex
from pathlib import Path

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from pairbench.domain import RunSpec, RunStatus
from pairbench.library import Library
from pairbench.library.analyses import store_analysis
from pairbench.library.runs import create_run, finish_run
from pairbench.tools import iperf3
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.run_detail import RunDetailView

CLIENT = ["iperf3", "-c", "10.0.0.2", "-p", "5201", "-t", "5", "-P", "4"]
SERVER = ["iperf3", "-s", "-1", "-p", "5201", "--forceflush"]


def test_the_commands_tab_copy_and_run_again(
    qtbot: QtBot, library: Library, library_path: Path
) -> None:
    params = iperf3.resolve({"duration": "5", "streams": "4"})
    run_id = create_run(library, RunSpec("local", "iperf3", params, "east west", {"zone": "a"}))
    finish_run(library, run_id, RunStatus.COMPLETED, summary={"throughput_bps": 1e9}, complete=True)
    store_analysis(
        library,
        run_id,
        "commands",
        {
            "tool_version": "iperf 3.12",
            "main": {"host": "c", "argv": CLIENT, "line": shlex.join(CLIENT), "env": {}},
            "server": {"host": "s", "argv": SERVER, "line": shlex.join(SERVER), "env": {}},
            "files": {},
        },
    )
    bridge = EngineBridge(library_path)
    try:
        view = RunDetailView(bridge)
        qtbot.addWidget(view)
        with qtbot.waitSignal(view.loaded, timeout=10_000):
            view.show_run(run_id)
        text = view.commands_text.toPlainText()
        assert f"# server on s (iperf 3.12)\n{shlex.join(SERVER)}" in text
        assert f"# client on c (iperf 3.12)\n{shlex.join(CLIENT)}" in text
        assert view.copy_button.isEnabled()
        view.copy_button.click()
        copied = QApplication.clipboard().text()
        assert shlex.split(copied) == [
            "pairbench", "run", "--pair", "local", "--tool", "iperf3",
            "--set", "duration=5", "--set", "streams=4", "--label", "east west",
        ]  # fmt: skip
        assert text.startswith(f"# run it again\n{copied}")
        with qtbot.waitSignal(view.run_again, timeout=2_000) as again:
            view.again_button.click()
        spec = again.args[0]
        assert isinstance(spec, RunSpec) and spec.tool == "iperf3" and spec.pair == "local"
        assert dict(spec.params) == {"duration": "5", "streams": "4"}
        assert dict(spec.tags) == {"zone": "a"}
    finally:
        bridge.shutdown()
