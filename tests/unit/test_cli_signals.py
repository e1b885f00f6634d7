"""Ctrl-C and SIGTERM cancel a long command's work, its clean-up runs, even when the command
was started with SIGINT ignored (as a script's background job is): ``cli/signals.py``."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pairbench.cli.signals import until_cancelled

# A command's shape: work that says "started", waits, and writes "cleaned" in its clean-up.
_CHILD = r"""
import asyncio, sys
from pathlib import Path
from pairbench.cli.signals import cancel_on_signals, until_cancelled

marker = Path(sys.argv[1])

async def work():
    try:
        print("started", flush=True)
        await asyncio.sleep(60)
        return "finished"
    finally:
        await asyncio.sleep(0.05)  # a clean-up that awaits, as removing a work directory does
        marker.write_text("cleaned")

async def main():
    cancel = asyncio.Event()
    cancel_on_signals(cancel)
    return await until_cancelled(work(), cancel)

try:
    print(asyncio.run(main()))
except KeyboardInterrupt:
    print("cancelled")
    sys.exit(130)
"""


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(
    ("sent", "sigint_ignored"),
    [(signal.SIGINT, False), (signal.SIGINT, True), (signal.SIGTERM, False)],
)
def test_a_signal_cancels_the_work_and_its_clean_up_runs(
    tmp_path: Path, sent: signal.Signals, sigint_ignored: bool
) -> None:
    marker = tmp_path / "marker"
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(marker)],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=_ignore_sigint if sigint_ignored else None,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "started"
        child.send_signal(sent)
        out, _ = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert (child.returncode, out.strip()) == (130, "cancelled")
    assert marker.read_text() == "cleaned"


def test_work_that_ends_first_gives_its_result_or_its_error() -> None:
    async def ok() -> str:
        return "done"

    async def broken() -> str:
        raise ValueError("no such host")

    async def both() -> tuple[str, str]:
        cancel = asyncio.Event()
        first = await until_cancelled(ok(), cancel)
        try:
            await until_cancelled(broken(), cancel)
        except ValueError as exc:
            return first, str(exc)
        return first, ""

    assert asyncio.run(both()) == ("done", "no such host")


def test_work_that_finishes_while_being_cancelled_keeps_its_result() -> None:
    """A build that completes during its cancellation installed the tool: say so, not
    "cancelled"."""

    async def stubborn() -> str:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            await asyncio.sleep(0.01)
            return "installed anyway"
        return "finished"

    async def main() -> str:
        cancel = asyncio.Event()
        asyncio.get_running_loop().call_later(0.05, cancel.set)
        return await until_cancelled(stubborn(), cancel)

    assert asyncio.run(main()) == "installed anyway"
