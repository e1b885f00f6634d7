"""Imports the user shapes before anything is stored (one file or many: the tool of each, the
pair, a label and tags), and the Library's bulk edit of several runs' label and tags."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from pairbench.domain import Host, HostPair
from pairbench.library import Library
from pairbench.library.hosts import add_host, add_pair
from pairbench.library.runs import get_run, list_runs
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.import_dialog import ImportDialog
from pairbench.ui.library.library_view import LibraryView

WAIT_MS = 10_000
CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures"
FILES = [
    CAPTURES / "iperf3" / "v321_tcp_P2_json.out",
    CAPTURES / "ping" / "c15_i02_D_O_lossy.out",
    CAPTURES / "fio" / "json_randread_j2.out",
]


def _view(qtbot: QtBot, library_path: Path) -> tuple[LibraryView, EngineBridge]:
    bridge = EngineBridge(library_path)
    view = LibraryView(bridge)
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    qtbot.waitUntil(lambda: view.count_label.text() != "", timeout=WAIT_MS)
    return view, bridge


def _answer(view: LibraryView, fill: Callable[[ImportDialog], None]) -> None:
    def opened(dialog: ImportDialog) -> None:
        QTimer.singleShot(0, lambda: fill(dialog))

    view.files.dialog_opened.connect(opened)


def test_many_files_get_the_pair_label_and_tags_chosen_before_storing(
    qtbot: QtBot, library: Library, library_path: Path
) -> None:
    client, server = Host(name="c", address="10.1.1.1"), Host(name="s", address="10.1.1.2")
    add_host(library, client)
    add_host(library, server)
    add_pair(library, HostPair("oci-ad1", client, server))
    view, bridge = _view(qtbot, library_path)
    try:
        seen: list[str] = []

        def fill(dialog: ImportDialog) -> None:
            qtbot.waitUntil(lambda: dialog.pair_box.count() > 1, timeout=WAIT_MS)
            seen.extend(dialog.table.item(r, 0).text() for r in range(dialog.table.rowCount()))
            dialog.tool_boxes[1].setCurrentIndex(dialog.tool_boxes[1].findData("ping"))
            dialog.pair_box.setCurrentIndex(dialog.pair_box.findData("oci-ad1"))
            dialog.label_edit.setText("colleague's runs")
            dialog.tags_edit.setText("zone=bad value")  # a tag without '=': refused
            ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
            assert not ok.isEnabled() and "Tags" in dialog.error.text()
            dialog.tags_edit.setText('cloud=oci "site=Paris 2"')
            assert ok.isEnabled()
            ok.click()

        _answer(view, fill)
        imported: list[int] = []
        view.imported.connect(lambda run: imported.append(run.id))
        choices = view.files.import_files(FILES)
        assert choices is not None and seen == [f.name for f in FILES]
        qtbot.waitUntil(lambda: len(imported) == len(FILES), timeout=WAIT_MS)
        runs = [get_run(library, run_id) for run_id in imported]
        assert sorted(r.spec.tool for r in runs) == ["fio", "iperf3", "ping"]
        for run in runs:
            assert run.spec.pair == "oci-ad1" and run.label == "colleague's runs"
            assert run.tags["cloud"] == "oci" and run.tags["site"] == "Paris 2"
            assert run.tags["imported"] in {f.name for f in FILES}
    finally:
        bridge.shutdown()


def test_a_cancelled_import_stores_nothing(
    qtbot: QtBot, library: Library, library_path: Path
) -> None:
    view, bridge = _view(qtbot, library_path)
    try:
        _answer(view, lambda dialog: dialog.reject())
        assert view.files.import_files(FILES[:1]) is None
        qtbot.wait(200)
        assert list_runs(library) == []
    finally:
        bridge.shutdown()


def test_several_selected_runs_take_one_label_and_tags(
    qtbot: QtBot, library: Library, library_path: Path
) -> None:
    from pairbench.services.importing import import_output

    ids = [
        import_output(library, "ping", f.read_text(), tags={"zone": "a", "keep": "k"}).id
        for f in (FILES[1], FILES[1], FILES[1])
    ]
    view, bridge = _view(qtbot, library_path)
    try:
        qtbot.waitUntil(lambda: view.model.rowCount() == 3, timeout=WAIT_MS)
        view.table.selectAll()
        editor = view.editor
        assert editor.bulk and editor.label_edit.isEnabled() and not editor.notes_edit.isEnabled()
        assert editor.save_button.text() == "Save to 3 runs"
        editor.label_edit.setText("rerun after tuning")
        editor.tags_edit.setText("zone=b -keep")
        editor.save_button.click()
        qtbot.waitUntil(
            lambda: all(get_run(library, i).label == "rerun after tuning" for i in ids),
            timeout=WAIT_MS,
        )
        for run_id in ids:
            tags = get_run(library, run_id).tags
            assert tags["zone"] == "b" and "keep" not in tags and "imported" in tags
        editor.label_edit.setText("")  # empty: each keeps its label
        editor.tags_edit.setText("-")  # a bad drop: refused, nothing changed
        editor.save_button.click()
        qtbot.waitUntil(lambda: editor.tags_error.isVisible(), timeout=WAIT_MS)
        assert all(get_run(library, i).label == "rerun after tuning" for i in ids)
    finally:
        bridge.shutdown()
