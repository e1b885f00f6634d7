"""Preflight of a pair: both hosts reachable, the data path works, tool versions, clocks."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from pairbench.domain import HostPair
from pairbench.domain.failures import ToolMissingError, TransportError
from pairbench.engine.install_hint import install_words
from pairbench.engine.transports import Connector
from pairbench.library import LibraryError
from pairbench.remote.base import Transport
from pairbench.tools.registry import TOOLS

# The version command of every tool Pairbench knows, from the tool records.
VERSION_COMMANDS: dict[str, list[str]] = {name: tool.version_argv for name, tool in TOOLS.items()}


@dataclass
class HostCheck:
    """What preflight found on one host."""

    name: str
    reachable: bool = False
    error: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)  # tool -> how to install it


@dataclass
class PairCheck:
    """What preflight found for a pair; ``problems`` are one-line, actionable messages."""

    pair: str
    client: HostCheck
    server: HostCheck
    data_path_ok: bool | None = None
    data_path_rtt_ms: float | None = None
    clock_offset_s: float | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Both hosts reachable and the data path works."""
        return self.client.reachable and self.server.reachable and bool(self.data_path_ok)


async def check_pair(pair: HostPair, connector: Connector, *, tool: str | None = None) -> PairCheck:
    """Check a pair; never raises for host problems (they are reported in the result)."""
    result = PairCheck(pair.name, HostCheck(pair.client.name), HostCheck(pair.server.name))
    client = await _connect(pair.client.name, pair, connector, result.client, role="client")
    server = await _connect(pair.server.name, pair, connector, result.server, role="server")
    for transport, check in ((client, result.client), (server, result.server)):
        if transport is not None:
            await _versions(transport, check)
    if client is not None:
        result.data_path_ok, result.data_path_rtt_ms = await _ping(client, pair.target_address)
        if not result.data_path_ok:
            result.problems.append(
                f"{pair.client.name} cannot reach the server's data address "
                f"{pair.target_address} (ping failed)"
            )
    if client is not None and server is not None:
        same = client is server
        result.clock_offset_s = 0.0 if same else await _clock_offset(client, server)
    for check in (result.client, result.server):
        if check.error:
            result.problems.append(check.error)
        for name, hint in check.missing.items():
            needed = tool is not None and name == tool
            words = "needed for this run" if needed else "not needed unless you run it"
            result.problems.append(f"{name} is missing on {check.name} ({words}): {hint}")
    return result


async def _connect(
    name: str, pair: HostPair, connector: Connector, check: HostCheck, role: str
) -> Transport | None:
    host = pair.client if role == "client" else pair.server
    try:
        transport = await connector.transport(host)
    except (TransportError, LibraryError, OSError, ValueError) as exc:
        check.error = str(exc) if isinstance(exc, TransportError) else f"host {name}: {exc}"
        return None
    check.reachable = True
    return transport


async def _versions(transport: Transport, check: HostCheck) -> None:
    for name, argv in VERSION_COMMANDS.items():
        try:
            result = await transport.run(argv, timeout_s=10)
        except ToolMissingError:
            check.missing[name] = install_words(name, check.name)
            continue
        except (TransportError, TimeoutError, OSError) as exc:
            check.versions[name] = f"? ({exc})"
            continue
        text = (result.stdout or result.stderr).strip()
        first = text.splitlines()[0] if text else ""
        if result.exit_status == 127:
            check.missing[name] = install_words(name, check.name)
        else:
            check.versions[name] = first[:120]


async def _ping(transport: Transport, address: str) -> tuple[bool, float | None]:
    argv = ["ping", "-c", "5", "-i", "0.2", "-W", "2", "-n", address]
    try:
        result = await transport.run(argv, timeout_s=10)
    except (TransportError, TimeoutError, OSError):
        return False, None
    if result.exit_status != 0:
        return False, None
    # "rtt min/avg/max/mdev = 0.035/0.048/0.061/0.009 ms": the mean of five pings.
    for line in result.stdout.splitlines():
        if line.startswith(("rtt ", "round-trip")) and "=" in line:
            try:
                return True, float(line.split("=", 1)[1].split("/")[1])
            except (IndexError, ValueError):
                break
    return True, None


async def _clock_offset(a: Transport, b: Transport) -> float | None:
    """Offset of b's clock relative to a's, from round-trip-corrected ``date`` readings."""

    async def reading(transport: Transport) -> float | None:
        sent = time.time()
        try:
            result = await transport.run(["date", "+%s.%N"], timeout_s=5)
        except (TransportError, TimeoutError, OSError):
            return None
        received = time.time()
        try:
            return float(result.stdout.strip()) - (sent + received) / 2
        except ValueError:
            return None

    first, second = await asyncio.gather(reading(a), reading(b))
    if first is None or second is None:
        return None
    return second - first
