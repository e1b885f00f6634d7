"""The room a storage suite leaves for its library: a test file in a directory of this
computer on the library's own file system must not fill the disk the suite's runs are
stored on."""

from __future__ import annotations

import os
from collections.abc import Mapping

from pairbench.domain import HostPair
from pairbench.domain.failures import RunError
from pairbench.domain.storage import SuiteParams, stages_of
from pairbench.domain.units import format_quantity
from pairbench.library import Library
from pairbench.library.disk import FULL_BELOW

# What one second of a job adds to the library: fio's json+ report, printed every second and
# at the job's end, is stored whole (7 to 13 KiB measured on throughput jobs).
REPORT_BYTES = 16 * 1024


def library_room(params: SuiteParams) -> int:
    """The most a suite's runs add to the library (every stage to ``max_rounds``, a report
    per second of each job and two per job more, a preconditioning pass counted as a job),
    plus the room below which a library counts as full."""
    jobs = sum(len(stage.jobs) for stage in stages_of(params.test)) * params.max_rounds
    jobs += params.precondition_passes
    reports = params.estimated_seconds(params.max_rounds) + 2 * jobs
    return int(reports) * REPORT_BYTES + FULL_BELOW


def keep_library_room(
    lib: Library, pair: HostPair, params: SuiteParams, facts: Mapping[str, str], needed: int
) -> None:
    """``RunError`` (nothing written yet) when a directory target on this computer shares the
    library's file system and lacks room for ``needed`` bytes of test file plus the
    library's share (``library_room``); ``facts`` are the target's, with its free bytes."""
    free_text = facts.get("free_bytes", "")
    if not pair.server.is_local or params.on_device or not free_text.isdigit():
        return
    try:
        shared = os.stat(params.target).st_dev == os.stat(lib.path.resolve().parent).st_dev
    except OSError:
        return
    keep = library_room(params)
    free = int(free_text)
    if shared and needed + keep > free:
        test_file = f"the test file needs {format_quantity('B', needed)} and " if needed else ""
        raise RunError(
            f"{params.target} has {format_quantity('B', free)} free: {test_file}the library "
            f"{lib.path}, on the same file system, keeps {format_quantity('B', keep)} for the "
            "suite's runs (fio's report of every second, up to the last round); free space, "
            "give a smaller --size or fewer --max-rounds, test another directory, or keep the "
            "library elsewhere (--library)"
        )
