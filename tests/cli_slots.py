"""Many short Pairbench runs on ``local``, a few at once: each in a forked worker (Pairbench
already imported) with a folder of its own, holding its library and its host-lock folder, as
separate users of this computer would have (one lock folder refuses a second run on ``local``
as busy). For differential tests that run many files, each compared with the tool's own
output of the same run, which runs beside it do not change."""

from __future__ import annotations

import io
import multiprocessing
import os
from collections.abc import Callable, Sequence
from multiprocessing.queues import Queue
from pathlib import Path
from typing import TypeVar

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli

T = TypeVar("T")
R = TypeVar("R")

_SLOT: list[Path] = []  # this worker's folder, once taken


def cli(library: Path, *argv: str) -> tuple[int, str, str]:
    """``pairbench ARGV`` in-process on ``library``: its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library)})
    return run_cli(list(argv), env), out.getvalue(), err.getvalue()


def library_of(slot: Path) -> Path:
    """The library of a worker's folder."""
    return slot / "lib.sqlite"


def _take_slot(slots: Queue[Path]) -> None:
    _SLOT.append(slots.get())
    os.environ["PAIRBENCH_LOCK_DIR"] = str(_SLOT[0] / "locks")


def _in_slot(work: Callable[[Path, T], R], task: T) -> tuple[Path, R]:
    return _SLOT[0], work(_SLOT[0], task)


def run_in_slots(
    folder: Path, work: Callable[[Path, T], R], tasks: Sequence[T], workers: int
) -> list[tuple[Path, R]]:
    """``work(slot, task)`` for each task, ``workers`` at once, in order; each result with its
    worker's folder (``slot0`` ... under ``folder``: its library is ``library_of(slot)``).
    ``work`` is a module-level function (the workers find it by name); what it raises is
    raised here. Tasks go out one at a time, so a worker free takes the next."""
    context = multiprocessing.get_context("fork")
    slots: Queue[Path] = context.Queue()
    for number in range(workers):
        slot = folder / f"slot{number}"
        slot.mkdir()
        slots.put(slot)
    # A pool's exit terminates its workers (a test that fails or times out leaves none: the
    # watchdog of each tool they started ends it and removes its work directory).
    with context.Pool(workers, initializer=_take_slot, initargs=(slots,)) as pool:
        return pool.starmap(_in_slot, [(work, task) for task in tasks], chunksize=1)
