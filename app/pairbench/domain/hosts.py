"""Hosts a benchmark runs on, and the client/server pairs that tie two of them together."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field


class AuthMethod(enum.StrEnum):
    """How Pairbench logs in to a host; ``LOCAL`` runs on this computer without SSH."""

    LOCAL = "local"
    AGENT = "agent"
    KEY = "key"
    PASSWORD = "password"


@dataclass(frozen=True, slots=True)
class Host:
    """A machine Pairbench can start tools on."""

    name: str
    address: str
    port: int = 22
    user: str | None = None
    auth: AuthMethod = AuthMethod.AGENT
    key_path: str | None = None
    jump: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)

    @property
    def is_local(self) -> bool:
        """True for the built-in "This computer" host."""
        return self.auth is AuthMethod.LOCAL


@dataclass(frozen=True, slots=True)
class HostPair:
    """A client and a server host; ``data_address`` is where the client sends traffic."""

    name: str
    client: Host
    server: Host
    data_address: str | None = None
    description: str = ""
    tags: Mapping[str, str] = field(default_factory=dict)

    @property
    def target_address(self) -> str:
        """The address the client connects to: the data address, else the server's address."""
        return self.data_address or self.server.address


LOCAL_HOST = Host(name="localhost", address="127.0.0.1", auth=AuthMethod.LOCAL)
LOCAL_PAIR = HostPair(
    name="local",
    client=LOCAL_HOST,
    server=LOCAL_HOST,
    data_address="127.0.0.1",
    description="This computer",
)
