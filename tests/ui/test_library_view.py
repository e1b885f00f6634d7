"""The run library view: find, filter, edit, open, delete, import runs (real bridge and SQLite)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QDate, QMimeData, QPoint, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QInputDialog, QLineEdit, QMainWindow, QMessageBox
from pytestqt.qtbot import QtBot

from pairbench.domain import RunSpec, RunStatus
from pairbench.library import Library, LibraryError
from pairbench.library.runs import create_run, finish_run, get_run, list_runs
from pairbench.services.importing import import_output
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.library_view import LibraryView
from pairbench.ui.library.runs_model import LABEL, RESULT, STATUS, TOOL
from testkit import REPO, require

WAIT_MS = 10_000
DAY = 86_400.0


@pytest.fixture
def bridge(library: Library, library_path: Path) -> Iterator[EngineBridge]:
    """The real engine thread on the test's library file."""
    engine = EngineBridge(library_path)
    try:
        yield engine
    finally:
        engine.shutdown()


def _store(
    lib: Library,
    *,
    tool: str = "iperf3",
    label: str = "",
    status: RunStatus = RunStatus.COMPLETED,
    summary: dict[str, float] | None = None,
    tags: dict[str, str] | None = None,
    age_days: float = 0.0,
    error: str | None = None,
) -> int:
    started = time.time() - age_days * DAY
    run_id = create_run(
        lib,
        RunSpec("local", tool, {"duration": "5"}, label=label, tags=tags or {}),
        started_at=started,
    )
    finish_run(
        lib,
        run_id,
        status,
        summary=summary or {},
        complete=status is RunStatus.COMPLETED,
        error=error,
        ended_at=started + 5,
    )
    return run_id


@pytest.fixture
def stored(library: Library) -> dict[str, int]:
    """Five runs of several tools, statuses, tags and ages."""
    return {
        "same": _store(
            library, label="same zone", summary={"throughput_bps": 9.41e9}, tags={"zone": "a"}
        ),
        "cross": _store(
            library,
            label="cross zone",
            summary={"throughput_bps": 4.2e9, "lost_percent": 0.5},
            tags={"zone": "b"},
            age_days=3,
        ),
        "old": _store(library, label="last month", summary={"throughput_bps": 1e9}, age_days=40),
        "ping": _store(library, tool="ping", label="rtt", summary={"rtt_avg_ms": 0.048}),
        "failed": _store(
            library,
            tool="fio",
            label="disk",
            status=RunStatus.FAILED,
            error="fio: refused a mounted device",
            age_days=1,
        ),
    }


@pytest.fixture
def view(qtbot: QtBot, bridge: EngineBridge) -> LibraryView:
    widget = LibraryView(bridge)
    qtbot.addWidget(widget)
    widget.resize(1280, 720)
    widget.show()
    qtbot.waitUntil(lambda: widget.count_label.text() != "", timeout=WAIT_MS)
    return widget


def _column(view: LibraryView, column: int) -> list[str]:
    proxy = view.model
    return [str(proxy.index(row, column).data()) for row in range(proxy.rowCount())]


def _labels(view: LibraryView) -> set[str]:
    return set(_column(view, LABEL))


def _reload(qtbot: QtBot, view: LibraryView, change) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        change()


def test_lists_every_run_with_its_key_figures(
    qtbot: QtBot, stored: dict[str, int], view: LibraryView
) -> None:
    assert view.model.rowCount() == 5
    assert view.count_label.text() == "5 runs"
    assert _column(view, LABEL)[0] == "rtt"  # newest first
    assert _column(view, LABEL)[-1] == "last month"
    results = dict(zip(_column(view, LABEL), _column(view, RESULT), strict=True))
    assert results["same zone"] == "9.41 Gbit/s"
    assert results["cross zone"] == "4.20 Gbit/s, 0.500 % loss"
    assert results["rtt"] == "0.048 ms"  # ping prints it so (to the µs)
    statuses = dict(zip(_column(view, LABEL), _column(view, STATUS), strict=True))
    assert statuses["disk"] == "failed"
    row = _column(view, LABEL).index("disk")
    assert view.model.index(row, STATUS).data(Qt.ItemDataRole.ToolTipRole) == (
        "fio: refused a mounted device"
    )
    view.select_run(stored["cross"])
    out = REPO / "test-output"
    out.mkdir(exist_ok=True)
    assert view.grab().save(str(out / "library_view.png"))


def test_filters_by_tool_status_search_tag_and_dates(
    qtbot: QtBot, stored: dict[str, int], view: LibraryView
) -> None:
    tools = [view.tool_combo.itemData(i) for i in range(view.tool_combo.count())]
    assert {"iperf3", "ping", "fio"} <= set(tools)
    _reload(
        qtbot, view, lambda: view.tool_combo.setCurrentIndex(view.tool_combo.findData("iperf3"))
    )
    assert _labels(view) == {"same zone", "cross zone", "last month"}
    assert view.count_label.text() == "3 runs match the filters"
    _reload(qtbot, view, lambda: view.tool_combo.setCurrentIndex(0))

    _reload(
        qtbot,
        view,
        lambda: view.status_combo.setCurrentIndex(view.status_combo.findData("failed")),
    )
    assert _labels(view) == {"disk"}
    _reload(qtbot, view, lambda: view.status_combo.setCurrentIndex(0))

    _reload(qtbot, view, lambda: qtbot.keyClicks(view.search_edit, "zone"))  # debounced
    assert _labels(view) == {"same zone", "cross zone"}
    _reload(qtbot, view, lambda: qtbot.keyClicks(view.tag_edit, "zone=b"))
    assert _labels(view) == {"cross zone"}
    _reload(qtbot, view, view.search_edit.clear)
    _reload(qtbot, view, view.tag_edit.clear)
    assert len(_labels(view)) == 5

    # Last week only: the 40-day-old run drops out.
    week_ago = (datetime.now() - timedelta(days=7)).date()
    view.from_date.setDate(QDate(week_ago.year, week_ago.month, week_ago.day))
    _reload(qtbot, view, lambda: view.date_check.setChecked(True))
    assert _labels(view) == {"same zone", "cross zone", "rtt", "disk"}
    _reload(qtbot, view, lambda: view.date_check.setChecked(False))

    _reload(qtbot, view, lambda: qtbot.keyClicks(view.search_edit, "no such run"))
    assert view.model.rowCount() == 0
    assert view.count_label.text() == "No run matches the filters."


def test_edit_a_label_in_the_table_and_it_is_stored(
    qtbot: QtBot, stored: dict[str, int], view: LibraryView, library: Library
) -> None:
    run_id = stored["cross"]
    assert view.select_run(run_id)
    view.table.setFocus()
    index = view.table.currentIndex().siblingAtColumn(LABEL)
    view.table.setCurrentIndex(index)
    qtbot.keyClick(view.table, Qt.Key.Key_F2)
    editor = QApplication.focusWidget()
    assert isinstance(editor, QLineEdit) and editor.text() == "cross zone"
    editor.selectAll()
    qtbot.keyClicks(editor, "cross zone, MTU 9001")
    with qtbot.waitSignal(view.saved, timeout=WAIT_MS):
        qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert get_run(library, run_id).label == "cross zone, MTU 9001"
    assert "cross zone, MTU 9001" in _labels(view)
    assert view.label_edit.text() == "cross zone, MTU 9001"


def test_the_side_editor_saves_label_tags_and_notes(
    qtbot: QtBot, stored: dict[str, int], view: LibraryView, library: Library
) -> None:
    run_id = stored["same"]
    view.select_run(run_id)
    assert view.save_button.isEnabled()
    assert view.tags_edit.text() == "zone=a"
    view.tags_edit.setText("zone=a bad tag")
    qtbot.mouseClick(view.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.tags_error.isVisibleTo(view), timeout=WAIT_MS)
    assert "KEY=VALUE" in view.tags_error.text()
    assert dict(get_run(library, run_id).tags) == {"zone": "a"}  # nothing stored

    view.label_edit.setText("same zone, kernel 6.1")
    view.tags_edit.setText('zone=a kernel="6.1 lts"')
    view.notes_edit.setPlainText("Before the sysctl change.\nSecond line.")
    with qtbot.waitSignal(view.saved, timeout=WAIT_MS):
        qtbot.mouseClick(view.save_button, Qt.MouseButton.LeftButton)
    run = get_run(library, run_id)
    assert run.label == "same zone, kernel 6.1"
    assert dict(run.tags) == {"zone": "a", "kernel": "6.1 lts"}
    assert run.notes == "Before the sysctl change.\nSecond line."
    assert not view.tags_error.isVisibleTo(view)


def test_open_a_run_shows_summary_plots_and_raw_output(
    qtbot: QtBot, view: LibraryView, library: Library, fixtures_dir: Path
) -> None:
    text = (fixtures_dir / "iperf3" / "tcp_t5.out").read_text()
    run = import_output(library, "iperf3", text, label="five seconds", source_name="tcp_t5.out")
    _reload(qtbot, view, view.refresh)
    assert view.select_run(run.id)
    view.table.setFocus()
    with qtbot.waitSignal(view.detail.loaded, timeout=WAIT_MS):
        qtbot.keyClick(view.table, Qt.Key.Key_Return)  # Enter opens, as does a double-click
    detail = view.detail
    assert view.stack.currentWidget() is detail
    assert detail.title.text() == f"Run {run.id} · iperf3 on local · five seconds"
    summary = detail.summary_texts()
    assert summary["Throughput"] == "13.8 Gbit/s"
    assert "Retransmits" in summary
    assert "iperf Done." in detail.raw_text.toPlainText()
    assert "[  5]   0.00-1.00   sec  1.65 GBytes" in detail.raw_text.toPlainText()
    metrics = [plot.metric for plot in detail.plots]
    assert metrics[0] == "throughput_bps" and "cwnd_bytes" in metrics
    curve = detail.plots[0].curves["5"]
    assert len(curve.xData) == 5 and curve.yData[0] == pytest.approx(14.2, rel=0.01)
    assert detail.plots[0].getPlotItem().getAxis("left").labelText == "Gbit/s"  # drawn in it

    assert "5.0 s of samples" in detail.subtitle.text()  # an import has no wall-clock span
    qtbot.wait(50)  # let the layout show the plots it was given
    out = REPO / "test-output"
    out.mkdir(exist_ok=True)
    assert view.grab().save(str(out / "library_run_detail.png"))
    detail.tabs.setCurrentIndex(1)
    assert view.grab().save(str(out / "library_run_detail_raw.png"))

    qtbot.mouseClick(detail.back_button, Qt.MouseButton.LeftButton)
    assert view.stack.currentIndex() == 0


def test_delete_asks_first_then_removes_the_run(
    qtbot: QtBot,
    stored: dict[str, int],
    view: LibraryView,
    library: Library,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    questions: list[str] = []
    answer = QMessageBox.StandardButton.No

    def ask(*args: object, **kwargs: object) -> QMessageBox.StandardButton:
        questions.append(str(args[2]))
        return answer

    monkeypatch.setattr(QMessageBox, "question", ask)
    run_id = stored["old"]
    view.select_run(run_id)
    qtbot.mouseClick(view.delete_button, Qt.MouseButton.LeftButton)
    assert questions and f"run {run_id} (iperf3 on local, last month)" in questions[0]
    assert get_run(library, run_id)  # "No" keeps it

    answer = QMessageBox.StandardButton.Yes
    with qtbot.waitSignal(view.deleted, timeout=WAIT_MS) as blocker:
        qtbot.mouseClick(view.delete_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [[run_id]]
    with pytest.raises(LibraryError):
        get_run(library, run_id)
    qtbot.waitUntil(lambda: view.model.row_of(run_id) is None, timeout=WAIT_MS)
    assert view.model.rowCount() == 4


def test_import_file_is_the_drag_and_drop_path(
    qtbot: QtBot, view: LibraryView, library: Library, fixtures_dir: Path
) -> None:
    assert "No runs yet" in view.count_label.text()
    fixture = fixtures_dir / "iperf3" / "tcp_t5.out"
    with qtbot.waitSignal(view.imported, timeout=WAIT_MS) as blocker:
        view.import_file(fixture)  # no tool given: guessed from the content
    run = blocker.args[0]
    assert (run.spec.tool, run.status) == ("iperf3", RunStatus.COMPLETED)
    assert run.summary["throughput_bps"] == pytest.approx(13.8e9)
    assert f"Imported tcp_t5.out as iperf3 run {run.id}: completed." in view.message.text()
    qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=WAIT_MS)
    assert view.current_run_id() == run.id
    assert _column(view, TOOL) == ["iperf3"]
    assert [r.id for r in list_runs(library)] == [run.id]


def _accept_import_dialogs(view: LibraryView) -> None:
    """Answer the import dialog a drop opens with its defaults (guess, pair from the output)."""
    view.files.dialog_opened.connect(lambda dialog: QTimer.singleShot(0, dialog.accept))


def test_a_synthesized_drop_imports_on_the_view_and_on_a_window(
    qtbot: QtBot, view: LibraryView, library: Library, fixtures_dir: Path
) -> None:
    _accept_import_dialogs(view)
    fixture = fixtures_dir / "ping" / "c20_s1400_i02.out"
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(fixture))])
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(
        QPoint(20, 20), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(view, enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        QPointF(20, 20), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    with qtbot.waitSignal(view.imported, timeout=WAIT_MS) as blocker:
        QApplication.sendEvent(view, drop)
    assert drop.isAccepted()
    assert blocker.args[0].spec.tool == "ping"

    # The main window takes drops for the view too (one line in its constructor).
    window = QMainWindow()
    qtbot.addWidget(window)
    view.accept_drops_on(window)
    assert window.acceptDrops()
    mime2 = QMimeData()
    mime2.setUrls([QUrl.fromLocalFile(str(fixtures_dir / "iperf3" / "udp_b50M_l1400.out"))])
    enter2 = QDragEnterEvent(  # Qt delivers a drop only after an accepted drag enter
        QPoint(5, 5), actions, mime2, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(window, enter2)
    assert enter2.isAccepted()
    drop2 = QDropEvent(
        QPointF(5, 5), actions, mime2, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    with qtbot.waitSignal(view.imported, timeout=WAIT_MS) as blocker:
        QApplication.sendEvent(window, drop2)
    assert blocker.args[0].spec.tool == "iperf3"
    assert len(list_runs(library)) == 2

    # Something that is not a file is not taken.
    text_only = QMimeData()
    text_only.setText("hello")
    refused = QDragEnterEvent(
        QPoint(5, 5), actions, text_only, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    refused.ignore()
    QApplication.sendEvent(view, refused)
    assert not refused.isAccepted()


def test_when_the_tool_cannot_be_told_the_user_picks_it(
    qtbot: QtBot,
    view: LibraryView,
    library: Library,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fixtures_dir: Path,
) -> None:
    offered: list[list[str]] = []
    choice: tuple[str, bool] = ("", False)

    def get_item(*args: object, **kwargs: object) -> tuple[str, bool]:
        offered.append(list(args[3]))  # type: ignore[call-overload]
        return choice

    monkeypatch.setattr(QInputDialog, "getItem", get_item)
    unknown = tmp_path / "mystery.log"
    unknown.write_text("nothing any tool would print\n")
    with qtbot.waitSignal(view.importFailed, timeout=WAIT_MS):
        view.import_file(unknown)
    assert offered and "iperf3" in offered[0]
    assert "cancelled" in view.message.text()
    assert list_runs(library) == []

    # Output both iperf3's and iperf2's parsers read equally well: the user says which.
    require((fixtures_dir / "iperf3" / "server_oneoff_tcp.out").is_file(), "fixture missing")
    ambiguous = tmp_path / "server.txt"
    ambiguous.write_text((fixtures_dir / "iperf3" / "server_oneoff_tcp.out").read_text())
    choice = ("iperf3", True)
    offered.clear()
    with qtbot.waitSignal(view.imported, timeout=WAIT_MS) as blocker:
        view.import_file(ambiguous)
    if offered:  # asked only while another parser reads it as well as iperf3's does
        assert offered[0][0] in ("iperf3", "iperf2")
    assert blocker.args[0].spec.tool == "iperf3"

    # A tool that cannot read the file: refused plainly, nothing stored.
    with qtbot.waitSignal(view.importFailed, timeout=WAIT_MS) as failed:
        view.import_file(unknown, tool="fio")
    assert failed.args[0].startswith("Cannot import mystery.log")
    assert view.message.kind == "error"
    assert "Traceback" not in view.message.text()
    assert len(list_runs(library)) == 1


def test_refresh_is_the_slot_a_finished_run_calls(
    qtbot: QtBot, view: LibraryView, library: Library
) -> None:
    assert view.model.rowCount() == 0
    run_id = _store(library, label="from the run tab", summary={"throughput_bps": 2e9})
    _reload(qtbot, view, view.refresh)
    assert _labels(view) == {"from the run tab"}
    assert view.model.row_of(run_id) == 0


def test_compare_button_opens_a_compare_view_of_the_selected_runs(
    qtbot: QtBot, tmp_path: Path
) -> None:
    from PySide6.QtCore import QSettings

    from pairbench.services.importing import import_output
    from pairbench.ui.compare.view import CompareView
    from pairbench.ui.main_window import MainWindow
    from parser_checks import fixture_text

    library_path = tmp_path / "lib.sqlite"
    with Library.open(library_path) as lib:
        for name in ("tcp_t5.out", "tcp_t5_P2.out"):
            import_output(lib, "iperf3", fixture_text("iperf3", name), label=name)
    bridge = EngineBridge(library_path)
    library = Library.open(library_path)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(bridge, library, settings)
    window.ask_before_closing = False
    qtbot.addWidget(window)
    try:
        view = window.runs_view
        qtbot.waitUntil(lambda: view.model.rowCount() == 2, timeout=10_000)
        view.table.selectAll()
        view.compare_button.click()
        # The runs load on the engine thread; the window opens once they are in.
        qtbot.waitUntil(lambda: len(window.compare_windows) == 1, timeout=10_000)
        compare = window.compare_windows[0]
        assert isinstance(compare, CompareView)
        compare.close()
    finally:
        window.close()
        bridge.shutdown()
        library.close()
