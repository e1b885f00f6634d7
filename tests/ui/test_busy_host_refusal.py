"""A run refused because another Pairbench (of another library) holds the host: the window
names that program, its library file, its pid and start time, never a bare "run N" that
would read as a run of this library."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot
from run_kit import click_start, isolated_settings, last_controller, open_window, set_field

from busy_host import local_run_holding
from pairbench.ui.run.controller import RunPhase
from testkit import require_program


@pytest.mark.timeout(120)
def test_the_refusal_names_the_holding_program_library_pid_and_start(
    qtbot: QtBot, library_path: Path, tmp_path: Path
) -> None:
    require_program("ping")
    require_program("iperf3")
    holder_folder = tmp_path / "other"
    holder_folder.mkdir()
    with (
        local_run_holding(holder_folder) as pid,
        open_window(qtbot, library_path, isolated_settings(tmp_path)) as window,
    ):
        panel = window.run_panel
        set_field(panel, "duration", "1")
        click_start(qtbot, panel)
        controller = last_controller(panel)
        qtbot.waitUntil(lambda: controller.phase is RunPhase.FAILED, timeout=30_000)
        said = panel.error_line.text()
        assert "busy" in said
        assert "`pairbench run`" in said  # the holder's command, not its --library value
        assert f"pid {pid}" in said
        assert f"library {(holder_folder / 'holder.sqlite').resolve()}" in said
        assert re.search(r"started \d\d:\d\d:\d\d", said)
        # Its run number comes only with its library ("its run 1 there"), never bare.
        assert not re.search(r"\(run \d+|; run \d+|, run \d+", said), said
