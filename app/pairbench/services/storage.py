"""The storage suite as the window and the CLI use it: start a suite on a host (its request
checked by ``services.storage_request``, purged by ``services.storage_purge``), resume one,
list and show suites with their verdicts, tables and CloudHarmony-named columns."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pairbench.analysis.storage_columns import Column, suite_columns
from pairbench.analysis.storage_suite import SuiteProgress, suite_progress
from pairbench.analysis.storage_tables import SuiteTable, suite_tables
from pairbench.domain import LOCAL_PAIR, HostPair
from pairbench.domain.storage import JobKey, SuiteParams, SuiteStatus, suite_threads
from pairbench.engine.execute import Prepared, hold_pair, prepare
from pairbench.engine.host_lock import HostLocks
from pairbench.engine.observer import RunObserver
from pairbench.engine.storage_files import FACT as TEST_DIR_FACT
from pairbench.engine.storage_files import (
    make_test_dir,
    probe_direct,
    remove_test_dir,
    reopen_test_dir,
    test_file_in,
)
from pairbench.engine.storage_suite import (
    SuiteObserver,
    completed_jobs,
    job_spec,
    run_suite,
)
from pairbench.engine.storage_suite import SuiteOutcome as SuiteOutcome
from pairbench.engine.storage_target import (
    TargetFacts,
    cpu_count,
    inspect_device,
    inspect_directory,
    with_direct,
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
from pairbench.services.storage_purge import purge_at_start, purger
from pairbench.services.storage_request import MAX_IODEPTH as MAX_IODEPTH
from pairbench.services.storage_request import MAX_THREADS as MAX_THREADS
from pairbench.services.storage_request import SuiteRequest as SuiteRequest
from pairbench.services.storage_request import check_request as check_request
from pairbench.services.storage_request import refuse_block_sizes, threads_fact
from pairbench.services.storage_room import keep_library_room

KIND = "storage"


def suite_pair(lib: Library, host: str) -> HostPair:
    """The suite's host as a pair whose client and server are that host (``local``: this
    computer); ``LibraryError`` for an unknown host, and for ``local`` while a stored host
    (of a library from before names were reserved) has that name too: which one was meant
    cannot be told, and the wrong one may be this computer's device."""
    if host == LOCAL_PAIR.name:
        try:
            clash = stored_hosts.get_host(lib, host)
        except LibraryError:
            return LOCAL_PAIR
        raise LibraryError(
            f"'{host}' means this computer, but this library also holds a host named "
            f"'{host}' ({clash.address}); rename that host first "
            f"(pairbench hosts rename {host} NEW-NAME)"
        )
    found = stored_hosts.get_host(lib, host)
    return HostPair(name=found.name, client=found, server=found)


async def inspect_target(
    transport: Transport,
    params: SuiteParams,
    *,
    force: bool,
    existing: str = "",
    remedy: str = "",
) -> TargetFacts:
    """The target checked (nothing written); ``remedy`` says how to force a device that
    holds data (``inspect_device``)."""
    if params.on_device:
        return await inspect_device(transport, params.target, force=force, remedy=remedy)
    return await inspect_directory(transport, params.target, params.size, existing_file=existing)


async def prepared_fio(
    connector: Connector, pair: HostPair, params: SuiteParams, test_dir: str = ""
) -> Prepared:
    """fio probed on the host, and its target checked there (a device unused; the test file
    in ``test_dir``, the suite's own directory; without one the target directory) for the
    suite's jobs."""
    test_file = test_file_in(test_dir) if test_dir else ""
    return await prepare(
        pair, job_spec(pair.name, 0, params, JobKey(0, 1, 0), test_file), connector
    )


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
    """Check the target, purge it, store the suite (with ``tags``: its place in a campaign)
    and run it (``run_suite``), holding the host for the whole suite. Raises ``RunError``
    (nothing stored, nothing written) when the host is busy or refuses, or the target does,
    or a device cannot be purged; a directory suite's test file is made in a private
    directory of its own (``engine.storage_files``)."""
    check_request(req)
    watch = _Watch(observer, run_observer, cancel)
    pair = suite_pair(lib, req.host)
    locks = hold_pair(pair, "fio", lib.path)
    connector = Connector(lib, secrets=secrets, accept_new_host_key=accept_new_host_key)
    try:
        transport = await connector.transport(pair.server)
        plan = SuiteParams(req.test, req.target, req.size)
        target = await inspect_target(transport, plan, force=req.force)
        size = min(req.size, target.size_bytes) if req.size else target.size_bytes
        refuse_block_sizes(req, target)
        test_dir = "" if plan.on_device else await make_test_dir(transport, req.target)
        try:
            if test_dir:
                target = with_direct(target, await probe_direct(transport, test_dir))
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
            keep_library_room(lib, pair, params, target.facts, params.size)
            prepared = await prepared_fio(connector, pair, params, test_dir)
            purged = await purge_at_start(transport, params, test_dir)  # refused: none stored
            suite_id = create_suite(
                lib, KIND, req.host, params.to_json(), label=req.label, tags=tags
            )
        except BaseException:
            if test_dir:  # refused before anything was stored: leave nothing behind
                await remove_test_dir(transport, req.target, test_dir)
            raise
        facts = dict(target.facts)
        facts["fio"] = prepared.tool_version
        if test_dir:
            facts[TEST_DIR_FACT] = test_dir
        facts["threads"] = threads_fact(req, threads, cpus)
        facts["purge"] = purged
        set_suite_facts(lib, suite_id, facts)
        if on_created is not None:
            on_created(suite_id, params)
        return await _run_and_tidy(
            lib, transport, suite_id, params, prepared, watch, _Files(test_dir, locks)
        )
    finally:
        locks.release()
        await connector.close()


@dataclass(frozen=True, slots=True)
class _Watch:
    """Who hears a suite, and its cancel event."""

    observer: SuiteObserver | None
    run_observer: RunObserver | None
    cancel: asyncio.Event | None


@dataclass(frozen=True, slots=True)
class _Files:
    """What a suite holds on its host while it runs: its directory ("" on a device), and the
    host's lock."""

    test_dir: str
    locks: HostLocks


async def _run_and_tidy(
    lib: Library,
    transport: Transport,
    suite_id: int,
    params: SuiteParams,
    prepared: Prepared,
    watch: _Watch,
    files: _Files,
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
        test_file=test_file_in(files.test_dir) if files.test_dir else "",
        locks=files.locks,
        purge=purger(transport, params, files.test_dir),
    )
    if files.test_dir and outcome.status is SuiteStatus.COMPLETED:
        # A completed directory suite removes its test file and directory (a stopped one
        # keeps them for ``storage resume``), and says so in its facts.
        note = await remove_test_dir(transport, params.target, files.test_dir)
        suite = get_suite(lib, suite_id)
        set_suite_facts(lib, suite_id, {**suite.facts, "test_file": note})
    return outcome


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
    force: bool = False,
) -> SuiteOutcome:
    """Go on with a stopped suite from its next unfinished job (the job that was running
    when it stopped runs again); ``LibraryError`` for a finished or unknown suite. The target
    is checked as at a start: a device that now holds a file system or partitions is refused
    (``TargetHoldsDataError``) unless ``force``; a directory suite's own directory must be
    as it made it (``engine.storage_files.check_test_dir``). Refused, the suite is left as
    it was."""
    suite = get_suite(lib, suite_id)
    if suite.status == SuiteStatus.COMPLETED.value:
        raise LibraryError(f"suite {suite_id} is completed: nothing to resume")
    params = SuiteParams.from_json(suite.params)
    watch = _Watch(observer, run_observer, cancel)
    pair = suite_pair(lib, suite.host)
    locks = hold_pair(pair, "fio", lib.path)
    connector = Connector(lib, secrets=secrets, accept_new_host_key=accept_new_host_key)
    try:
        transport = await connector.transport(pair.server)
        recorded = "" if params.on_device else str(suite.facts.get(TEST_DIR_FACT) or "")
        existing = test_file_in(recorded) if recorded else ""
        remedy = (
            f"Resume it only if that data may go: `pairbench storage resume {suite_id} --force`"
        )
        target = await inspect_target(
            transport, params, force=force, existing=existing, remedy=remedy
        )
        keep_library_room(lib, pair, params, target.facts, 0)
        test_dir, note = "", ""
        if not params.on_device:
            test_dir, note = await reopen_test_dir(transport, params.target, recorded)
        try:
            prepared = await prepared_fio(connector, pair, params, test_dir)
            claim_suite(lib, suite_id)
        except BaseException:
            if note:  # a directory made for this resume
                await remove_test_dir(transport, params.target, test_dir)
            raise
        if note:
            set_suite_facts(lib, suite_id, {**suite.facts, TEST_DIR_FACT: test_dir, "resume": note})
        if on_resumed is not None:
            on_resumed(suite_id, params)
        return await _run_and_tidy(
            lib, transport, suite_id, params, prepared, watch, _Files(test_dir, locks)
        )
    finally:
        locks.release()
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
