"""Ctrl-C and SIGTERM during a long command (run, probe, storage, campaign): cancel, not die."""

from __future__ import annotations

import asyncio
import contextlib
import signal


def cancel_on_signals(cancel: asyncio.Event) -> None:
    """From now on, Ctrl-C (SIGINT) and SIGTERM set ``cancel`` (on the running loop) instead
    of stopping the command: the run ends and is stored as cancelled."""
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, cancel.set)
        loop.add_signal_handler(signal.SIGTERM, cancel.set)
