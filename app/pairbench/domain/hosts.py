"""Hosts a benchmark runs on, and the client/server pairs that tie two of them together."""

from __future__ import annotations

import dataclasses
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
class SSHOptions:
    """How an OpenSSH client config says to log in to a host, trust its key and reach it
    (kept by ``hosts import-ssh-config``; empty for a host added by hand).

    ``identity_files`` are tried in order after the agent's keys (only they with
    ``identities_only``) when the host logs in with ``AuthMethod.AGENT``. ``known_hosts``
    None means Pairbench's default (``~/.ssh/known_hosts``), ``()`` none. The host is reached
    either directly, or through ``jumps`` (ProxyJump hops, first connected first; only the
    first may have a ``proxy_command``), or through its ``proxy_command`` (run as written,
    through the user's shell, with ssh's ``%h %p %r %n %k`` tokens).
    """

    identity_files: tuple[str, ...] = ()
    certificate_files: tuple[str, ...] = ()
    identities_only: bool = False
    identity_agent: str | None = None  # a socket path, "none", or an environment variable
    known_hosts: tuple[str, ...] | None = None
    host_key_alias: str | None = None
    accept_new_host_keys: bool = False  # StrictHostKeyChecking accept-new (or no)
    proxy_command: str | None = None
    jumps: tuple[Host, ...] = ()

    @property
    def empty(self) -> bool:
        """True when nothing is set (a host added by hand)."""
        return self == NO_SSH_OPTIONS


NO_SSH_OPTIONS = SSHOptions()


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
    ssh: SSHOptions = NO_SSH_OPTIONS

    @property
    def is_local(self) -> bool:
        """True for the built-in "This computer" host."""
        return self.auth is AuthMethod.LOCAL

    def with_jump(self, jump: str | None) -> Host:
        """This host reached through the stored host ``jump`` (or directly when None): the
        ProxyJump hops and ProxyCommand its config gave are dropped."""
        ssh = dataclasses.replace(self.ssh, jumps=(), proxy_command=None)
        return dataclasses.replace(self, jump=jump, ssh=ssh)


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

# Names that mean this computer wherever a host or a pair is named: the built-in pair, its
# host, and ``--host local`` (a storage suite here). No other host or pair may take one, in
# any letter case (``domain.validation.check_new_name``).
RESERVED_NAMES = frozenset({LOCAL_PAIR.name, LOCAL_HOST.name})


def is_reserved_name(name: str) -> bool:
    """Whether ``name`` is one of ``RESERVED_NAMES``, in any letter case."""
    return name.casefold() in RESERVED_NAMES


def is_builtin_host(host: Host) -> bool:
    """The built-in host: this computer, under its own name."""
    return host.is_local and host.name == LOCAL_HOST.name


def is_builtin_pair(pair: HostPair) -> bool:
    """The built-in pair ``local``: this computer to itself."""
    return pair.name == LOCAL_PAIR.name and pair.client.is_local and pair.server.is_local
