"""Choosing the transport for a host."""

from __future__ import annotations

from pairbench.domain import Host
from pairbench.remote.base import Transport, TransportError
from pairbench.remote.local import LocalTransport


def open_transport(host: Host) -> Transport:
    """A transport that runs programs on ``host``."""
    if host.is_local:
        return LocalTransport()
    raise TransportError(f"host {host.name}: SSH hosts are not supported yet; use the 'local' pair")
