"""The GUI secret prompt: asked on the GUI thread for the engine thread, with a bounded wait."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from PySide6.QtWidgets import QInputDialog
from pytestqt.qtbot import QtBot

from pairbench.domain import AuthMethod, Host
from pairbench.ui.secret_prompt import GuiSecretPrompt

HOST = Host("lab-server", "10.213.0.2", user="bench", auth=AuthMethod.PASSWORD)


def _ask_from_thread(call: Any) -> dict[str, Any]:
    result: dict[str, Any] = {}

    def work() -> None:
        result["thread"] = threading.current_thread().name
        result["answer"] = call()

    thread = threading.Thread(target=work, name="engine")
    thread.start()
    result["join"] = thread
    return result


def test_a_password_asked_from_the_engine_thread_is_answered_on_the_gui_thread(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, str, str]] = []

    def get_text(_parent: Any, title: str, label: str, *_args: Any) -> tuple[str, bool]:
        asked.append((threading.current_thread().name, title, label))
        return "s3cret", True

    monkeypatch.setattr(QInputDialog, "getText", staticmethod(get_text))
    prompt = GuiSecretPrompt(timeout_s=10)
    result = _ask_from_thread(lambda: prompt.password(HOST, "no stored password"))
    qtbot.waitUntil(lambda: "answer" in result, timeout=5000)
    assert result["answer"] == "s3cret"
    assert asked[0][0] == threading.main_thread().name  # the dialog ran on the GUI thread
    assert "bench@10.213.0.2" in asked[0][2]


def test_declining_or_not_answering_gives_none(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *_a: ("", False)))
    prompt = GuiSecretPrompt(timeout_s=10)
    result = _ask_from_thread(lambda: prompt.passphrase("/root/.ssh/id_ed25519"))
    qtbot.waitUntil(lambda: "answer" in result, timeout=5000)
    assert result["answer"] is None

    # Nobody answers (the GUI thread is busy): the engine thread stops waiting.
    slow = GuiSecretPrompt(timeout_s=0.2)
    result = _ask_from_thread(lambda: slow.passphrase("/root/.ssh/id_ed25519"))
    result["join"].join(5)  # the GUI thread does not process events meanwhile
    assert result["answer"] is None


def test_closing_declines_open_questions(qtbot: QtBot) -> None:
    prompt = GuiSecretPrompt(timeout_s=30)
    result = _ask_from_thread(lambda: prompt.password(HOST, "no stored password"))
    time.sleep(0.1)  # the question is queued; no events processed, so no dialog yet
    prompt.cancel_pending()
    result["join"].join(5)
    assert result["answer"] is None
    qtbot.wait(50)  # the queued question arrives answered already: no dialog is shown
