"""A run's host telemetry: one sampler per host, started beside the tool, ended with it.

``RunTelemetry.start`` starts ``tools/host_sampler.py``'s script on each host of the pair
(one when both roles are this computer) over the transport the tool uses, under the same
watchdog and run tag, so a leftover sampler is found and ended like a leftover tool. Its
lines are parsed as they come (``tools/sampler_parse.py``) into records of the run's
recorder, on the tool's time axis, and handed to an observer that wants them
(``TelemetryObserver``). Telemetry never fails a run: a sampler that cannot start or dies
leaves a note in ``meta()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from pairbench.domain import LineSource, Record
from pairbench.domain.failures import TransportError
from pairbench.domain.telemetry import Role
from pairbench.engine.observer import RunObserver, TelemetryObserver
from pairbench.library import Recorder
from pairbench.remote.base import RemoteProcess, Transport
from pairbench.tools.base import Commands
from pairbench.tools.host_sampler import (
    SamplerRequest,
    peer_filter,
    port_filter,
    sampler_argv,
    sampling_interval,
)
from pairbench.tools.sampler_parse import SamplerParser
from pairbench.tools.targets import socket_proto

if TYPE_CHECKING:
    from pairbench.engine.execute import Prepared

# The analysis kind of what the samplers said about their hosts.
TELEMETRY_KIND: Final = "telemetry"
STOP_TIMEOUT_S: Final = 5.0


def run_interval(params: Mapping[str, str]) -> float:
    """The run's reporting interval (its ``interval`` parameter, else 1 s), as sampled."""
    try:
        interval = float(params.get("interval", "") or 1.0)
    except ValueError:
        interval = 1.0
    return sampling_interval(interval)


def disk_paths(tool: str, params: Mapping[str, str], workdir: str) -> tuple[str, ...]:
    """What fio reads and writes: its device, file, directory, or the run's work directory."""
    if tool != "fio":
        return ()
    for name in ("device", "file", "directory"):
        if params.get(name):
            return (params[name],)
    return (workdir,) if workdir else ()


def _is_ip(address: str) -> bool:
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


class RunTelemetry:
    """The samplers of one run and what they said."""

    def __init__(
        self,
        recorder: Recorder,
        observer: RunObserver,
        *,
        tag: str,
        start: float,
        interval_s: float,
    ) -> None:
        self.recorder = recorder
        self.observer = observer if isinstance(observer, TelemetryObserver) else None
        self.tag = tag
        self.start_time = start
        self.interval_s = interval_s
        self._samplers: list[tuple[Role, RemoteProcess, SamplerParser]] = []
        self._pumps: list[asyncio.Task[None]] = []
        self._notes: dict[Role, list[str]] = {}
        self.shared_host = False

    async def start(
        self,
        hosts: Sequence[tuple[Role, Transport, SamplerRequest]],
    ) -> None:
        """Start a sampler per (role, transport, request); failures become notes."""
        self.shared_host = len(hosts) == 1
        await asyncio.gather(*(self._start_one(*host) for host in hosts))

    async def _start_one(self, role: Role, host: Transport, request: SamplerRequest) -> None:
        parser = SamplerParser(role, self.start_time, proto=request.proto)
        try:
            process = await host.start(
                sampler_argv(request),
                stdout=LineSource.SAMPLER_OUT,
                stderr=LineSource.SAMPLER_ERR,
                tag=self.tag,
            )
        except (TransportError, TimeoutError, OSError) as exc:
            self._notes.setdefault(role, []).append(f"the sampler did not start: {exc}")
            return
        self._samplers.append((role, process, parser))
        self._pumps.append(asyncio.ensure_future(self._pump(role, process, parser)))

    async def _pump(self, role: Role, process: RemoteProcess, parser: SamplerParser) -> None:
        try:
            async for line in process.lines():
                self._deliver(parser.feed(line))
        except (TransportError, OSError) as exc:
            self._notes.setdefault(role, []).append(f"the sampler's output ended: {exc}")
        except Exception as exc:  # a parser bug must not lose the run: stop reading, note it
            self._notes.setdefault(role, []).append(
                f"telemetry parser failed: {type(exc).__name__}: {exc}"
            )

    def _deliver(self, records: list[Record]) -> None:
        if not records:
            return
        self.recorder.add(records)
        if self.observer is not None:
            self.observer.on_telemetry(records)

    async def stop(self) -> None:
        """End every sampler (each prints a last sample first) and read what is left."""
        # SIGTERM: a script started in the background ignores SIGINT (bash cannot trap it).
        await asyncio.gather(
            *(p.stop(interrupt=False) for _, p, _ in self._samplers), return_exceptions=True
        )
        for pump in self._pumps:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(pump), STOP_TIMEOUT_S)
            pump.cancel()

    def meta(self) -> dict[str, Any]:
        """What the samplers said of their hosts (the ``telemetry`` analysis): per role the
        greeting (interface, boot id, cores, which sources it read) and notes; the interval;
        whether one host served both roles or both share one kernel (a lab on one machine)."""
        hosts: dict[str, Any] = {}
        for role, _process, parser in self._samplers:
            hosts[role] = {**parser.meta, "notes": [*self._notes.get(role, []), *parser.notes]}
        for role, notes in self._notes.items():
            hosts.setdefault(role, {"notes": notes})
        boots = {h.get("boot") for h in hosts.values() if h.get("boot")}
        return {
            "interval_s": self.interval_s,
            "hosts": hosts,
            "one_host": self.shared_host,
            "shared_kernel": self.shared_host or (len(hosts) == 2 and len(boots) == 1),
        }


def sampler_requests(
    *,
    tool: str,
    params: Mapping[str, str],
    target: str,
    port: int,
    ports: int,
    ssh_ports: tuple[int, ...],
    workdir: str,
    run_on: Role,
    processes: Mapping[Role, int],
    one_host: bool,
) -> list[tuple[Role, SamplerRequest]]:
    """What each host's sampler watches: its data interface (the client routes to
    ``target``, the server holds it), the tool's sockets and processes there, and fio's disk
    on the host that runs it."""
    interval = run_interval(params)
    proto = socket_proto(tool, params)
    if tool == "uperf":
        sockets = peer_filter(target, ssh_ports) if _is_ip(target) else ""
    else:
        sockets = port_filter(port, port + max(ports, 1) - 1) if proto else ""
    disks = disk_paths(tool, params, workdir)
    if one_host:  # one sampler, named after the host of the main command (fio: the server)
        request = SamplerRequest(
            interval,
            route_to=target,
            sockets=sockets,
            proto=proto,
            disks=disks,
            processes=tuple(processes.items()),
        )
        return [(run_on, request)]
    return [
        (
            role,
            SamplerRequest(
                interval,
                route_to=target if role == "client" else "",
                own_address=target if role == "server" else "",
                sockets=sockets,
                proto=proto,
                disks=disks if role == run_on else (),
                processes=((role, processes[role]),) if role in processes else (),
            ),
        )
        for role in ("client", "server")
    ]


def session_samplers(
    prepared: Prepared,
    commands: Commands,
    *,
    port: int,
    workdir: str,
    server: RemoteProcess | None,
    main: RemoteProcess,
) -> list[tuple[Role, Transport, SamplerRequest]]:
    """The samplers of a run whose ``server`` (if any) and ``main`` command have started."""
    p = prepared
    run_on: Role = "server" if commands.run_on == "server" else "client"
    processes: dict[Role, int] = {}
    if server is not None and server.pid is not None:
        processes["server"] = server.pid
    if main.pid is not None:
        processes[run_on] = main.pid
    one_host = p.server is p.client
    requests = sampler_requests(
        tool=p.tool.name,
        params=p.spec.params,
        target=p.pair.target_address,
        port=port,
        ports=p.tool.ports(p.spec.params),
        ssh_ports=(p.pair.client.port, p.pair.server.port),
        workdir=workdir,
        run_on=run_on,
        processes=processes,
        one_host=one_host,
    )
    transports = {"client": p.client, "server": p.server}
    return [(role, transports[role], request) for role, request in requests]
