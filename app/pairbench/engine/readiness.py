"""Knowing when a server is ready: its own words, or its port accepting connections."""

from __future__ import annotations

import asyncio
import socket
import time

from pairbench.domain.failures import TransportError
from pairbench.remote.base import Transport

# ss prints one line per listening socket on that port (no header with -H).
_LISTENING_ARGV = ["sh", "-c", 'ss -Hltnu "sport = :$1" 2>/dev/null', "sh"]
POLL_PERIOD_S = 0.2


async def port_listening(transport: Transport, port: int) -> bool:
    """True when something listens on ``port`` (TCP or UDP) on the transport's host."""
    try:
        result = await transport.run([*_LISTENING_ARGV, str(port)], timeout_s=5)
    except (TransportError, TimeoutError, OSError):
        return False
    return bool(result.stdout.strip())


async def wait_port_listening(transport: Transport, port: int, timeout_s: float) -> bool:
    """Poll (bounded by ``timeout_s``) until ``port`` listens on the host."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if await port_listening(transport, port):
            return True
        await asyncio.sleep(POLL_PERIOD_S)
    return False


def local_free_port(preferred: int) -> int:
    """``preferred`` if nothing listens on it on this computer, else a free port from the OS."""
    for port in (preferred, 0):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(sock.getsockname()[1])
    return preferred


# How many blocks of ports ``local_free_ports`` tries before it settles for one free port.
FREE_BLOCK_TRIES = 20


def local_free_ports(preferred: int, count: int) -> int:
    """The first of ``count`` consecutive ports that nothing listens on on this computer:
    ``preferred`` if its block is free, else a block from a port the OS picks."""
    start = preferred
    for _attempt in range(FREE_BLOCK_TRIES):
        start = local_free_port(start)
        block = range(start + 1, start + count)
        if start + count <= 65536 and all(local_free_port(q) == q for q in block):
            return start
        start = local_free_port(0)
    return local_free_port(preferred)
