"""The workbench window: it opens on a library, lists its runs, and closes cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from pytestqt.qtbot import QtBot
from run_kit import isolated_settings, open_window, save_png

from pairbench.domain import RunSpec, RunStatus
from pairbench.library import Library
from pairbench.library.runs import create_run, finish_run
from pairbench.ui.desktop import REPORT_ENV, REPORT_MARKER
from testkit import read_until


def _store_runs(lib: Library) -> None:
    for label, rate in (("same zone", 9.41e9), ("cross zone", 4.2e9)):
        run_id = create_run(lib, RunSpec("local", "iperf3", {"duration": "5"}, label=label))
        finish_run(
            lib, run_id, RunStatus.COMPLETED, summary={"throughput_bps": rate}, complete=True
        )


def test_window_lists_library_runs(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    _store_runs(library)
    with open_window(qtbot, library.path, isolated_settings(tmp_path)) as window:
        model = window.runs_view.model
        qtbot.waitUntil(lambda: model.rowCount() == 2, timeout=10_000)
        cells = {
            model.index(row, col).data()
            for row in range(model.rowCount())
            for col in range(model.columnCount())
        }
        assert {"same zone", "cross zone", "9.41 Gbit/s", "4.20 Gbit/s", "completed"} <= cells
        save_png(window, "main_window_library.png")
        window.close_without_asking()
        assert not window.isVisible()


def test_empty_library_offers_this_computer(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    with open_window(qtbot, library.path, isolated_settings(tmp_path)) as window:
        assert window.runs_view.model.rowCount() == 0
        pair = window.run_panel.current_pair()
        assert pair is not None and pair.description == "This computer"


def test_app_process_starts_and_closes_cleanly_on_sigterm(library_path: Path) -> None:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        # Never the user's own settings file.
        "PAIRBENCH_SETTINGS": str(library_path.parent / "settings.ini"),
        "XDG_CONFIG_HOME": str(library_path.parent / "config"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairbench", "--library", str(library_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, REPORT_ENV: "1"},
    )
    # Up and running: the window is shown (its startup line; SIGTERM is handled from then on).
    said = read_until(proc, REPORT_MARKER, timeout_s=60)
    assert proc.poll() is None, (said, proc.communicate())
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=10)
    err = said + err
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    with Library.open(library_path) as lib:  # the window created a valid library
        assert lib.conn.execute("SELECT name FROM pairs").fetchone()[0] == "local"
