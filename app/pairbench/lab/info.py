"""What the lab tells its users: how to reach each host (LabInfo), how it stands (LabStatus)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pairbench.domain import AuthMethod, Host, HostPair
from pairbench.lab.pair_shaping import shaping_tags
from pairbench.lab.shaping import Shaping
from pairbench.lab.topology import PAIR_NAME
from pairbench.lab.vendor import LabTools

PAIR_DESCRIPTION = "Pairbench network lab"
MULTI = "multi"  # the ``lab`` tag of the multi-pair lab's pairs


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
    zone: str | None = None  # multi-pair lab only: z1 … zN

    def to_host(self) -> Host:
        """The library's view of this host (key login as root, tagged ``lab=true``, and its
        ``zone`` in the multi-pair lab)."""
        tags = {"lab": "true"} if self.zone is None else {"lab": "true", "zone": self.zone}
        return Host(
            name=self.name,
            address=self.address,
            port=self.port,
            user=self.user,
            auth=AuthMethod.KEY,
            key_path=self.key_path,
            tags=tags,
        )

    def known_hosts_line(self) -> str:
        """The host's pinned key in OpenSSH known_hosts form: ``10.213.2.2 ssh-ed25519 AAAA...``."""
        host = self.address if self.port == 22 else f"[{self.address}]:{self.port}"
        return f"{host} {self.host_key}"

    def to_json(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (``zone`` only in the multi-pair lab)."""
        data: dict[str, Any] = {
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
        if self.zone is not None:
            data["zone"] = self.zone
        return data


@dataclass(frozen=True, slots=True)
class LabInfo:
    """Everything needed to use a running lab pair: both hosts, the shaping and how it is applied.

    ``pair`` is ``lab`` for the single lab, ``lab1`` … for the multi-pair lab (whose pairs have a
    ``zone``).
    """

    client: LabHost
    server: LabHost
    shaping: Shaping
    impairment: str
    state_dir: str
    tools: LabTools = field(default_factory=LabTools)
    pair: str = PAIR_NAME
    zone: str | None = None

    @property
    def tags(self) -> dict[str, str]:
        """The pair's tags: ``cloud=lab``; in the multi-pair lab also ``lab=multi``, its ``zone``
        and its shaping (``rate``, ``delay``, ``jitter``, ``loss``, ``burst_rate``, ``bucket``:
        those set)."""
        if self.zone is None:
            return {"cloud": "lab"}
        return {"cloud": "lab", "lab": MULTI, "zone": self.zone, **shaping_tags(self.shaping)}

    def to_pair(self) -> HostPair:
        """The pair: client → server over the data link (``lab``: 10.213.0.2)."""
        description = PAIR_DESCRIPTION
        if self.zone is not None:
            description = f"{PAIR_DESCRIPTION}, zone {self.zone}: {self.shaping.describe()}"
        return HostPair(
            name=self.pair,
            client=self.client.to_host(),
            server=self.server.to_host(),
            data_address=self.server.data_address,
            description=description,
            tags=self.tags,
        )

    def to_json(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return {
            "pair": self.pair,
            "data_address": self.server.data_address,
            "tags": self.tags,
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
