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

The single lab is pair index 0 of the same ``PairTopology`` type. Those are the default lab's
names; a separate lab instance (``instance.py``, ``PAIRBENCH_LAB_INSTANCE``) has its own prefix
and address spaces, laid out the same way. Each function takes the instance (default: the
current one).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from pairbench.lab.instance import DEFAULT_PREFIX, LabInstance, current

MAX_PAIRS = 8
IFNAMSIZ = 15  # the longest interface name Linux accepts (16 bytes with the NUL)
DATA_DEV = "data"
MGMT_DEV = "mgmt"
SSH_PORT = 22
SSH_USER = "root"
PAIR_NAME = "lab"
DIRECTIONS = ("forward", "reverse")  # of the wan ports: client → server, server → client


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
    prefix: str = DEFAULT_PREFIX  # its lab instance's name prefix

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
            WanPort("client", self.client.data_address, DIRECTIONS[0], 0),
            WanPort("server", self.server.data_address, DIRECTIONS[1], 1),
        )

    @property
    def zone(self) -> str | None:
        """The pair's zone tag (``z1`` … ``zN``); None for the single lab."""
        return f"z{self.index}" if self.index else None

    def family_owns(self, name: str) -> bool:
        """True when a namespace or root link of this name belongs to this topology's lab."""
        if self.index == 0:
            return name in (*self.namespaces, *self.root_devs)
        return _multi_index(name, self.prefix) is not None


def multi_index(name: str, instance: LabInstance | None = None) -> int | None:
    """The pair index in a multi-pair lab's namespace or link name (``pbl-3c0`` → 3), else None."""
    return _multi_index(name, (instance or current()).prefix)


def _multi_index(name: str, prefix: str) -> int | None:
    # Every name of a multi-pair lab's pair: namespaces pbl-3c, pbl-3s, pbl-3w, root links pbl-3c0
    match = re.fullmatch(re.escape(prefix) + r"([1-9][0-9]*)[csw]0?", name)
    return int(match.group(1)) if match else None


def _node(
    role: str, host_name: str, namespace: str, root_dev: str, mgmt_base: str, data: str, prefix: int
) -> Node:
    """A node whose /30 management link starts at ``mgmt_base`` (root .1, namespace .2)."""
    base = ipaddress.ip_address(mgmt_base)
    return Node(
        role, host_name, namespace, root_dev, str(base + 1), str(base + 2), 30, data, prefix
    )


def single(instance: LabInstance | None = None) -> PairTopology:
    """The single lab (``lab up``) of ``instance`` (default: the current one): pair ``lab``,
    namespaces ``PREFIXclient``/``PREFIXserver``/``PREFIXwan``, root links ``PREFIXc0``/
    ``PREFIXs0``; data link .0.1 → .0.2/24, management /30s at .1.0 and .2.0, wan at .0.254."""
    inst = instance or current()
    pre, net = inst.prefix, inst.lab_network.network_address
    client = _node(
        "client", "lab-client", f"{pre}client", f"{pre}c0", str(net + 256), str(net + 1), 24
    )
    server = _node(
        "server", "lab-server", f"{pre}server", f"{pre}s0", str(net + 512), str(net + 2), 24
    )
    wan = str(net + 254)
    return PairTopology(PAIR_NAME, client, server, f"{pre}wan", wan, inst.lab_network, 0, pre)


def pair_name(index: int) -> str:
    """The name of pair ``index`` of the multi-pair lab: ``lab1``, ``lab2`` …"""
    return f"{PAIR_NAME}{index}"


def pair_topology(index: int, instance: LabInstance | None = None) -> PairTopology:
    """Pair ``index`` (1 … ``MAX_PAIRS``) of the multi-pair lab of ``instance`` (default: the
    current one)."""
    if not 1 <= index <= MAX_PAIRS:
        raise ValueError(f"a lab pair index is 1 to {MAX_PAIRS}, got {index}")
    inst = instance or current()
    pre, network = inst.prefix, inst.multi_network
    base = network.network_address + 256 * index
    net = str(base).rsplit(".", 1)[0]
    pair = pair_name(index)
    client = _node(
        "client",
        f"{pair}-client",
        f"{pre}{index}c",
        f"{pre}{index}c0",
        f"{net}.128",
        f"{net}.1",
        25,
    )
    server = _node(
        "server",
        f"{pair}-server",
        f"{pre}{index}s",
        f"{pre}{index}s0",
        f"{net}.132",
        f"{net}.2",
        25,
    )
    return PairTopology(pair, client, server, f"{pre}{index}w", f"{net}.126", network, index, pre)
