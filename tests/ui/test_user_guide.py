"""Help ▸ User guide: the guide's pages (docs/guide) rendered in the app, links between them
followed there, and F1 on each screen of the window opens the page that explains it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QUrl
from PySide6.QtWidgets import QApplication, QTextBrowser
from pytestqt.qtbot import QtBot
from run_kit import isolated_settings, open_window

from pairbench.domain import LOCAL_PAIR, RunSpec
from pairbench.library import Library
from pairbench.services.importing import import_output
from pairbench.ui.bridge import RunSignals
from pairbench.ui.guide_pages import anchor_of, guide_dir
from pairbench.ui.run.controller import RunController
from pairbench.ui.user_guide import MISSING, UserGuide
from testkit import REPO

GUIDE = REPO / "docs" / "guide"
CAPTURE = REPO / "tests" / "data" / "captures" / "iperf3" / "v321_tcp_P2_json.out"
# Each screen → the page (and the heading on it) that explains it, as the guide is written.
EXPECTED = {
    "Library": ("library.md", "The Library tab"),
    "Hosts": ("hosts-and-pairs.md", "The Hosts tab"),
    "Storage suite": ("storage-suite.md", "The storage suite in the window"),
    "Campaigns": ("campaigns.md", "The Campaigns tab"),
}


def _text(guide: UserGuide) -> str:
    browser = guide.findChild(QTextBrowser, "guide")
    assert browser is not None
    return browser.toPlainText()


def test_the_guide_shows_its_pages_and_follows_links(qtbot: QtBot) -> None:
    assert guide_dir() == GUIDE  # the checkout's guide (the bundle ships it as a resource)
    opened: list[QUrl] = []
    guide = UserGuide(GUIDE, opener=opened.append)
    qtbot.addWidget(guide)
    guide.show()
    # It opens on the index; every page is listed, by its title, in the index's order.
    assert guide.page == "index.md" and _text(guide).startswith("The Pairbench user guide")
    titles = [guide.contents.item(i).text() for i in range(guide.contents.count())]
    assert titles[0] == "The Pairbench user guide"
    assert {"Comparing runs", "Burst credits", "Command line", "The workbench window"} <= set(
        titles
    )
    assert len(titles) == len(list(GUIDE.glob("*.md")))
    # Choosing a page in the list shows it.
    guide.contents.setCurrentRow(titles.index("Comparing runs"))
    assert guide.page == "compare.md" and _text(guide).startswith("Comparing runs")
    # The window's page: its screenshot fits the page (nothing scrolls sideways).
    assert guide.show_page("window.md")
    browser = guide.findChild(QTextBrowser, "guide")
    assert browser is not None
    QApplication.processEvents()
    assert browser.horizontalScrollBar().maximum() == 0
    assert "glibc" not in _text(guide)  # the build notes stay in the README
    # A link to a heading of another page shows it there, scrolled to that heading.
    guide.follow(QUrl("storage-suite.md#the-columns-cloudharmonys-then-pairbenchs-own"))
    assert guide.page == "storage-suite.md"
    assert guide.anchor == "the-columns-cloudharmonys-then-pairbenchs-own"
    assert browser.verticalScrollBar().value() > 0
    guide.follow(QUrl("#the-storage-suite-in-the-window"))  # a heading of the same page
    assert guide.anchor == "the-storage-suite-in-the-window"
    assert not opened
    # Anything beyond the guide goes to the opener: a file of the repository, a web page.
    guide.follow(QUrl("../ARCHITECTURE.md"))
    guide.follow(QUrl("https://flent.org/"))
    assert [Path(opened[0].toLocalFile()) for _ in opened[:1]] == [REPO / "docs/ARCHITECTURE.md"]
    assert opened[1].toString() == "https://flent.org/"
    assert guide.page == "storage-suite.md"


def test_a_copy_without_the_guide_says_so(qtbot: QtBot) -> None:
    guide = UserGuide(None)
    qtbot.addWidget(guide)
    assert _text(guide) == MISSING and guide.current_title() == ""
    assert not guide.show_page("window.md")


def test_f1_opens_the_page_of_the_screen_in_view(
    qtbot: QtBot, library_path: Path, tmp_path: Path
) -> None:
    with Library.open(library_path) as lib:
        for label in ("a", "b"):
            import_output(lib, "iperf3", CAPTURE.read_text(), pair="local", label=label)
    settings: QSettings = isolated_settings(tmp_path)
    with open_window(qtbot, library_path, settings) as window:

        def press_f1(widget: object) -> UserGuide:
            qtbot.keyClick(widget, Qt.Key.Key_F1)  # type: ignore[arg-type]
            guide = window.actions_.guide
            assert guide is not None and guide.isVisible()
            return guide

        for title, (page, heading) in EXPECTED.items():
            window.tabs.setCurrentWidget(window.fixed_tabs[title])
            window.fixed_tabs[title].setFocus()
            guide = press_f1(window)
            assert (guide.page, guide.anchor) == (page, anchor_of(heading)), title
            assert (GUIDE / page).is_file()
            assert heading in _text(guide)
            guide.hide()
        # In the run panel: the window's page, which explains it.
        window.run_panel.run_form.tool_combo.setFocus()
        assert press_f1(window).page == "window.md"
        guide.hide()
        # A run's tab: how to read its live plots.
        signals = RunSignals()
        spec = RunSpec(LOCAL_PAIR.name, "iperf3", {"duration": "10"})
        window.run_tabs.track(RunController(signals, LOCAL_PAIR, spec))
        signals.started.emit(7, spec, 10.0)
        qtbot.waitUntil(lambda: len(window.run_tabs.tabs) == 1, timeout=5_000)
        window.run_tabs.tabs[0].setFocus()
        guide = press_f1(window)
        assert guide.page == "live-plots.md"
        assert _text(guide).startswith("Reading the live plots")
        guide.hide()
        # A compare window (a window of its own): comparing runs.
        window.tabs.setCurrentWidget(window.runs_view)
        view = window.runs_view
        qtbot.waitUntil(lambda: view.model.rowCount() == 2, timeout=10_000)
        view.table.selectAll()
        view.compare_button.click()
        qtbot.waitUntil(lambda: len(window.compare_windows) == 1, timeout=10_000)
        compare = window.compare_windows[0]
        qtbot.waitExposed(compare)
        compare.activateWindow()
        guide = press_f1(compare)
        assert guide.page == "compare.md"
        compare.close()
