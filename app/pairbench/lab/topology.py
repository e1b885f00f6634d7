"""The lab's names and addresses: per pair two hosts, their management links, the data path.

The data path runs client ``data`` → wan namespace → server ``data``: the wan namespace is a
transparent router (proxy ARP, so the hosts share the data subnet as on one link) where the delay
line works on kernels without netem (see ``delayline.py``); it forwards only between its two
ports and has no other route, so nothing leaves the machine.

Two labs can be up at once and never share a name or an address:

* the single lab (``lab up``): pair ``lab``, namespaces ``pbl-client``/``pbl-server``/``pbl-wan``,
  root links ``pbl-c0``/``pbl-s0``, addresses in 10.213.0.0/16;
* the multi-pair lab (``lab up --pairs N``): pairs ``lab1`` … ``labN``; pair K has namespaces
  ``pbl-Kc``/``pbl-Ks``/``pbl-Kw``, root links ``pbl-Kc0``/``pbl-Ks0``, addresses in
  10.214.K.0/24 (data 10.214.K.1 → 10.214.K.2 on a /25, management /30s above .128).

The single lab is pair index 0 of the same ``PairTopology`` type; its names are fixed.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

PREFIX = "pbl-"
LAB_NETWORK = ipaddress.ip_network("10.213.0.0/16")
MULTI_NETWORK = ipaddress.ip_network("10.214.0.0/16")
MAX_PAIRS = 8
IFNAMSIZ = 15  # the longest interface name Linux accepts (16 bytes with the NUL)
DATA_DEV = "data"
MGMT_DEV = "mgmt"
SSH_PORT = 22
SSH_USER = "root"
PAIR_NAME = "lab"
# Every name of a multi-pair lab's pair: namespaces pbl-3c, pbl-3s, pbl-3w, root links pbl-3c0...
_MULTI_NAME = re.compile(r"pbl-([1-9][0-9]*)[csw]0?")


@dataclass(frozen=True, slots=True)
class Node:
    """One lab host: its namespace, its management link to the root namespace, its data address."""

    role: str
    host_name: str
    namespace: str
    root_dev: str
    root_address: str
    address: str
    mgmt_prefix: int
    data_address: str
    data_prefix: int

    @property
    def root_cidr(self) -> str:
        """The root side of the management link, e.g. ``10.213.1.1/30``."""
        return f"{self.root_address}/{self.mgmt_prefix}"

    @property
    def mgmt_cidr(self) -> str:
        """The namespace side of the management link, e.g. ``10.213.1.2/30``."""
        return f"{self.address}/{self.mgmt_prefix}"

    @property
    def data_cidr(self) -> str:
        """The data link address with its prefix, e.g. ``10.213.0.1/24``."""
        return f"{self.data_address}/{self.data_prefix}"


@dataclass(frozen=True, slots=True)
class WanPort:
    """One port of the wan namespace: the peer of a host's ``data`` interface."""

    name: str
    peer_address: str
    direction: str
    queue: int


@dataclass(frozen=True, slots=True)
class PairTopology:
    """One pair of lab hosts and the wan namespace between them (``index`` 0: the single lab)."""

    pair: str
    client: Node
    server: Node
    wan_namespace: str
    wan_address: str
    network: ipaddress.IPv4Network | ipaddress.IPv6Network  # its lab's address space
    index: int = 0

    @property
    def nodes(self) -> tuple[Node, Node]:
        """Client and server."""
        return (self.client, self.server)

    @property
    def namespaces(self) -> tuple[str, str, str]:
        """The client's, the server's and the wan namespace."""
        return (self.client.namespace, self.server.namespace, self.wan_namespace)

    @property
    def root_devs(self) -> tuple[str, str]:
        """The management links' ends in the root namespace."""
        return (self.client.root_dev, self.server.root_dev)

    @property
    def ports(self) -> tuple[WanPort, WanPort]:
        """The wan ports; packets arriving on a port travel in its direction (client: forward)."""
        return (
            WanPort("client", self.client.data_address, "forward", 0),
            WanPort("server", self.server.data_address, "reverse", 1),
        )

    @property
    def zone(self) -> str | None:
        """The pair's zone tag (``z1`` … ``zN``); None for the single lab."""
        return f"z{self.index}" if self.index else None

    def family_owns(self, name: str) -> bool:
        """True when a namespace or root link of this name belongs to this topology's lab."""
        if self.index == 0:
            return name in SINGLE_NAMES
        return multi_index(name) is not None


def multi_index(name: str) -> int | None:
    """The pair index in a multi-pair lab's namespace or link name (``pbl-3c0`` → 3), else None."""
    match = _MULTI_NAME.fullmatch(name)
    return int(match.group(1)) if match else None


def _node(
    role: str, host_name: str, namespace: str, root_dev: str, mgmt_base: str, data: str, prefix: int
) -> Node:
    """A node whose /30 management link starts at ``mgmt_base`` (root .1, namespace .2)."""
    base = ipaddress.ip_address(mgmt_base)
    return Node(
        role, host_name, namespace, root_dev, str(base + 1), str(base + 2), 30, data, prefix
    )


WAN_NAMESPACE = "pbl-wan"
WAN_ADDRESS = "10.213.0.254"
CLIENT = _node("client", "lab-client", "pbl-client", "pbl-c0", "10.213.1.0", "10.213.0.1", 24)
SERVER = _node("server", "lab-server", "pbl-server", "pbl-s0", "10.213.2.0", "10.213.0.2", 24)
NODES = (CLIENT, SERVER)
SINGLE = PairTopology(PAIR_NAME, CLIENT, SERVER, WAN_NAMESPACE, WAN_ADDRESS, LAB_NETWORK)
SINGLE_NAMES = frozenset((*SINGLE.namespaces, *SINGLE.root_devs))
WAN_CLIENT_PORT, WAN_SERVER_PORT = SINGLE.ports
WAN_PORTS = SINGLE.ports


def pair_name(index: int) -> str:
    """The name of pair ``index`` of the multi-pair lab: ``lab1``, ``lab2`` …"""
    return f"{PAIR_NAME}{index}"


def pair_topology(index: int) -> PairTopology:
    """Pair ``index`` (1 … ``MAX_PAIRS``) of the multi-pair lab."""
    if not 1 <= index <= MAX_PAIRS:
        raise ValueError(f"a lab pair index is 1 to {MAX_PAIRS}, got {index}")
    net = f"10.214.{index}"
    pair = pair_name(index)
    client = _node(
        "client", f"{pair}-client", f"pbl-{index}c", f"pbl-{index}c0", f"{net}.128", f"{net}.1", 25
    )
    server = _node(
        "server", f"{pair}-server", f"pbl-{index}s", f"pbl-{index}s0", f"{net}.132", f"{net}.2", 25
    )
    return PairTopology(pair, client, server, f"pbl-{index}w", f"{net}.126", MULTI_NETWORK, index)
