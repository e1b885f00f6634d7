"""Connections for a run: one transport per host, SSH or local, with host keys and secrets.

A host is reached directly, through its stored jump host (``--jump``, itself reached the same
way), through the ProxyJump hops kept with it (each connected through the one before; the
first one may run a ProxyCommand), or through its own ProxyCommand.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from pairbench.domain import Host
from pairbench.domain.failures import TransportError
from pairbench.library import Library
from pairbench.library.hosts import get_host, pin_host_key, pinned_host_keys
from pairbench.remote.base import Transport
from pairbench.remote.host_keys import HostKeyPolicy, default_known_hosts
from pairbench.remote.local import LocalTransport
from pairbench.remote.secrets import NoPrompt, SecretPrompt
from pairbench.remote.ssh import SSHTransport


class Connector:
    """Opens and caches one transport per host; pins newly accepted host keys."""

    def __init__(
        self,
        lib: Library,
        *,
        secrets: SecretPrompt | None = None,
        accept_new_host_key: bool = False,
    ) -> None:
        self._lib = lib
        self._secrets = secrets or NoPrompt()
        self._accept_new = accept_new_host_key
        self._transports: dict[str, Transport] = {}
        self._opened: list[Transport] = []

    async def transport(self, host: Host) -> Transport:
        """The connected transport for ``host`` (connecting on first use)."""
        cached = self._transports.get(host.name)
        if cached is not None:
            return cached
        if host.is_local:
            transport: Transport = LocalTransport()
        else:
            transport = await self._ssh(host, seen=set())
        self._transports[host.name] = transport
        return transport

    async def _ssh(self, host: Host, seen: set[str]) -> SSHTransport:
        if host.name in seen:
            raise TransportError(f"host {host.name}: jump hosts form a loop")
        seen.add(host.name)
        jump = None
        if host.jump:
            jump_host = get_host(self._lib, host.jump)
            jump = await self._ssh(jump_host, seen)
        for hop in host.ssh.jumps:
            jump = await self._open(hop, jump)
        return await self._open(host, jump)

    async def _open(self, host: Host, jump: SSHTransport | None) -> SSHTransport:
        """Connect to one host (through ``jump`` when given), pinning a key accepted."""
        options = host.ssh
        known = (
            default_known_hosts()
            if options.known_hosts is None
            else tuple(Path(p) for p in options.known_hosts)
        )
        policy = HostKeyPolicy(
            pinned=pinned_host_keys(self._lib, host.name),
            accept_new=self._accept_new or options.accept_new_host_keys,
            known_hosts=known,
            host_key_alias=options.host_key_alias,
        )
        transport = SSHTransport(host, policy, secrets=self._secrets, jump=jump)
        self._opened.append(transport)
        try:
            await transport.connect()
        finally:
            # The user accepted the key even if the login then failed: keep it pinned.
            if policy.accepted:
                pin_host_key(self._lib, host.name, policy.accepted)
        return transport

    async def forget(self, *hosts: Host) -> None:
        """Close and drop these hosts' connections (after a failure): the next run connects
        afresh, so a host that came back is reached again."""
        for host in hosts:
            transport = self._transports.pop(host.name, None)
            if transport is None:
                continue
            if transport in self._opened:
                self._opened.remove(transport)
            with contextlib.suppress(Exception):
                await transport.close()

    async def close(self) -> None:
        """Close every connection."""
        for transport in reversed(self._opened):
            with contextlib.suppress(Exception):
                await transport.close()
        self._opened.clear()
        self._transports.clear()
