"""``EngineBridge.call`` hands a job's callbacks to the GUI thread and lets go of them there:
the engine thread never drops the last reference to what a callback holds (a widget), so
PySide never deletes a window from another thread (its deferred deletion once hung the GUI
thread inside a QObject destructor, mid-test)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from pairbench.library import Library
from pairbench.ui.bridge import EngineBridge

TRIES = 10  # calls a test makes (the old code let some go on the engine thread, not all)


class _Held:
    """What a widget's callback holds: records the thread it is freed on."""

    def __init__(self, freed_on: list[str]) -> None:
        self.freed_on = freed_on

    def __del__(self) -> None:
        self.freed_on.append(threading.current_thread().name)


@pytest.fixture
def bridge(tmp_path: Path) -> Iterator[EngineBridge]:
    path = tmp_path / "library.sqlite"
    Library.open(path).close()
    engine = EngineBridge(path)
    try:
        yield engine
    finally:
        engine.shutdown()


def _call(bridge: EngineBridge, fail: bool, freed_on: list[str], called: list[str]) -> None:
    """A job whose callback that is *not* called holds the object (as an error handler bound
    to a widget does when the job succeeds)."""
    held = _Held(freed_on)

    async def job(_library: Library) -> int:
        if fail:
            raise ValueError("refused")
        return 1

    def on_done(_value: int) -> None:
        called.append("done" if not fail else f"done {held is not None}")

    def on_error(_error: BaseException) -> None:
        called.append("error" if fail else f"error {held is not None}")

    bridge.call(job, on_done, on_error)  # the future dropped at once, as widgets do


@pytest.mark.parametrize("fail", [False, True], ids=["done", "failed"])
def test_callbacks_are_let_go_of_on_the_gui_thread(
    qtbot: QtBot, qapp: QApplication, bridge: EngineBridge, fail: bool
) -> None:
    freed_on: list[str] = []
    called: list[str] = []
    for _ in range(TRIES):
        _call(bridge, fail, freed_on, called)
    qtbot.waitUntil(lambda: len(called) == TRIES, timeout=10_000)
    assert called == ["error" if fail else "done"] * TRIES
    qtbot.waitUntil(lambda: len(freed_on) == TRIES, timeout=10_000)  # freed, wherever it was
    gc.collect()
    assert freed_on == [threading.main_thread().name] * TRIES
