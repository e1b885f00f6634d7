"""Ctrl-C and SIGTERM during a long command (run, probe, storage, campaign, tool install):
cancel, not die."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def cancel_on_signals(cancel: asyncio.Event) -> None:
    """From now on, Ctrl-C (SIGINT) and SIGTERM set ``cancel`` (on the running loop) instead
    of stopping the command: the run ends and is stored as cancelled.

    Also when the command was started with SIGINT ignored (a background job of a script:
    POSIX shells start those so): a signal sent to it on purpose still cancels."""
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, cancel.set)
        loop.add_signal_handler(signal.SIGTERM, cancel.set)


async def until_cancelled(work: Coroutine[Any, Any, T], cancel: asyncio.Event) -> T:
    """Await ``work`` until ``cancel`` is set (``cancel_on_signals``); then cancel it (its
    clean-up runs to its end) and raise ``KeyboardInterrupt``. Work that finished anyway
    while being cancelled returns its result."""
    task = asyncio.ensure_future(work)
    stop = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    if task.done():
        return task.result()
    task.cancel()
    try:
        return await task
    except asyncio.CancelledError:
        raise KeyboardInterrupt from None
