"""The storage suite as the window and the CLI use it: check a request, start a suite on a
host, resume one, list and show suites with their verdicts, tables and CloudHarmony-named
columns."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pairbench.analysis.steady_state import SteadyParams
from pairbench.analysis.storage_columns import Column, suite_columns
from pairbench.analysis.storage_suite import SuiteProgress, suite_progress
from pairbench.analysis.storage_tables import SuiteTable, suite_tables
from pairbench.domain import LOCAL_PAIR, HostPair
from pairbench.domain.failures import RunError
from pairbench.domain.storage import (
    THREADS_PER_CORE_MAX,
    THREADS_PER_TARGET_MAX,
    JobKey,
    SteadyRule,
    StorageTest,
    SuiteParams,
    SuiteStatus,
    block_size_bytes,
    stages_of,
    suite_threads,
)
from pairbench.engine.execute import Prepared, prepare
from pairbench.engine.observer import RunObserver
from pairbench.engine.storage_suite import (
    Purge,
    SuiteObserver,
    completed_jobs,
    job_spec,
    run_suite,
    test_file,
)
from pairbench.engine.storage_suite import SuiteOutcome as SuiteOutcome
from pairbench.engine.storage_target import (
    TargetFacts,
    cpu_count,
    inspect_device,
    inspect_directory,
    purge_device,
    remove_file,
)
from pairbench.engine.transports import Connector
from pairbench.library import Library, LibraryError
from pairbench.library import hosts as stored_hosts
from pairbench.library.suites import (
    StoredJob,
    StoredSuite,
    claim_suite,
    create_suite,
    get_suite,
    list_suites,
    set_suite_facts,
    suite_jobs,
)
from pairbench.remote.base import Transport
from pairbench.remote.secrets import SecretPrompt
from pairbench.tools.fio import PathParam

KIND = "storage"
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
    iodepth: int = 64
    round_seconds: int = 60
    max_rounds: int = 25
    precondition_passes: int = 2
    purge: bool = True
    confirm: str = ""
    force: bool = False
    label: str = ""
    data_excursion: float | None = None  # None: the rule's (``data_limit``)
    slope_excursion: float = 0.10
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
        return SteadyParams().data_excursion


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


def suite_pair(lib: Library, host: str) -> HostPair:
    """The suite's host as a pair whose client and server are that host (``local``: this
    computer); ``LibraryError`` for an unknown host."""
    if host == LOCAL_PAIR.name:
        return LOCAL_PAIR
    found = stored_hosts.get_host(lib, host)
    return HostPair(name=found.name, client=found, server=found)


async def inspect_target(
    transport: Transport, params: SuiteParams, *, force: bool, existing: str = ""
) -> TargetFacts:
    """The target checked (nothing written but a 4 KiB O_DIRECT probe in a directory)."""
    if params.on_device:
        return await inspect_device(transport, params.target, force=force)
    return await inspect_directory(transport, params.target, params.size, existing_file=existing)


async def prepared_fio(connector: Connector, pair: HostPair, params: SuiteParams) -> Prepared:
    """fio probed on the host (and a device checked unmounted) for the suite's jobs."""
    return await prepare(pair, job_spec(pair.name, 0, params, JobKey(0, 1, 0)), connector)


async def start_suite(
    lib: Library,
    req: SuiteRequest,
    *,
    observer: SuiteObserver | None = None,
    run_observer: RunObserver | None = None,
    cancel: asyncio.Event | None = None,
    secrets: SecretPrompt | None = None,
    accept_new_host_key: bool = False,
    on_created: Callable[[int, SuiteParams], None] | None = None,
    tags: Mapping[str, str] | None = None,
) -> SuiteOutcome:
    """Check the target, store the suite (with ``tags``: its place in a campaign), purge,
    and run it (``run_suite``). Raises ``RunError`` (nothing stored, nothing written) when
    the host or the target refuses."""
    check_request(req)
    watch = _Watch(observer, run_observer, cancel)
    pair = suite_pair(lib, req.host)
    connector = Connector(lib, secrets=secrets, accept_new_host_key=accept_new_host_key)
    try:
        transport = await connector.transport(pair.server)
        plan = SuiteParams(req.test, req.target, req.size)
        target = await inspect_target(transport, plan, force=req.force)
        size = min(req.size, target.size_bytes) if req.size else target.size_bytes
        _refuse_block_sizes(req, target)
        cpus = await cpu_count(transport)
        threads = suite_threads(
            req.threads, cpus, req.threads_per_target_max, req.threads_per_core_max
        )
        params = SuiteParams(
            test=req.test,
            target=req.target,
            size=size,
            threads=threads,
            iodepth=req.iodepth,
            round_seconds=req.round_seconds,
            max_rounds=req.max_rounds,
            precondition_passes=req.precondition_passes,
            purge=req.purge,
            data_excursion=req.data_limit(),
            slope_excursion=req.slope_excursion,
            direct=target.direct,
            steady_state=req.steady_state,
            prep_each_stage=True,
            precondition_once=req.precondition_once,
        )
        prepared = await prepared_fio(connector, pair, params)
        if params.purge and params.on_device:  # refused (nothing stored) when nothing works
            purged = await purge_device(transport, params.target, params.size)
        elif params.purge:
            purged = "a new test file (purge applies to devices)"
        else:
            purged = "not purged (--no-purge)"
        suite_id = create_suite(lib, KIND, req.host, params.to_json(), label=req.label, tags=tags)
        facts = dict(target.facts)
        facts["fio"] = prepared.tool_version
        facts["threads"] = _threads_fact(req, threads, cpus)
        facts["purge"] = purged
        set_suite_facts(lib, suite_id, facts)
        if on_created is not None:
            on_created(suite_id, params)
        return await _run_and_tidy(lib, transport, suite_id, params, prepared, watch)
    finally:
        await connector.close()


def _threads_fact(req: SuiteRequest, threads: int, cpus: int) -> str:
    """fio's numjobs and how it was chosen (CloudHarmony's caps)."""
    asked = f"{req.threads} asked" if req.threads is not None else f"default: {cpus} CPUs"
    caps = f"at most {req.threads_per_target_max} per target and {req.threads_per_core_max} per CPU"
    return f"{threads} ({asked}; {caps})"


def purger(transport: Transport, params: SuiteParams, suite_id: int) -> Purge:
    """How the suite's target is purged again before a stage prepared again: a device as at
    the start (``purge_device``), a directory by a new test file."""

    async def purge() -> str:
        if params.on_device:
            return await purge_device(transport, params.target, params.size)
        return f"a new test file ({await remove_file(transport, test_file(params, suite_id))})"

    return purge


def _refuse_block_sizes(req: SuiteRequest, target: TargetFacts) -> None:
    """A device whose logical sectors are larger than a job's block size refuses O_DIRECT
    I/O of that size: said before anything is written."""
    smallest = min(block_size_bytes(j.bs) for s in stages_of(req.test) for j in s.jobs)
    if target.direct and smallest < target.logical_sector:
        raise RunError(
            f"{req.target} has {target.logical_sector}-byte logical sectors: it refuses the "
            f"{req.test.value} test's {smallest}-byte direct I/O"
        )


@dataclass(frozen=True, slots=True)
class _Watch:
    """Who hears a suite, and its cancel event."""

    observer: SuiteObserver | None
    run_observer: RunObserver | None
    cancel: asyncio.Event | None


async def _run_and_tidy(
    lib: Library,
    transport: Transport,
    suite_id: int,
    params: SuiteParams,
    prepared: Prepared,
    watch: _Watch,
) -> SuiteOutcome:
    """Run the suite's remaining jobs, then tidy up after a completed one."""
    outcome = await run_suite(
        lib,
        suite_id,
        params,
        prepared,
        observer=watch.observer,
        run_observer=watch.run_observer,
        cancel=watch.cancel,
        purge=purger(transport, params, suite_id),
    )
    await _tidy(lib, transport, params, outcome)
    return outcome


async def _tidy(lib: Library, transport: Transport, params: SuiteParams, out: SuiteOutcome) -> None:
    """A completed suite on a directory removes its test file (a stopped one keeps it for
    ``storage resume``), and says so in its facts."""
    if params.on_device or out.status is not SuiteStatus.COMPLETED:
        return
    note = await remove_file(transport, test_file(params, out.suite_id))
    suite = get_suite(lib, out.suite_id)
    set_suite_facts(lib, out.suite_id, {**suite.facts, "test_file": note})


async def resume_suite(
    lib: Library,
    suite_id: int,
    *,
    observer: SuiteObserver | None = None,
    run_observer: RunObserver | None = None,
    cancel: asyncio.Event | None = None,
    secrets: SecretPrompt | None = None,
    accept_new_host_key: bool = False,
    on_resumed: Callable[[int, SuiteParams], None] | None = None,
) -> SuiteOutcome:
    """Go on with a stopped suite from its next unfinished job (the job that was running
    when it stopped runs again); ``LibraryError`` for a finished or unknown suite."""
    suite = get_suite(lib, suite_id)
    if suite.status == SuiteStatus.COMPLETED.value:
        raise LibraryError(f"suite {suite_id} is completed: nothing to resume")
    params = SuiteParams.from_json(suite.params)
    watch = _Watch(observer, run_observer, cancel)
    pair = suite_pair(lib, suite.host)
    connector = Connector(lib, secrets=secrets, accept_new_host_key=accept_new_host_key)
    try:
        transport = await connector.transport(pair.server)
        existing = "" if params.on_device else test_file(params, suite_id)
        await inspect_target(transport, params, force=True, existing=existing)
        prepared = await prepared_fio(connector, pair, params)
        claim_suite(lib, suite_id)
        if on_resumed is not None:
            on_resumed(suite_id, params)
        return await _run_and_tidy(lib, transport, suite_id, params, prepared, watch)
    finally:
        await connector.close()


# ----------------------------------------------------------------------------- browsing


@dataclass(frozen=True, slots=True)
class SuiteShown:
    """One suite as ``storage show`` and the window present it."""

    suite: StoredSuite
    params: SuiteParams
    jobs: list[StoredJob]
    done: dict[JobKey, dict[str, float]]  # the completed jobs' figures, by place
    progress: SuiteProgress
    tables: list[SuiteTable] = field(default_factory=list)

    @property
    def columns(self) -> dict[str, Column]:
        """The suite's columns: CloudHarmony's (as its code computes them), its ``ss_*``
        fields, Pairbench's own (``analysis.storage_columns``)."""
        return suite_columns(self.params, self.progress, self.done, self.tables)


def storage_suites(lib: Library) -> list[StoredSuite]:
    """Every storage suite, newest first."""
    return list_suites(lib, KIND)


def show_suite(lib: Library, suite_id: int) -> SuiteShown:
    """A suite with its jobs, the completed ones' figures, progress and tables;
    ``LibraryError`` if there is none."""
    suite = get_suite(lib, suite_id)
    params = SuiteParams.from_json(suite.params)
    jobs = suite_jobs(lib, suite_id)
    done = completed_jobs(jobs)
    progress = suite_progress(params, done)
    return SuiteShown(suite, params, jobs, done, progress, suite_tables(params, progress, done))
