"""The window on a library an older or hostile program wrote (issue 26): a host named `local`
is named on opening with the command that renames it; a run whose stored start is no date
lists and shows as "(invalid time)"; a FIFO dropped on the window is refused at once and a
UTF-16 output (PowerShell) is imported."""

from __future__ import annotations

import codecs
import os
import sqlite3
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot
from run_kit import isolated_settings, open_window

from pairbench.library import Library
from pairbench.library.runs import list_runs
from pairbench.services.importing import import_output
from pairbench.ui.application import _show_library_warnings
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.import_dialog import ImportDialog
from pairbench.ui.library.library_view import LibraryView
from testkit import FIXTURES

WAIT_MS = 10_000
INVALID = "(invalid time)"


def test_the_window_names_a_reserved_host_and_lists_odd_times(
    qtbot: QtBot, library_path: Path, tmp_path: Path
) -> None:
    text = (FIXTURES / "iperf3" / "tcp_t5_json.out").read_text(encoding="utf-8")
    with Library.open(library_path) as lib:
        import_output(lib, "iperf3", text, label="good")
        import_output(lib, "iperf3", text, label="odd")
    conn = sqlite3.connect(library_path)
    with conn:  # what an older Pairbench stored
        conn.execute("UPDATE runs SET started_at = 1.7953e12, ended_at = 1e20 WHERE id = 2")
        conn.execute(
            "INSERT INTO hosts (name, address, port, auth) VALUES ('local', '192.0.2.55', 22, "
            "'agent')"
        )
    conn.close()
    with Library.open(library_path) as lib:
        warnings = list(lib.warnings)
    with open_window(qtbot, library_path, isolated_settings(tmp_path)) as window:
        box = _show_library_warnings(window, warnings)
        assert box is not None and box.isVisible()
        assert "host 'local' (192.0.2.55)" in box.text()
        assert "pairbench hosts rename local NEW-NAME" in box.text()
        model = window.runs_view.model
        qtbot.waitUntil(lambda: model.rowCount() == 2, timeout=WAIT_MS)
        cells = {
            str(model.index(row, col).data())
            for row in range(model.rowCount())
            for col in range(model.columnCount())
        }
        assert INVALID in cells and "2026-11-21 22:27:48" in cells
        box.close()


def test_a_dropped_fifo_is_refused_and_utf16_is_imported(
    qtbot: QtBot, library: Library, library_path: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "iperf3-output.txt"
    os.mkfifo(fifo)
    utf16 = tmp_path / "powershell.txt"
    original = (FIXTURES / "iperf3" / "tcp_t5.out").read_text(encoding="utf-8")
    utf16.write_bytes(codecs.BOM_UTF16_LE + original.encode("utf-16-le"))
    bridge = EngineBridge(library_path)
    view = LibraryView(bridge)
    qtbot.addWidget(view)
    view.show()
    try:
        view.files.dialog_opened.connect(
            lambda dialog: QTimer.singleShot(0, lambda: _accept(dialog))
        )
        failed: list[str] = []
        imported: list[int] = []
        view.files.failed.connect(lambda _path, text: failed.append(text))
        view.imported.connect(lambda run: imported.append(run.id))
        assert view.files.import_files([fifo, utf16]) is not None  # as a drop does
        qtbot.waitUntil(lambda: bool(failed) and bool(imported), timeout=WAIT_MS)
        assert failed == [
            f"Cannot import {fifo.name}: the output file {fifo} is a named pipe (FIFO), "
            "not a regular file"
        ]
        runs = list_runs(library)
        assert [r.spec.tool for r in runs] == ["iperf3"] and runs[0].summary_complete
        assert runs[0].summary["throughput_bps"] > 0
    finally:
        bridge.shutdown()


def _accept(dialog: ImportDialog) -> None:
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
