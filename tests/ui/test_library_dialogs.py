"""The Library's dialogs as a user meets them (issue 28, point 10): the import dialog names the
tool each file reads as, whole, and one banner names every file imported; export dialogs open
in the documents or the last export folder, never the working directory; a success banner
goes by itself; Help opens on how to use the window."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QDialogButtonBox, QFileDialog
from pytestqt.qtbot import QtBot

from pairbench.library import Library
from pairbench.services.import_guess import guess_tool
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.compare.export_row import ExportRow
from pairbench.ui.file_places import EXPORTS, documents, start_folder
from pairbench.ui.library import message_bar
from pairbench.ui.library.import_dialog import ImportDialog
from pairbench.ui.library.library_view import LibraryView
from testkit import REPO

WAIT_MS = 15_000
CAPTURES = REPO / "tests" / "data" / "captures"
FILES = [
    CAPTURES / "iperf3" / "v321_tcp_P2_json.out",
    CAPTURES / "ping" / "c15_i02_D_O_lossy.out",
    CAPTURES / "fio" / "json_randread_j2.out",
]


@pytest.fixture
def view(qtbot: QtBot, library: Library, library_path: Path) -> Iterator[LibraryView]:
    bridge = EngineBridge(library_path)
    shown = LibraryView(bridge)
    qtbot.addWidget(shown)
    shown.resize(1280, 720)
    shown.show()
    qtbot.waitUntil(lambda: shown.count_label.text() != "", timeout=WAIT_MS)
    try:
        yield shown
    finally:
        bridge.shutdown()


def test_the_import_dialog_names_each_guess_whole_and_one_banner_names_every_file(
    qtbot: QtBot, view: LibraryView, tmp_path: Path
) -> None:
    empty = tmp_path / "empty.out"
    empty.write_text("")
    files = [*FILES, empty]
    seen: dict[str, tuple[str, int, int]] = {}

    def fill(dialog: ImportDialog) -> None:
        def read() -> None:
            for path, box in zip(files, dialog.tool_boxes, strict=True):
                text = box.itemText(0)
                wanted = box.fontMetrics().horizontalAdvance(text)
                seen[path.name] = (text, wanted, box.width())
            dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()

        dialog.guessed.connect(lambda: QTimer.singleShot(0, read))

    view.files.dialog_opened.connect(fill)
    with qtbot.waitSignal(view.files.batchDone, timeout=WAIT_MS) as batch:
        view.files.import_files(files)
    # Each box says the tool the file's own content reads as (the import's guess), whole.
    for path in FILES:
        text, wanted, width = seen[path.name]
        assert text == f"{guess_tool(path.read_text(), path.name).tool} (guessed)"
        assert wanted < width, (text, wanted, width)  # never "guess from t…"
    assert seen["empty.out"][0] == "cannot be read"
    # One banner for the four files: each imported run, and the one that could not be.
    outcomes = batch.args[0]
    assert [path.name for path, _ in outcomes] == [path.name for path in files]
    banner = view.message.text()
    assert banner.startswith("Imported 3 of 4 files:")
    for path, outcome in outcomes[:3]:
        assert f"Imported {path.name} as {outcome.spec.tool} run {outcome.id}" in banner
    assert "Cannot import empty.out" in banner and view.message.kind == "info"


def test_a_success_banner_goes_by_itself_an_error_stays(
    qtbot: QtBot, view: LibraryView, monkeypatch: pytest.MonkeyPatch
) -> None:
    bar = view.message
    assert bar.hide_timer.interval() == message_bar.OK_SECONDS * 1000 > 5_000
    bar.hide_timer.setInterval(50)  # the same timer, shortened for the test
    bar.show_message("ok", "Imported x.out as iperf3 run 1: completed.")
    qtbot.waitUntil(lambda: bar.isHidden(), timeout=WAIT_MS)
    bar.show_message("error", "Cannot import y.out: the file is empty")
    qtbot.wait(200)
    assert bar.isVisible() and "y.out" in bar.text()


def _asked(monkeypatch: pytest.MonkeyPatch, answer: Path | None) -> list[str]:
    """Record where each save dialog opens; answer with ``answer`` (or cancel)."""
    opened: list[str] = []

    def save(_parent: object, _title: str, start: str, _filters: str) -> tuple[str, str]:
        opened.append(start)
        return (str(answer) if answer else "", "")

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save)
    return opened


def test_export_dialogs_open_in_the_documents_then_the_last_export_folder(
    qtbot: QtBot,
    library: Library,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from compare_runs import two_shapes
    from pairbench.services.compare import compare_inputs
    from pairbench.ui.compare.view import CompareView

    work = tmp_path / "clone"  # where Pairbench was started from
    work.mkdir()
    monkeypatch.chdir(work)
    home = tmp_path / "home"
    (home / "Documents").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))  # no user-dirs.dirs there
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    first = documents()
    assert first == home / "Documents"  # not the working directory
    a, b = two_shapes(library, seconds=5)
    compare = CompareView(compare_inputs(library, a + b), settings=settings)
    qtbot.addWidget(compare)
    row: ExportRow = compare.exports
    chosen = tmp_path / "reports" / "cmp.svg"
    chosen.parent.mkdir()
    opened = _asked(monkeypatch, chosen)
    row.export_chart_button.click()
    assert Path(opened[0]) == first / "comparison.png"
    assert chosen.is_file() and "cmp.svg" in row.wrote.text()
    # The next export (chart or table, this view or another) opens where the last went.
    assert start_folder(settings, EXPORTS) == chosen.parent
    opened = _asked(monkeypatch, None)
    row.export_table_button.click()
    assert Path(opened[0]) == chosen.parent / "comparison.md"
    again = ExportRow(row._spec, row._state, settings=settings)  # a new compare window
    assert Path(again.start_path("x.png")) == chosen.parent / "x.png"
