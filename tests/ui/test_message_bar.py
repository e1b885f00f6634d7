"""The message bar above a view: a green "done" message goes by itself; errors and notices
stay until closed or replaced."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from pairbench.ui.library.message_bar import OK_SECONDS, MessageBar


def test_ok_goes_by_itself_errors_and_notices_stay(qtbot: QtBot) -> None:
    bar = MessageBar()
    qtbot.addWidget(bar)
    assert bar.hide_timer.interval() == OK_SECONDS * 1000
    bar.hide_timer.setInterval(50)  # the same timer, shortened for the test

    bar.show_message("ok", "Deleted run 3.")
    assert bar.text() == "Deleted run 3."
    qtbot.waitUntil(lambda: bar.isHidden(), timeout=5_000)
    assert bar.text() == ""

    bar.show_message("ok", "Deleted run 4.")
    bar.show_message("error", "Not deleted: the library is read-only")  # replaces it
    assert not bar.hide_timer.isActive()
    bar.show_message("info", "Importing a.json…")
    assert not bar.hide_timer.isActive()
    assert bar.text() == "Importing a.json…"
