"""A storage suite's request as the window, the CLI and campaigns give it: its fields and
bounds (checked before anything is touched), the block sizes a device's sectors refuse, and
how fio's thread count was chosen."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pairbench.domain.failures import RunError
from pairbench.domain.storage import (
    DEFAULT_DATA_EXCURSION,
    DEFAULT_IODEPTH,
    DEFAULT_MAX_ROUNDS,
    DEFAULT_PRECONDITION_PASSES,
    DEFAULT_ROUND_SECONDS,
    DEFAULT_SLOPE_EXCURSION,
    THREADS_PER_CORE_MAX,
    THREADS_PER_TARGET_MAX,
    SteadyRule,
    StorageTest,
    block_size_bytes,
    stages_of,
)
from pairbench.engine.storage_target import TargetFacts
from pairbench.tools.fio import PathParam

_TARGET = PathParam("target", "path", "", "a device under /dev, or a directory")
MAX_THREADS = 256
MAX_IODEPTH = 4096


@dataclass(frozen=True, slots=True)
class SuiteRequest:
    """What the user asked for (the CLI's options, the window's form).

    ``confirm`` is the device path typed again (a device suite destroys its data);
    ``threads`` None means the host's CPUs, capped as CloudHarmony caps them (at most
    ``threads_per_target_max``, and ``threads_per_core_max`` × the CPUs); ``size`` 0 on a
    device means all of it. ``steady_state`` is the rule that ends a stage; with
    ``cloudharmony`` the data-excursion limit is twice the slope's (its one threshold).
    """

    host: str
    test: StorageTest
    target: str
    size: int = 0
    threads: int | None = None
    iodepth: int = DEFAULT_IODEPTH
    round_seconds: int = DEFAULT_ROUND_SECONDS
    max_rounds: int = DEFAULT_MAX_ROUNDS
    precondition_passes: int = DEFAULT_PRECONDITION_PASSES
    purge: bool = True
    confirm: str = ""
    force: bool = False
    label: str = ""
    data_excursion: float | None = None  # None: the rule's (``data_limit``)
    slope_excursion: float = DEFAULT_SLOPE_EXCURSION
    steady_state: SteadyRule = SteadyRule.PTS
    threads_per_target_max: int = THREADS_PER_TARGET_MAX
    threads_per_core_max: int = THREADS_PER_CORE_MAX
    precondition_once: bool = False

    def data_limit(self) -> float:
        """The data-excursion limit: as given, else the rule's (PTS: 20 % of the mean;
        CloudHarmony: twice the slope excursion, its one threshold doubled)."""
        if self.data_excursion is not None:
            return self.data_excursion
        if self.steady_state is SteadyRule.CLOUDHARMONY:
            return 2 * self.slope_excursion
        return DEFAULT_DATA_EXCURSION


def check_request(req: SuiteRequest) -> None:
    """``ValueError`` with a clear message for a request that cannot run (nothing touched)."""
    target = _TARGET.check(req.target)
    if not target or target == "/":
        raise ValueError("the target is a device (/dev/...) or a directory, e.g. /mnt/nvme")
    if target.startswith("/dev/"):
        if req.confirm != target:
            raise ValueError(
                f"the suite writes to {target} directly and DESTROYS its data (file systems, "
                f"partition table, everything). To go on, confirm with --confirm {target}"
            )
    elif req.size <= 0:
        raise ValueError("a directory target needs the test file's size, e.g. --size 4GiB")
    checks = (
        (req.threads is None or 1 <= req.threads <= MAX_THREADS, f"threads: 1..{MAX_THREADS}"),
        (1 <= req.threads_per_target_max <= MAX_THREADS, f"threads per target: 1..{MAX_THREADS}"),
        (1 <= req.threads_per_core_max <= MAX_THREADS, f"threads per CPU: 1..{MAX_THREADS}"),
        (1 <= req.iodepth <= MAX_IODEPTH, f"iodepth: 1..{MAX_IODEPTH}"),
        (1 <= req.round_seconds <= 3600, "round seconds: 1..3600"),
        (5 <= req.max_rounds <= 1000, "max rounds: 5..1000 (the steady-state window is 5)"),
        (0 <= req.precondition_passes <= 5, "precondition passes: 0..5"),
        (0 < req.data_limit() < 1 and 0 < req.slope_excursion < 1, "excursions: 0..1"),
        (req.size >= 0, "size: positive"),
    )
    for ok, rule in checks:
        if not ok:
            raise ValueError(f"out of range, {rule}")
    if req.steady_state is SteadyRule.CLOUDHARMONY and not math.isclose(
        req.data_limit(), 2 * req.slope_excursion, rel_tol=1e-9
    ):
        raise ValueError(
            "the cloudharmony steady-state rule has one threshold (its ss_verification, "
            "the slope excursion): its data excursion is twice that; give the slope "
            "excursion alone"
        )


def refuse_block_sizes(req: SuiteRequest, target: TargetFacts) -> None:
    """A device whose logical sectors are larger than a job's block size refuses O_DIRECT
    I/O of that size: said before anything is written."""
    smallest = min(block_size_bytes(j.bs) for s in stages_of(req.test) for j in s.jobs)
    if target.direct and smallest < target.logical_sector:
        raise RunError(
            f"{req.target} has {target.logical_sector}-byte logical sectors: it refuses the "
            f"{req.test.value} test's {smallest}-byte direct I/O"
        )


def threads_fact(req: SuiteRequest, threads: int, cpus: int) -> str:
    """fio's numjobs and how it was chosen (CloudHarmony's caps)."""
    asked = f"{req.threads} asked" if req.threads is not None else f"default: {cpus} CPUs"
    caps = f"at most {req.threads_per_target_max} per target and {req.threads_per_core_max} per CPU"
    return f"{threads} ({asked}; {caps})"
