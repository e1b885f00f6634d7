"""Passwords and key passphrases asked in a dialog on the GUI thread for the engine thread.

The engine calls ``SecretPrompt`` methods synchronously on its own thread. The question is
carried to the GUI thread by a queued signal, answered there with a ``QInputDialog``, and the
engine thread waits for the answer on a ``threading.Event`` for at most ``timeout_s`` (no
answer counts as declined), so a window that is closing can never deadlock with it. While a
question is open the engine's other work waits too (the prompt protocol is synchronous).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot
from PySide6.QtWidgets import QApplication, QInputDialog, QLineEdit

from pairbench.domain import Host
from pairbench.services.hosts import keyring_status

DEFAULT_TIMEOUT_S = 180.0


@dataclass
class _Question:
    title: str
    label: str
    answer: str | None = None
    abandoned: bool = False
    done: threading.Event = field(default_factory=threading.Event)


class GuiSecretPrompt(QObject):
    """A ``SecretPrompt`` for the workbench (create it on the GUI thread)."""

    _asked = Signal(object)

    def __init__(self, parent: QObject | None = None, *, timeout_s: float = DEFAULT_TIMEOUT_S):
        super().__init__(parent)
        self.timeout_s = timeout_s
        self._pending: list[_Question] = []
        self._lock = threading.Lock()
        self._closed = False
        self._asked.connect(self._answer, Qt.ConnectionType.QueuedConnection)

    # -- the SecretPrompt protocol (engine thread) -------------------------------------------

    def passphrase(self, key_path: str) -> str | None:
        return self._request("SSH key passphrase", f"Passphrase of the SSH key {key_path}:")

    def password(self, host: Host, reason: str) -> str | None:
        _available, keyring_note = keyring_status()
        who = f"{host.user or 'root'}@{host.address}"
        if host.port != 22:
            who += f":{host.port}"
        return self._request(
            f"Password for {host.name}",
            f"Password of {who} ({reason}).\nNote: {keyring_note}.",
        )

    # -- plumbing --------------------------------------------------------------------------

    def _request(self, title: str, label: str) -> str | None:
        if QThread.currentThread() is self.thread():  # called on the GUI thread itself
            return self._dialog(title, label)
        question = _Question(title, label)
        with self._lock:
            if self._closed:
                return None
            self._pending.append(question)
        self._asked.emit(question)
        answered = question.done.wait(self.timeout_s)
        with self._lock:
            question.abandoned = not answered
            if question in self._pending:
                self._pending.remove(question)
        return question.answer if answered else None

    @Slot(object)
    def _answer(self, question: _Question) -> None:
        if question.abandoned or question.done.is_set():
            return
        question.answer = self._dialog(question.title, question.label)
        question.done.set()

    def _dialog(self, title: str, label: str) -> str | None:
        parent = QApplication.activeWindow()
        text, ok = QInputDialog.getText(parent, title, label, QLineEdit.EchoMode.Password)
        return text if ok else None

    def cancel_pending(self) -> None:
        """Decline every open question and any later one (the window is closing)."""
        with self._lock:
            self._closed = True
            pending = list(self._pending)
        for question in pending:
            question.done.set()
