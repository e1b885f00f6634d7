"""What the lab tells its users: how to reach each host (LabInfo), how it stands (LabStatus)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pairbench.domain import AuthMethod, Host, HostPair
from pairbench.lab.shaping import Shaping
from pairbench.lab.topology import PAIR_NAME
from pairbench.lab.vendor import LabTools

PAIR_DESCRIPTION = "Pairbench network lab"


@dataclass(frozen=True, slots=True)
class LabHost:
    """One lab host as an SSH client sees it, plus its address on the data link."""

    role: str
    name: str
    namespace: str
    address: str
    port: int
    user: str
    key_path: str
    host_key: str
    data_address: str

    def to_host(self) -> Host:
        """The library's view of this host (key login as root, tagged ``lab=true``)."""
        return Host(
            name=self.name,
            address=self.address,
            port=self.port,
            user=self.user,
            auth=AuthMethod.KEY,
            key_path=self.key_path,
            tags={"lab": "true"},
        )

    def known_hosts_line(self) -> str:
        """The host's pinned key in OpenSSH known_hosts form: ``10.213.2.2 ssh-ed25519 AAAA...``."""
        host = self.address if self.port == 22 else f"[{self.address}]:{self.port}"
        return f"{host} {self.host_key}"

    def to_json(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return {
            "role": self.role,
            "name": self.name,
            "namespace": self.namespace,
            "address": self.address,
            "port": self.port,
            "user": self.user,
            "key_path": self.key_path,
            "host_key": self.host_key,
            "data_address": self.data_address,
        }


@dataclass(frozen=True, slots=True)
class LabInfo:
    """Everything needed to use a running lab: both hosts, the shaping and how it is applied."""

    client: LabHost
    server: LabHost
    shaping: Shaping
    impairment: str
    state_dir: str
    tools: LabTools = field(default_factory=LabTools)

    def to_pair(self) -> HostPair:
        """The pair ``lab``: client → server over the data link (10.213.0.2)."""
        return HostPair(
            name=PAIR_NAME,
            client=self.client.to_host(),
            server=self.server.to_host(),
            data_address=self.server.data_address,
            description=PAIR_DESCRIPTION,
            tags={"cloud": "lab"},
        )

    def to_json(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return {
            "pair": PAIR_NAME,
            "client": self.client.to_json(),
            "server": self.server.to_json(),
            "shaping": self.shaping.to_json(),
            "impairment": self.impairment,
            "state_dir": self.state_dir,
            "tools": {"iperf3": self.tools.to_json()},
        }


@dataclass(frozen=True, slots=True)
class LabUp:
    """What ``lab up`` did: the lab it left, and which hosts got host keys made just now.

    A host key made by this ``lab up`` (a lab built from nothing: the first time, after
    ``lab down`` or a reboot) is a new identity the lab itself created, so pinning it replaces
    the pins of the earlier lab. A key that was already there must match the pinned one.
    """

    info: LabInfo
    new_host_keys: frozenset[str] = frozenset()  # host names (``lab-client``, ``lab-server``)


@dataclass(frozen=True, slots=True)
class ProcessStatus:
    """One lab process: what it is, where, its pid when alive."""

    name: str
    namespace: str
    pid: int | None

    @property
    def alive(self) -> bool:
        """True when the process runs."""
        return self.pid is not None


@dataclass(frozen=True, slots=True)
class LabStatus:
    """How the lab stands: up or not, healthy or not (and why), its processes and qdiscs."""

    up: bool
    problems: tuple[str, ...] = ()
    info: LabInfo | None = None
    processes: tuple[ProcessStatus, ...] = ()
    qdiscs: dict[str, list[str]] = field(default_factory=dict)

    @property
    def healthy(self) -> bool:
        """True when the lab is up and nothing is missing."""
        return self.up and not self.problems

    def to_json(self) -> dict[str, Any]:
        """The status as a JSON-ready dict (``pairbench lab status --json``)."""
        return {
            "up": self.up,
            "healthy": self.healthy,
            "problems": list(self.problems),
            "info": None if self.info is None else self.info.to_json(),
            "processes": [
                {"name": p.name, "namespace": p.namespace, "pid": p.pid, "alive": p.alive}
                for p in self.processes
            ],
            "qdiscs": self.qdiscs,
        }
