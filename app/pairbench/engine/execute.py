"""Execute one run end to end: probe, start server and client, parse, record, finish."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from dataclasses import dataclass, replace

from pairbench.domain import HostPair, Line, LineSource, Run, RunSpec, RunStatus, Summary
from pairbench.engine.facts import gather_facts
from pairbench.engine.observer import NullObserver, RunObserver
from pairbench.engine.transports import Connector
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run, finish_run, get_run, set_run_facts
from pairbench.library.series import compact_series
from pairbench.remote.base import RemoteProcess, ToolMissingError, Transport, TransportError
from pairbench.remote.ssh import ConnectionLostError
from pairbench.tools.base import Capabilities, CommandContext, ParseError, Parser, Tool
from pairbench.tools.registry import get_tool

SERVER_READY_TIMEOUT_S = 10.0
SERVER_EXIT_GRACE_S = 3.0
FLUSH_PERIOD_S = 0.5
PORT_ATTEMPTS = 5
LOST_CHECK_PERIOD_S = 0.25
_CLIENT_SOURCES = (LineSource.CLIENT_OUT, LineSource.CLIENT_ERR)


class RunError(Exception):
    """A run could not start; nothing was stored. The message says what to do."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """A validated spec with its tool, hosts' transports and probed capabilities."""

    spec: RunSpec
    tool: Tool
    pair: HostPair
    client: Transport
    server: Transport
    caps: Capabilities


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
    caps = await _probe(tool, client)
    if server is not client:
        await _probe(tool, server)
    return Prepared(replace(spec, params=params), tool, pair, client, server, caps)


async def _probe(tool: Tool, transport: Transport) -> Capabilities:
    try:
        result = await transport.run(tool.version_argv, timeout_s=10)
    except ToolMissingError as exc:
        raise RunError(
            f"{tool.name} is not installed on {transport.host_name}: "
            f"install it with `{tool.install_hint}`"
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
) -> Run:
    """Run a prepared spec and store it; return the stored run with its final status.

    Setting ``cancel`` (or cancelling the task) ends both processes and stores the run as
    ``cancelled`` with every sample received so far.
    """
    observer = observer or NullObserver()
    cancel = cancel or asyncio.Event()
    spec, tool = prepared.spec, prepared.tool
    run_id = create_run(lib, spec)
    set_run_facts(lib, run_id, tool_version=prepared.caps.version)
    recorder = Recorder(lib, run_id)
    parser = tool.parser(spec.params, prepared.caps)
    session = _Session(prepared, recorder, parser, observer)
    observer.on_started(run_id, spec, tool.expected_seconds(spec.params))
    status, error = RunStatus.FAILED, None
    work = asyncio.ensure_future(session.run(lib, run_id))
    cancelled = asyncio.ensure_future(cancel.wait())
    flusher = asyncio.ensure_future(_flush_periodically(recorder))
    try:
        await asyncio.wait({work, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        if work.done():
            try:
                status, error = work.result()
            except ConnectionLostError as exc:
                status, error = RunStatus.INTERRUPTED, str(exc)
            except TransportError as exc:
                status, error = RunStatus.FAILED, str(exc)
        else:
            status, error = RunStatus.CANCELLED, "cancelled by the user"
    except asyncio.CancelledError:
        status, error = RunStatus.CANCELLED, "cancelled"
        raise
    except Exception as exc:  # a bug or an unforeseen failure: store it, never lose data
        status, error = RunStatus.FAILED, f"{type(exc).__name__}: {exc}"
    finally:
        for task in (work, cancelled, flusher):
            task.cancel()
        await asyncio.shield(_finish(lib, run_id, session, status, error))
    run = get_run(lib, run_id)
    observer.on_finished(run)
    return run


async def _finish(
    lib: Library, run_id: int, session: _Session, status: RunStatus, error: str | None
) -> None:
    try:
        await session.stop_all()
    except Exception as exc:  # still store the run below
        error = error or f"cleanup failed: {exc}"
    summary = session.close_parser()
    if status is RunStatus.COMPLETED and summary.error:
        status, error = RunStatus.FAILED, summary.error
    elif status is RunStatus.COMPLETED and not summary.complete:
        status, error = RunStatus.FAILED, "the tool's output ended before its summary"
    if error is None and summary.error:
        error = summary.error
    session.recorder.flush()
    finish_run(
        lib,
        run_id,
        status,
        summary=dict(summary.values),
        complete=summary.complete,
        error=error,
    )
    compact_series(lib.conn, run_id)


async def _flush_periodically(recorder: Recorder) -> None:
    while True:
        await asyncio.sleep(FLUSH_PERIOD_S)
        recorder.flush_if_due()


class _Session:
    """The processes and line plumbing of one run."""

    def __init__(
        self, prepared: Prepared, recorder: Recorder, parser: Parser, observer: RunObserver
    ) -> None:
        self.prepared = prepared
        self.recorder = recorder
        self.parser = parser
        self.observer = observer
        self.queue: asyncio.Queue[Line | None] = asyncio.Queue()
        self.processes: list[RemoteProcess] = []
        self.pumps: list[asyncio.Task[None]] = []
        self.parse_error: str | None = None
        self._summary: Summary | None = None

    async def run(self, lib: Library, run_id: int) -> tuple[RunStatus, str | None]:
        p = self.prepared
        facts = {"client": await gather_facts(p.client, route_to=p.pair.target_address)}
        if p.server is not p.client:
            facts["server"] = await gather_facts(p.server, own_address=p.pair.target_address)
        else:
            facts["server"] = facts["client"]
        set_run_facts(lib, run_id, host_facts=facts)
        port = await self._start_server()
        commands = p.tool.commands(
            p.spec.params, p.caps, CommandContext(p.pair.target_address, port)
        )
        client = await p.client.start(
            commands.client,
            stdout=LineSource.CLIENT_OUT,
            stderr=LineSource.CLIENT_ERR,
            env=commands.env or None,
        )
        client_pump = self._pump(client)
        await self._consume_until(client_pump)
        exit_status = await client.wait()
        self._raise_if_lost()
        await self._await_server_exit()
        if self.parse_error:
            return RunStatus.FAILED, self.parse_error
        if exit_status != 0:
            return RunStatus.FAILED, f"{p.tool.name} exited with status {exit_status}"
        return RunStatus.COMPLETED, None

    async def _start_server(self) -> int:
        p = self.prepared
        port = (
            _local_free_port(p.tool.default_port)
            if p.server.host_name == "localhost"
            else (p.tool.default_port)
        )
        for _attempt in range(PORT_ATTEMPTS):
            argv = p.tool.commands(
                p.spec.params, p.caps, CommandContext(p.pair.target_address, port)
            ).server
            if argv is None:
                return port
            server = await p.server.start(
                argv, stdout=LineSource.SERVER_OUT, stderr=LineSource.SERVER_ERR
            )
            pump = self._pump(server)
            ready, text = await self._wait_ready(pump)
            if ready:
                return port
            await server.stop()
            if "in use" not in text:
                raise TransportError(
                    f"{p.server.host_name}: {p.tool.name} server did not start: "
                    f"{text.strip() or 'no output'}"
                )
            port += 1
        raise TransportError(
            f"{p.server.host_name}: no free port for the {p.tool.name} server "
            f"after {PORT_ATTEMPTS} attempts"
        )

    async def _wait_ready(self, pump: asyncio.Task[None]) -> tuple[bool, str]:
        ready_text = self.prepared.tool.server_ready_text or ""
        seen: list[str] = []
        deadline = time.monotonic() + SERVER_READY_TIMEOUT_S
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False, "timed out waiting for the server to listen"
            try:
                line = await asyncio.wait_for(self.queue.get(), remaining)
            except TimeoutError:
                return False, "timed out waiting for the server to listen"
            if line is None:
                if pump.done():
                    return False, "\n".join(seen)
                continue
            self._handle(line)
            seen.append(line.text)
            if ready_text in line.text:
                return True, ""

    def _pump(self, process: RemoteProcess) -> asyncio.Task[None]:
        self.processes.append(process)

        async def pump() -> None:
            try:
                async for line in process.lines():
                    await self.queue.put(line)
            finally:
                await self.queue.put(None)

        task = asyncio.ensure_future(pump())
        self.pumps.append(task)
        return task

    async def _consume_until(self, pump: asyncio.Task[None]) -> None:
        """Handle lines until ``pump`` ends; a host whose connection drops ends the run."""
        while not (pump.done() and self.queue.empty()):
            try:
                line = await asyncio.wait_for(self.queue.get(), LOST_CHECK_PERIOD_S)
            except TimeoutError:
                line = None
            if line is not None:
                self._handle(line)
            self._raise_if_lost()

    def _raise_if_lost(self) -> None:
        for transport in (self.prepared.client, self.prepared.server):
            if transport.is_lost:
                raise ConnectionLostError(f"connection to host {transport.host_name} lost")

    def _handle(self, line: Line) -> None:
        self.recorder.add_line(line)
        self.observer.on_line(line)
        if line.source not in _CLIENT_SOURCES or self.parse_error:
            return
        try:
            records = self.parser.feed(line.text)
        except ParseError as exc:
            self.parse_error = f"unexpected {self.prepared.tool.name} output: {exc}"
            return
        except Exception as exc:  # a parser bug must not lose the run: stop parsing, keep data
            self.parse_error = (
                f"{self.prepared.tool.name} parser failed on {line.text[:120]!r}: "
                f"{type(exc).__name__}: {exc}"
            )
            return
        if not records:
            return
        try:
            self.recorder.add(records)
        except (TypeError, ValueError) as exc:  # a parser bug again: malformed records
            self.parse_error = (
                f"{self.prepared.tool.name} parser gave malformed records on "
                f"{line.text[:120]!r}: {exc}"
            )
            return
        self.observer.on_records(records)

    async def _await_server_exit(self) -> None:
        for process in self.processes[:-1]:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), SERVER_EXIT_GRACE_S)
        while not self.queue.empty():
            line = self.queue.get_nowait()
            if line is not None:
                self._handle(line)

    async def stop_all(self) -> None:
        await asyncio.gather(*(p.stop() for p in self.processes), return_exceptions=True)
        for pump in self.pumps:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(pump), 1.0)
        while not self.queue.empty():
            line = self.queue.get_nowait()
            if line is not None:
                self._handle(line)

    def close_parser(self) -> Summary:
        if self._summary is None:
            try:
                self._summary = self.parser.close()
            except Exception as exc:  # ParseError or a parser bug: the run is kept either way
                self._summary = Summary(values={}, complete=False, error=str(exc))
        return self._summary


def _local_free_port(preferred: int) -> int:
    """``preferred`` if nothing listens on it on this computer, else a free port from the OS."""
    for port in (preferred, 0):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(sock.getsockname()[1])
    return preferred
