"""Flent's data files in the window: the import dialog (drops and File › Import) tells a
``.flent.gz`` by itself and stores it as a run of tool flent; a file without data is refused
in one line and nothing is stored."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from pairbench.library import Library
from pairbench.library.runs import count_runs, get_run
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.import_dialog import ImportDialog
from pairbench.ui.library.library_view import LibraryView

WAIT_MS = 10_000
DATA = Path(__file__).resolve().parents[1] / "data" / "flent"


def _view(qtbot: QtBot, library_path: Path) -> tuple[LibraryView, EngineBridge]:
    bridge = EngineBridge(library_path)
    view = LibraryView(bridge)
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    qtbot.waitUntil(lambda: view.count_label.text() != "", timeout=WAIT_MS)
    return view, bridge


def _accept(view: LibraryView, seen: list[list[str]]) -> None:
    """Accept the import dialog once it shows its guesses, keeping what the box offered."""

    def opened(dialog: ImportDialog) -> None:
        def fill() -> None:
            box = dialog.tool_boxes[0]
            seen.append([box.itemText(i) for i in range(box.count())])
            assert box.currentIndex() == 0 and box.currentData() is None  # the guess
            dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()

        dialog.guessed.connect(lambda: QTimer.singleShot(0, fill))

    view.files.dialog_opened.connect(opened)


def test_a_flent_file_is_told_and_imported_and_an_empty_one_refused(
    qtbot: QtBot, library: Library, library_path: Path
) -> None:
    view, bridge = _view(qtbot, library_path)
    try:
        seen: list[list[str]] = []
        _accept(view, seen)
        imported: list[int] = []
        failed: list[str] = []
        view.files.imported.connect(lambda _path, run: imported.append(run.id))
        view.files.failed.connect(lambda _path, message: failed.append(message))
        assert view.files.import_files([DATA / "tcp_2up_iperf-loopback.flent.gz"]) is not None
        qtbot.waitUntil(lambda: len(imported) == 1, timeout=WAIT_MS)
        run = get_run(library, imported[0])
        assert run.spec.tool == "flent" and run.spec.params["test"] == "tcp_2up_iperf"
        assert "flent" in seen[0]  # the dialog offers it as a tool too
        assert seen[0][0] == "flent (guessed)"  # and says the file reads as Flent's

        assert view.files.import_files([DATA / "udp_flood-empty.flent.gz"]) is not None
        qtbot.waitUntil(lambda: len(failed) == 1, timeout=WAIT_MS)
        assert "holds no data" in failed[0] and "\n" not in failed[0]
        assert "Traceback" not in failed[0]
        assert count_runs(library) == 1
    finally:
        bridge.shutdown()
