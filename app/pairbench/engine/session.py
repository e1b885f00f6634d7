"""The processes and line plumbing of one run: server, client, work dir, parsing, cleanup."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

from pairbench.domain import Line, LineSource, Record, RunStatus, Summary
from pairbench.domain.failures import ConnectionLostError, PortInUseError, TransportError
from pairbench.engine.command_record import COMMANDS_KIND, command_record
from pairbench.engine.facts import gather_facts
from pairbench.engine.leftovers import end_tagged
from pairbench.engine.observer import RunObserver
from pairbench.engine.readiness import local_free_ports, wait_port_listening
from pairbench.engine.stall import StallWatch, shows_data
from pairbench.engine.stop import StopCondition
from pairbench.engine.telemetry import RunTelemetry, run_interval, session_samplers
from pairbench.engine.workdir_files import prepare_workdir, store_collected
from pairbench.library import Library, Recorder
from pairbench.library.analyses import store_analysis
from pairbench.library.runs import set_run_facts
from pairbench.remote.base import RemoteProcess, Transport
from pairbench.tools.base import CommandContext, Commands, ParseError, Parser

if TYPE_CHECKING:
    from pairbench.engine.execute import Prepared

SERVER_READY_TIMEOUT_S = 10.0
SERVER_EXIT_GRACE_S = 3.0
PORT_ATTEMPTS = 5
LOST_CHECK_PERIOD_S = 0.25
# How long ending the main command alone may take before everything is stopped together.
MAIN_STOP_TIMEOUT_S = 10.0


def _stall_watch(prepared: Prepared) -> StallWatch:
    """The stall watch for a run: its reporting interval (the tool's interval parameter, else
    1 s) and expected length (0 when the parameters do not tell: a run by bytes)."""
    params = prepared.spec.params
    interval = prepared.tool.interval_seconds(params)
    try:
        expected = prepared.tool.expected_seconds(params)
    except (KeyError, ValueError):
        expected = 0.0
    return StallWatch(interval, expected)


class RunSession:
    """Starts the run's processes, feeds their lines to parser, recorder and observer."""

    def __init__(
        self,
        prepared: Prepared,
        recorder: Recorder,
        parser: Parser,
        observer: RunObserver,
        stop: StopCondition | None = None,
        tag: str = "",
    ) -> None:
        self.prepared = prepared
        # Every process and the work directory of the run carry it (leftovers are found by it).
        self.tag = tag
        self.recorder = recorder
        self.parser = parser
        self.observer = observer
        self.stop = stop
        # Set once ``stop`` asked the run to end; ``stop_reason`` says why (the run's note).
        self.stop_requested = asyncio.Event()
        self.stop_reason: str | None = None
        self.stop_error: str | None = None
        # What the check for leftovers of earlier runs did on the hosts (kept in the notes).
        self.preflight_notes: list[str] = []
        self.queue: asyncio.Queue[Line | None] = asyncio.Queue()
        self.processes: list[RemoteProcess] = []
        self.pumps: list[asyncio.Task[None]] = []
        self.parse_error: str | None = None
        self.parse_sources: tuple[LineSource, ...] = ()
        self._summary: Summary | None = None
        self._workdir: tuple[Transport, str] | None = None
        self.stall = _stall_watch(prepared)
        self.port = prepared.tool.default_port
        # The hosts' samplers (None: no telemetry, or not started yet).
        self.telemetry: RunTelemetry | None = None
        self.telemetry_on = True
        self._telemetry_start: asyncio.Future[None] | None = None

    async def run(self, lib: Library, run_id: int) -> tuple[RunStatus, str | None]:
        """Run to the end of the main command; return its status and error, if any."""
        p = self.prepared
        await self._record_facts(lib, run_id)
        workdir = await self._make_workdir()
        commands = await self._start_server(workdir)
        store_analysis(
            lib,
            run_id,
            COMMANDS_KIND,
            command_record(
                commands,
                client_host=p.client.host_name,
                server_host=p.server.host_name,
                tool_version=p.tool_version,
                workdir=workdir,
            ),
        )
        self.parse_sources = commands.parse
        main_host = p.server if commands.run_on == "server" else p.client
        await prepare_workdir(main_host, workdir, commands)
        client = await main_host.start(
            commands.client,
            stdout=LineSource.CLIENT_OUT,
            stderr=LineSource.CLIENT_ERR,
            env=commands.env or None,
            tag=self.tag,
            cleanup=self._cleanup_on(main_host),
        )
        client_pump = self._pump(client)
        self.stall.start(started := time.monotonic())
        self._start_telemetry(commands, workdir, client, started)
        await self._consume_until(client_pump)
        exit_status = await client.wait()
        self._raise_if_lost()
        if commands.collect and workdir:
            note = await store_collected(lib, run_id, p, main_host, (workdir, commands.collect))
            self.preflight_notes += [note] if note else []
        await self._await_server_exit()
        if self.parse_error:
            return RunStatus.FAILED, self.parse_error
        if exit_status != 0:
            # The tool's own words when it printed any, else its exit status.
            words = self.close_parser().error
            return RunStatus.FAILED, words or f"{p.tool.name} exited with status {exit_status}"
        return RunStatus.COMPLETED, None

    async def _record_facts(self, lib: Library, run_id: int) -> None:
        p = self.prepared
        facts = {"client": await gather_facts(p.client, route_to=p.pair.target_address)}
        if p.server is not p.client:
            facts["server"] = await gather_facts(p.server, own_address=p.pair.target_address)
        else:
            facts["server"] = facts["client"]
        set_run_facts(lib, run_id, host_facts=facts)

    async def _make_workdir(self) -> str:
        p = self.prepared
        if not p.tool.needs_workdir:
            return ""
        commands = self._commands(p.tool.default_port, "")
        host = p.server if commands.run_on == "server" else p.client
        path = await host.make_workdir(self.tag, p.tool.workdir_folder(p.spec.params))
        self._workdir = (host, path)
        return path

    def _cleanup_on(self, host: Transport) -> str:
        """The work directory the watchdog on ``host`` removes if it must stop the tool."""
        if self._workdir is not None and self._workdir[0] is host:
            return self._workdir[1]
        return ""

    def _commands(self, port: int, workdir: str) -> Commands:
        p = self.prepared
        context = CommandContext(p.pair.target_address, port, workdir)
        return p.tool.commands(p.spec.params, p.caps, context)

    async def _start_server(self, workdir: str) -> Commands:
        """Start the server (if any) on a port it can have; return the commands for it."""
        p = self.prepared
        local = p.server.host_name == "localhost"
        span = p.tool.ports(p.spec.params)
        chosen = p.tool.chosen_port(p.spec.params)
        port = local_free_ports(p.tool.default_port, span) if local else p.tool.default_port
        if chosen:
            port = chosen
        for _attempt in range(1 if chosen else PORT_ATTEMPTS):
            commands = self._commands(port, workdir)
            self.port = port
            if commands.server is None:
                return commands
            server = await p.server.start(
                commands.server,
                stdout=LineSource.SERVER_OUT,
                stderr=LineSource.SERVER_ERR,
                tag=self.tag,
                cleanup=self._cleanup_on(p.server),
            )
            pump = self._pump(server)
            ready, text = await self._wait_ready(pump, port)
            if ready:
                return commands
            await server.stop()
            if chosen and "in use" in text.lower():
                raise PortInUseError(p.server.host_name, chosen, text.strip()[-200:])
            if "in use" not in text.lower():
                raise TransportError(
                    f"host {p.server.host_name}: {p.tool.name} server did not start: "
                    f"{text.strip()[-300:] or 'no output'}"
                )
            port = local_free_ports(port + 1, span) if local else port + 1
        raise TransportError(
            f"host {p.server.host_name}: no free port for the {p.tool.name} server "
            f"after {PORT_ATTEMPTS} attempts"
        )

    async def _wait_ready(self, pump: asyncio.Task[None], port: int) -> tuple[bool, str]:
        """Wait for the server's ready line, or (tools that say nothing) its port."""
        ready_text = self.prepared.tool.server_ready_text
        seen: list[str] = []
        deadline = time.monotonic() + SERVER_READY_TIMEOUT_S
        port_check: asyncio.Task[bool] | None = None
        if ready_text is None:
            port_check = asyncio.ensure_future(
                wait_port_listening(self.prepared.server, port, SERVER_READY_TIMEOUT_S)
            )
        try:
            while True:
                if port_check is not None and port_check.done():
                    return port_check.result(), "\n".join(seen) or "its port never listened"
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False, "timed out waiting for the server to listen"
                try:
                    line = await asyncio.wait_for(self.queue.get(), min(remaining, 0.1))
                except TimeoutError:
                    continue
                if line is None:
                    # Servers that say nothing may also close their output (nuttcp -S): then
                    # only the port tells, and the port check decides.
                    if pump.done() and port_check is None:
                        return False, "\n".join(seen)
                    continue
                self._handle(line)
                seen.append(line.text)
                if ready_text is not None and ready_text in line.text:
                    return True, ""
        finally:
            if port_check is not None:
                port_check.cancel()

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
            notice = self.stall.check(time.monotonic())
            if notice:
                self.observer.on_notice(notice)

    def _raise_if_lost(self) -> None:
        for transport in (self.prepared.client, self.prepared.server):
            if transport.is_lost:
                raise ConnectionLostError(f"connection to host {transport.host_name} lost")

    def _handle(self, line: Line) -> None:
        self.recorder.add_line(line)
        self.observer.on_line(line)
        if line.source not in self.parse_sources or self.parse_error:
            return
        tool = self.prepared.tool.name
        try:
            records = self.parser.feed(line.text)
        except ParseError as exc:
            self.parse_error = f"unexpected {tool} output: {exc}"
            return
        except Exception as exc:  # a parser bug must not lose the run: stop parsing, keep data
            self.parse_error = (
                f"{tool} parser failed on {line.text[:120]!r}: {type(exc).__name__}: {exc}"
            )
            return
        if not records:
            return
        notice = self.stall.report(line.t_received, shows_data(records))
        if notice:
            self.observer.on_notice(notice)
        try:
            self.recorder.add(records)
        except (TypeError, ValueError) as exc:  # a parser bug again: malformed records
            self.parse_error = f"{tool} parser gave malformed records on {line.text[:120]!r}: {exc}"
            return
        self._check_stop(records)
        self.observer.on_records(records)

    def _check_stop(self, records: list[Record]) -> None:
        """Ask the stop condition (if any) whether these records end the run."""
        if self.stop is None or self.stop_reason is not None:
            return
        try:
            reason = self.stop.check(records)
        except Exception as exc:  # a bug in the condition must not lose the run: ignore it
            self.stop_error = f"stop condition failed: {type(exc).__name__}: {exc}"
            self.stop = None
            return
        if reason:
            self.stop_reason = reason
            self.stop_requested.set()

    async def _await_server_exit(self) -> None:
        """Give a server whose output is parsed (iperf3's UDP receiver figures come at its
        end) time to finish; a server whose output is not parsed (nuttcp -S serves on until
        stopped) is stopped with the rest at once."""
        server_parsed = any(
            source in (LineSource.SERVER_OUT, LineSource.SERVER_ERR)
            for source in self.parse_sources
        )
        if server_parsed:
            for process in self.processes[:-1]:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.wait(), SERVER_EXIT_GRACE_S)
        self._drain()

    def _drain(self) -> None:
        while not self.queue.empty():
            line = self.queue.get_nowait()
            if line is not None:
                self._handle(line)

    async def stop_main_first(self) -> None:
        """End the main command first, then everything else (a stop by the run's own stop
        condition): the client then ends as interrupted by us, printing what it measured, and
        not as a client whose server vanished under it (which iperf3 reports as an error
        with a receiver figure of zero)."""
        if self.processes:
            with contextlib.suppress(Exception):  # stop_all below tries again
                await asyncio.wait_for(self.processes[-1].stop(), MAIN_STOP_TIMEOUT_S)
        await self.stop_all()

    def _start_telemetry(
        self, commands: Commands, workdir: str, main: RemoteProcess, started: float
    ) -> None:
        """Start the hosts' samplers beside the tool, in the background (lines are read
        meanwhile); their records share the tool's time axis (``started``)."""
        if not self.telemetry_on:
            return
        server = self.processes[0] if commands.server is not None else None
        hosts = session_samplers(
            self.prepared, commands, port=self.port, workdir=workdir, server=server, main=main
        )
        interval = run_interval(self.prepared.spec.params)
        self.telemetry = RunTelemetry(
            self.recorder, self.observer, tag=self.tag, start=started, interval_s=interval
        )
        self._telemetry_start = asyncio.ensure_future(self.telemetry.start(hosts))

    async def stop_all(self) -> None:
        """End every process of the run and remove its work directory."""
        if self._telemetry_start is not None and self.telemetry is not None:
            with contextlib.suppress(Exception):  # telemetry never fails a run
                await asyncio.wait_for(asyncio.shield(self._telemetry_start), 15.0)
            await self.telemetry.stop()
        await asyncio.gather(*(p.stop() for p in self.processes), return_exceptions=True)
        for pump in self.pumps:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(pump), 1.0)
        self._drain()
        await self._end_tagged()
        if self._workdir is not None:
            host, path = self._workdir
            self._workdir = None
            if not host.is_lost:
                with contextlib.suppress(TransportError, TimeoutError, OSError):
                    await host.remove_workdir(path)

    async def _end_tagged(self) -> None:
        """Whatever of the run outlived its stop (fio's job processes lead their own
        sessions) is killed by its tag, on both hosts."""
        if not self.tag:
            return
        hosts = {id(h): h for h in (self.prepared.client, self.prepared.server)}
        for host in hosts.values():
            if not host.is_lost:
                with contextlib.suppress(TransportError, TimeoutError, OSError):
                    await end_tagged(host, self.tag)

    def close_parser(self) -> Summary:
        """The parser's summary (once); a failing parser gives an incomplete one."""
        if self._summary is None:
            try:
                self._summary = self.parser.close()
            except Exception as exc:  # ParseError or a parser bug: the run is kept either way
                self._summary = Summary(values={}, complete=False, error=str(exc))
        return self._summary
