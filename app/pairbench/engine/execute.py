"""Execute one run end to end: probe, start server and client, parse, record, finish."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from pairbench.domain import HostPair, Run, RunSpec, RunStatus
from pairbench.domain.failures import (
    ConnectionLostError,
    HostBusyError,
    HostInUseError,
    LibraryFullError,
    PairBusyError,
    PortInUseError,
    RunError,
    StalledOutError,
    ToolMissingError,
    ToolNotInstalledError,
    TransportError,
)
from pairbench.domain.processes import RunTag
from pairbench.engine.diagnose import finish_verdict
from pairbench.engine.host_lock import HostLocks, holder_info
from pairbench.engine.install_hint import INSTALLABLE, install_words
from pairbench.engine.leftovers import ACTIVE_TAGS, clear_leftovers
from pairbench.engine.observer import NullObserver, RunObserver
from pairbench.engine.readiness import port_listening
from pairbench.engine.session import RunSession
from pairbench.engine.stop import StopCondition
from pairbench.engine.transports import Connector
from pairbench.library import Library, Recorder
from pairbench.library.analyses import store_analysis
from pairbench.library.runs import create_run, finish_run, get_run, set_run_facts, update_run_notes
from pairbench.library.series import compact_series
from pairbench.remote.base import Transport
from pairbench.tools.base import Capabilities, HostCheck, Tool
from pairbench.tools.registry import get_tool

FLUSH_PERIOD_S = 0.1
T = TypeVar("T")
StoredHook = Callable[[Run], None]


async def _clear_leftovers(prepared: Prepared) -> list[str]:
    """Leftovers of earlier runs on both hosts, ended and removed; RunError if a live run of
    another controller is there."""
    folder = prepared.tool.workdir_folder(prepared.spec.params)
    folders = (folder,) if folder else ()
    hosts = (
        [prepared.client]
        if prepared.server is prepared.client
        else [
            prepared.client,
            prepared.server,
        ]
    )
    notes: list[str] = []
    try:
        for host in hosts:
            notes += await clear_leftovers(host, folders)
    except HostInUseError as exc:
        raise RunError(str(exc)) from exc
    except (TransportError, TimeoutError, OSError) as exc:
        raise RunError(f"cannot check the hosts for leftover runs: {exc}") from exc
    return notes


@dataclass(frozen=True, slots=True)
class Prepared:
    """A validated spec with its tool, hosts' transports and probed capabilities."""

    spec: RunSpec
    tool: Tool
    pair: HostPair
    client: Transport
    server: Transport
    caps: Capabilities
    server_caps: Capabilities | None = None  # the server host's probe (when another host)

    @property
    def tool_version(self) -> str:
        """The version stored with the run: the client's, or both when the hosts differ
        (``client iperf 3.21 (...) / server iperf 3.12 (...)``)."""
        client = self.caps.version
        server = self.server_caps.version if self.server_caps is not None else client
        return client if server == client else f"client {client} / server {server}"


async def prepare(pair: HostPair, spec: RunSpec, connector: Connector) -> Prepared:
    """Validate parameters, connect, and probe the tool on both hosts.

    Raises ``RunError`` (nothing stored) when the run cannot start.
    """
    try:
        tool = get_tool(spec.tool)
        params = tool.resolve(spec.params)
    except ValueError as exc:
        raise RunError(str(exc)) from exc
    try:
        client = await connector.transport(pair.client)
        server = await connector.transport(pair.server)
    except TransportError as exc:
        raise RunError(str(exc)) from exc
    caps = await _probe(tool, server if tool.server_only else client)
    server_caps = None
    if server is not client and not tool.server_only:
        server_caps = await _probe(tool, server)
    check = tool.host_check(params) if tool.host_check else None
    if check is not None:
        await _host_check(check, server if tool.server_only else client)
    await _refuse_busy_port(tool.chosen_port(params), server)
    return Prepared(replace(spec, params=params), tool, pair, client, server, caps, server_caps)


async def _host_check(check: HostCheck, transport: Transport) -> None:
    try:
        result = await transport.run(check.argv, timeout_s=10)
        if result.exit_status != 0:
            raise RunError(
                f"{transport.host_name}: {' '.join(check.argv)} failed: "
                f"{result.stderr.strip()[:200]}"
            )
        check.verdict(result.stdout)
    except ValueError as exc:  # ParamError: the check's verdict
        raise RunError(f"{transport.host_name}: {exc}") from exc
    except (TransportError, TimeoutError, OSError) as exc:
        raise RunError(f"{transport.host_name}: cannot check the run: {exc}") from exc


async def _refuse_busy_port(port: int, server: Transport) -> None:
    """A server port the user chose (``port`` > 0) that something already listens on is
    refused before the run: nothing stored."""
    if port and await port_listening(server, port):
        busy = PortInUseError(server.host_name, port, "something listens on it")
        raise RunError(str(busy)) from busy


async def _probe(tool: Tool, transport: Transport) -> Capabilities:
    try:
        result = await transport.run(tool.version_argv, timeout_s=10)
    except ToolMissingError as exc:
        host = transport.host_name
        raise ToolNotInstalledError(
            tool.name, host, install_words(tool.name, host), installable=tool.name in INSTALLABLE
        ) from exc
    except (TransportError, TimeoutError, OSError) as exc:
        raise RunError(f"{transport.host_name}: cannot run {tool.name}: {exc}") from exc
    return tool.capabilities(result.stdout or result.stderr)


async def execute_run(
    lib: Library,
    prepared: Prepared,
    *,
    observer: RunObserver | None = None,
    cancel: asyncio.Event | None = None,
    stop: StopCondition | None = None,
    held: HostLocks | None = None,
    telemetry: bool = True,
    on_stored: StoredHook | None = None,
) -> Run:
    """Run a prepared spec and store it; return the stored run with its final status.

    Setting ``cancel`` (or cancelling the task) ends both processes and stores the run as
    ``cancelled`` with every sample received so far. ``stop`` sees every line's records; when
    it returns a reason, both processes are ended and the run is stored as ``completed`` with
    the reason as its note (the tool's own summary is then usually incomplete: iperf3 prints
    no receiver figures when interrupted, so its summary comes from the intervals).
    ``held``: the hosts' locks, taken by the caller (``hold_pair``) and kept after the run.
    ``telemetry``: sample both hosts beside the tool and store the run's verdict (off only
    to measure what sampling costs). ``on_stored``: work that belongs to the run (a probe's
    analysis), given the stored run before the observer hears it finished, so whoever is told
    "finished" finds it stored too.
    """
    observer = observer or NullObserver()
    cancel = cancel or asyncio.Event()
    work = (observer, cancel, stop, telemetry, on_stored)
    if held is not None:  # the caller holds the hosts (a storage suite, for all its jobs)
        return await _execute_locked(lib, prepared, held, *work)
    locks = hold_pair(prepared.pair, prepared.tool.name, lib.path)
    try:
        return await _execute_locked(lib, prepared, locks, *work)
    finally:
        locks.release()


def hold_pair(pair: HostPair, tool: str, library: Path | str | None = None) -> HostLocks:
    """The pair's hosts locked for a run of ``tool`` stored in ``library`` (release them
    when done); a host in use by another Pairbench run is ``PairBusyError`` naming it
    (nothing started, nothing stored)."""
    locks = HostLocks([pair.client, pair.server], holder_info(pair.name, tool, library))
    try:
        locks.acquire()
    except HostBusyError as exc:
        raise PairBusyError(f"pair {pair.name}: {exc}", exc.host, exc.holder) from exc
    except OSError as exc:
        raise RunError(f"cannot lock the hosts of pair {pair.name}: {exc}") from exc
    return locks


async def _execute_locked(
    lib: Library,
    prepared: Prepared,
    locks: HostLocks,
    observer: RunObserver,
    cancel: asyncio.Event,
    stop: StopCondition | None,
    telemetry: bool = True,
    on_stored: StoredHook | None = None,
) -> Run:
    spec = prepared.spec
    cleared = await _clear_leftovers(prepared)
    try:
        with lib.disk_errors("nothing was stored: the run did not start"):
            run_id = create_run(lib, spec)
            set_run_facts(lib, run_id, tool_version=prepared.tool_version)
    except LibraryFullError as exc:
        raise RunError(str(exc)) from exc
    locks.note(run_id=run_id)
    tag = str(RunTag.new())
    ACTIVE_TAGS.add(tag)
    try:
        work = (observer, cancel, stop, tag, cleared, telemetry, on_stored)
        return await _execute_session(lib, run_id, prepared, *work)
    finally:
        ACTIVE_TAGS.discard(tag)


async def _execute_session(
    lib: Library,
    run_id: int,
    prepared: Prepared,
    observer: RunObserver,
    cancel: asyncio.Event,
    stop: StopCondition | None,
    tag: str,
    cleared: list[str],
    telemetry: bool = True,
    on_stored: StoredHook | None = None,
) -> Run:
    spec, tool = prepared.spec, prepared.tool
    recorder = Recorder(lib, run_id)
    parser = tool.parser(spec.params, prepared.caps)
    session = RunSession(prepared, recorder, parser, observer, stop, tag=tag)
    session.preflight_notes = cleared
    session.telemetry_on = telemetry and telemetry_wanted()
    observer.on_started(run_id, spec, tool.expected_seconds(spec.params))
    status, error, by_stop = RunStatus.FAILED, None, False
    full: LibraryFullError | None = None
    work = asyncio.ensure_future(_storing(lib, session.run(lib, run_id)))
    cancelled = asyncio.ensure_future(cancel.wait())
    stopped = asyncio.ensure_future(session.stop_requested.wait())
    flusher = asyncio.ensure_future(_flush_periodically(recorder))
    try:
        await asyncio.wait({work, cancelled, stopped, flusher}, return_when=asyncio.FIRST_COMPLETED)
        if flusher.done():  # only a failure ends it: the library cannot store the run
            flusher.result()
        if work.done():
            try:
                status, error = work.result()
            except ConnectionLostError as exc:
                status, error = RunStatus.INTERRUPTED, str(exc)
            except StalledOutError as exc:
                status, error = RunStatus.STALLED, str(exc)
            except TransportError as exc:
                status, error = RunStatus.FAILED, str(exc)
        elif cancelled.done():
            status, error = RunStatus.CANCELLED, "cancelled by the user"
        else:  # the stop condition ended it
            status, error, by_stop = RunStatus.COMPLETED, None, True
    except asyncio.CancelledError:
        status, error = RunStatus.CANCELLED, "cancelled"
        raise
    except LibraryFullError as exc:  # the run cannot be stored: ended, kept as far as can be
        full = exc
    except Exception as exc:  # a bug or an unforeseen failure: store it, never lose data
        status, error = RunStatus.FAILED, f"{type(exc).__name__}: {exc}"
    finally:
        for task in (work, cancelled, stopped, flusher):
            task.cancel()
        outcome = (status, error, by_stop)
        await asyncio.shield(_finish(lib, run_id, session, outcome, full))
    run = get_run(lib, run_id)
    try:
        if on_stored is not None:
            on_stored(run)
    finally:
        observer.on_finished(run)
    return run


async def _finish(
    lib: Library,
    run_id: int,
    session: RunSession,
    outcome: tuple[RunStatus, str | None, bool],
    full: LibraryFullError | None,
) -> None:
    """Stop the processes and store the outcome: (status, error, ``by_stop``: the stop
    condition ended the run on purpose, so the interrupted tool's message and incomplete
    summary are no failure). ``full``: the library's disk filled up under the run, which is
    then stored as interrupted with the samples stored before."""
    status, error, by_stop = outcome
    try:
        await (session.stop_main_first() if by_stop else session.stop_all())
    except Exception as exc:  # still store the run below
        error = error or f"cleanup failed: {exc}"
    summary = session.close_parser()
    session.stall.finish(time.monotonic())
    stalled = session.stall.describe()
    if stalled is not None:
        # Figures averaged over an outage are not the link's: never stored as completed.
        if status is RunStatus.COMPLETED:
            status, by_stop = RunStatus.STALLED, False
        error = f"{error}; {stalled}" if error else stalled
        summary = replace(summary, complete=False, reason=None)
    if status is RunStatus.COMPLETED and not by_stop:
        if summary.error:
            status, error = RunStatus.FAILED, summary.error
        elif not summary.complete and summary.reason is None:
            status, error = RunStatus.FAILED, "the tool's output ended before its summary"
    if error is None and summary.error and not by_stop:
        error = summary.error
    complete = summary.complete
    try:
        session.recorder.flush()
    except LibraryFullError as exc:
        full = exc
    if full is not None:
        status, complete = RunStatus.INTERRUPTED, False
        error = str(full.keeping(_kept(session.recorder)))
    kept = f"run {run_id} could not be stored as {status.value}: it is marked interrupted"
    with lib.disk_errors(f"{kept} the next time the library is opened with room"):
        finish_run(
            lib, run_id, status, summary=dict(summary.values), complete=complete, error=error
        )
    notes = [
        *session.preflight_notes,
        *([f"summary incomplete: {summary.reason}"] if summary.reason else []),
        *(n for n in (session.stop_reason if by_stop else None, session.stop_error) if n),
    ]
    try:  # what follows adds to a run already stored: a full disk leaves it out
        with lib.disk_errors():
            if notes:
                update_run_notes(lib, run_id, notes="\n".join(notes))
            _store_run_analyses(lib, run_id, session)
            compact_series(lib.conn, run_id)
    except LibraryFullError:
        pass


def _kept(recorder: Recorder) -> str:
    """What a run keeps when the disk filled up under it (what could not be stored is
    dropped): "the run is stored as interrupted with its 120 samples stored before (64
    received later were lost)"."""
    lost = recorder.discard()
    kept = f"the run is stored as interrupted with its {recorder.samples_written} samples"
    return f"{kept} stored before ({lost} received later were lost)" if lost else kept


def _store_run_analyses(lib: Library, run_id: int, session: RunSession) -> None:
    """Store what the tool derives from the run's whole output (fio: the json+ latency
    histogram), the hosts' telemetry and the run's verdict; a failure there is a bug that
    must not lose the run: noted, not raised."""
    note = None
    try:
        for kind, payload in session.prepared.tool.analyses_of(session.parser).items():
            store_analysis(lib, run_id, kind, payload)
    except Exception as exc:
        note = f"run analyses failed: {type(exc).__name__}: {exc}"
    if session.telemetry_on:
        meta = session.telemetry.meta() if session.telemetry is not None else None
        note = finish_verdict(lib, run_id, meta, session.observer) or note
    if note:
        run = get_run(lib, run_id)
        update_run_notes(lib, run_id, notes="\n".join(n for n in (run.notes, note) if n))


def telemetry_wanted() -> bool:
    """False when ``PAIRBENCH_TELEMETRY=off``: no sampler beside the tool, no verdict stored
    (to measure what sampling costs, or for a host that must run the tool alone)."""
    return os.environ.get("PAIRBENCH_TELEMETRY", "on").strip().lower() != "off"


async def _storing(lib: Library, work: Awaitable[T]) -> T:
    """``work``, with a full disk met while it stores raised as ``LibraryFullError``."""
    with lib.disk_errors():
        return await work


async def _flush_periodically(recorder: Recorder) -> None:
    while True:
        await asyncio.sleep(FLUSH_PERIOD_S)
        recorder.flush_if_due()
