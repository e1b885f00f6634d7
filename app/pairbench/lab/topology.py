"""The lab's fixed names and addresses: two hosts, their management links, the data path.

The data path runs client ``data`` → ``pbl-wan`` → server ``data``: the wan namespace is a
transparent router (proxy ARP, so the hosts share 10.213.0.0/24 as on one link) where the delay
line works on kernels without netem (see ``delayline.py``); it forwards only between its two
ports and has no other route, so nothing leaves the machine.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

PREFIX = "pbl-"
LAB_NETWORK = ipaddress.ip_network("10.213.0.0/16")
DATA_DEV = "data"
MGMT_DEV = "mgmt"
SSH_PORT = 22
SSH_USER = "root"
PAIR_NAME = "lab"


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


WAN_NAMESPACE = "pbl-wan"
WAN_ADDRESS = "10.213.0.254"

CLIENT = Node(
    role="client",
    host_name="lab-client",
    namespace="pbl-client",
    root_dev="pbl-c0",
    root_address="10.213.1.1",
    address="10.213.1.2",
    mgmt_prefix=30,
    data_address="10.213.0.1",
    data_prefix=24,
)
SERVER = Node(
    role="server",
    host_name="lab-server",
    namespace="pbl-server",
    root_dev="pbl-s0",
    root_address="10.213.2.1",
    address="10.213.2.2",
    mgmt_prefix=30,
    data_address="10.213.0.2",
    data_prefix=24,
)
NODES = (CLIENT, SERVER)

# Packets arriving on a port travel in its direction: from the client = forward.
WAN_CLIENT_PORT = WanPort("client", CLIENT.data_address, "forward", 0)
WAN_SERVER_PORT = WanPort("server", SERVER.data_address, "reverse", 1)
WAN_PORTS = (WAN_CLIENT_PORT, WAN_SERVER_PORT)
