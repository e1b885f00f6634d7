"""The storage suite as the window and the CLI use it: check a request, start a suite on a
host, resume one, list and show suites with their verdicts, tables and CloudHarmony-named
columns."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pairbench.analysis.storage_suite import (
    SuiteProgress,
    SuiteTable,
    csv_columns,
    suite_progress,
    suite_tables,
)
from pairbench.domain import LOCAL_PAIR, HostPair
from pairbench.domain.failures import RunError
from pairbench.domain.storage import (
    JobKey,
    StorageTest,
    SuiteParams,
    SuiteStatus,
    block_size_bytes,
    stages_of,
)
from pairbench.engine.execute import Prepared, prepare
from pairbench.engine.observer import RunObserver
from pairbench.engine.storage_suite import (
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
from pairbench.services.storage_room import keep_library_room
from pairbench.tools.fio import PathParam

KIND = "storage"
_TARGET = PathParam("target", "path", "", "a device under /dev, or a directory")
MAX_THREADS = 256
MAX_IODEPTH = 4096


@dataclass(frozen=True, slots=True)
class SuiteRequest:
    """What the user asked for (the CLI's options, the window's form).

    ``confirm`` is the device path typed again (a device suite destroys its data);
    ``threads`` None means the host's CPUs; ``size`` 0 on a device means all of it.
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
    data_excursion: float = 0.20
    slope_excursion: float = 0.10


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
        (1 <= req.iodepth <= MAX_IODEPTH, f"iodepth: 1..{MAX_IODEPTH}"),
        (1 <= req.round_seconds <= 3600, "round seconds: 1..3600"),
        (5 <= req.max_rounds <= 1000, "max rounds: 5..1000 (the steady-state window is 5)"),
        (0 <= req.precondition_passes <= 5, "precondition passes: 0..5"),
        (0 < req.data_excursion < 1 and 0 < req.slope_excursion < 1, "excursions: 0..1"),
        (req.size >= 0, "size: positive"),
    )
    for ok, rule in checks:
        if not ok:
            raise ValueError(f"out of range, {rule}")


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
        params = SuiteParams(
            test=req.test,
            target=req.target,
            size=size,
            threads=req.threads or await cpu_count(transport),
            iodepth=req.iodepth,
            round_seconds=req.round_seconds,
            max_rounds=req.max_rounds,
            precondition_passes=req.precondition_passes,
            purge=req.purge,
            data_excursion=req.data_excursion,
            slope_excursion=req.slope_excursion,
            direct=target.direct,
        )
        keep_library_room(lib, pair, params, target.facts, params.size)
        prepared = await prepared_fio(connector, pair, params)
        suite_id = create_suite(lib, KIND, req.host, params.to_json(), label=req.label, tags=tags)
        facts = dict(target.facts)
        facts["fio"] = prepared.tool_version
        if params.purge and params.on_device:
            facts["purge"] = await purge_device(transport, params.target)
        elif params.purge:
            facts["purge"] = "a new test file (purge applies to devices)"
        else:
            facts["purge"] = "not purged (--no-purge)"
        set_suite_facts(lib, suite_id, facts)
        if on_created is not None:
            on_created(suite_id, params)
        return await _run_and_tidy(lib, transport, suite_id, params, prepared, watch)
    finally:
        await connector.close()


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
        target = await inspect_target(transport, params, force=True, existing=existing)
        keep_library_room(lib, pair, params, target.facts, 0)
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
    def columns(self) -> dict[str, float]:
        """The tables under CloudHarmony's column names."""
        return csv_columns(self.params, self.tables)


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
