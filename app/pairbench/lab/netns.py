"""Network namespaces, veth links, addresses and routes, through ``ip`` and ``tc`` argv lists."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from pairbench.lab.errors import LabError
from pairbench.lab.runner import run
from pairbench.lab.topology import (
    DATA_DEV,
    LAB_NETWORK,
    MGMT_DEV,
    NODES,
    PREFIX,
    WAN_ADDRESS,
    WAN_CLIENT_PORT,
    WAN_NAMESPACE,
    WAN_PORTS,
    WAN_SERVER_PORT,
    Node,
)

_ROUTE_TYPES = frozenset(
    ("local", "broadcast", "unicast", "anycast", "multicast", "blackhole", "unreachable",
     "prohibit", "throw", "nat")
)  # fmt: skip
_GONE = ("Cannot find device", "No such file or directory", "No such device")


def in_netns(namespace: str, argv: Sequence[str]) -> list[str]:
    """``argv`` run inside a namespace (``ip netns exec NS ...``)."""
    return ["ip", "netns", "exec", namespace, *argv]


def tc_in(namespace: str, argv: Sequence[str]) -> list[str]:
    """A ``tc ...`` argv aimed at a namespace (``tc -n NS ...``)."""
    if not argv or argv[0] != "tc":
        raise ValueError(f"not a tc command: {argv!r}")
    return ["tc", "-n", namespace, *argv[1:]]


def list_namespaces() -> list[str]:
    """Names of all named network namespaces (``ip netns list``)."""
    out = run(["ip", "netns", "list"])
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def lab_namespaces() -> list[str]:
    """The namespaces that carry the lab's prefix."""
    return [name for name in list_namespaces() if name.startswith(PREFIX)]


def list_links(namespace: str | None = None) -> list[str]:
    """Interface names in the root namespace or in ``namespace``."""
    argv = (
        ["ip", "-o", "link", "show"]
        if namespace is None
        else ["ip", "-n", namespace, "-o", "link", "show"]
    )
    names = []
    for line in run(argv).splitlines():
        parts = line.split(":", 2)
        if len(parts) >= 2:
            names.append(parts[1].strip().split("@", 1)[0])
    return names


def lab_root_links() -> list[str]:
    """The lab's veth ends in the root namespace."""
    return [name for name in list_links() if name.startswith(PREFIX)]


def link_is_up(name: str, namespace: str | None = None) -> bool:
    """True when the interface exists and is administratively up."""
    base = ["ip"] if namespace is None else ["ip", "-n", namespace]
    try:
        out = run([*base, "-o", "link", "show", "dev", name])
    except LabError:
        return False
    flags = out.split("<", 1)[1].split(">", 1)[0].split(",") if "<" in out else []
    return "UP" in flags


def check_address_space() -> None:
    """Refuse when 10.213.0.0/16 is routed or assigned in the root namespace by someone else."""
    ours = {node.root_dev for node in NODES}
    for line in run(["ip", "-o", "-4", "route", "show", "table", "all"]).splitlines():
        tokens = line.split()
        if not tokens:
            continue
        target = tokens[1] if tokens[0] in _ROUTE_TYPES else tokens[0]
        if target == "default":
            continue
        dev = tokens[tokens.index("dev") + 1] if "dev" in tokens[:-1] else ""
        if dev in ours:
            continue
        try:
            network = ipaddress.ip_network(target, strict=False)
        except ValueError:
            continue
        if network.prefixlen > 0 and network.overlaps(LAB_NETWORK):
            raise LabError(
                f"{LAB_NETWORK} is already in use on this machine (route: {line.strip()}); "
                "the lab needs it: remove that route or interface first"
            )


def create_topology() -> None:
    """The namespaces, the management links to the root namespace, and the data path."""
    for namespace in (*(node.namespace for node in NODES), WAN_NAMESPACE):
        run(["ip", "netns", "add", namespace])
    for node in NODES:
        run(["ip", "link", "add", node.root_dev, "type", "veth", "peer", "name", MGMT_DEV,
             "netns", node.namespace])  # fmt: skip
    for node, port in zip(NODES, WAN_PORTS, strict=True):
        run(["ip", "link", "add", DATA_DEV, "netns", node.namespace, "type", "veth", "peer",
             "name", port.name, "netns", WAN_NAMESPACE])  # fmt: skip
    for node in NODES:
        _configure(node)
    _configure_wan()


def _configure(node: Node) -> None:
    ns = ["ip", "-n", node.namespace]
    run(["ip", "addr", "add", node.root_cidr, "dev", node.root_dev])
    run(["ip", "link", "set", node.root_dev, "up"])
    run([*ns, "link", "set", "lo", "up"])
    run([*ns, "addr", "add", node.mgmt_cidr, "dev", MGMT_DEV])
    run([*ns, "link", "set", MGMT_DEV, "up"])
    run([*ns, "addr", "add", node.data_cidr, "dev", DATA_DEV])
    run([*ns, "link", "set", DATA_DEV, "up"])


def _configure_wan() -> None:
    """Forward between the two ports only, answering ARP for the host on the other side."""
    ns = ["ip", "-n", WAN_NAMESPACE]
    run([*ns, "link", "set", "lo", "up"])
    for port, other in ((WAN_CLIENT_PORT, WAN_SERVER_PORT), (WAN_SERVER_PORT, WAN_CLIENT_PORT)):
        run([*ns, "addr", "add", f"{WAN_ADDRESS}/32", "dev", port.name])
        run([*ns, "link", "set", port.name, "up"])
        run([*ns, "route", "add", f"{port.peer_address}/32", "dev", port.name])
        run([*ns, "neigh", "add", "proxy", other.peer_address, "dev", port.name])
        # Proxy ARP answers after a random delay of up to 0.8 s unless told otherwise.
        run([*ns, "ntable", "change", "name", "arp_cache", "dev", port.name, "proxy_delay", "0"])
    run(in_netns(WAN_NAMESPACE, ["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"]))
    _pin_neighbours()


def _mac(dev: str, namespace: str) -> str:
    out = run(["ip", "-n", namespace, "-o", "link", "show", "dev", dev])
    tokens = out.split()
    if "link/ether" not in tokens[:-1]:
        raise LabError(f"no MAC address on {dev} in {namespace}: {out.strip()}")
    return tokens[tokens.index("link/ether") + 1]


def _pin_neighbours() -> None:
    """Permanent ARP entries along the data path: no ARP exchange ever adds to a measurement."""
    for node, port in zip(NODES, WAN_PORTS, strict=True):
        other = WAN_SERVER_PORT if port is WAN_CLIENT_PORT else WAN_CLIENT_PORT
        host_mac = _mac(DATA_DEV, node.namespace)
        port_mac = _mac(port.name, WAN_NAMESPACE)
        run(["ip", "-n", node.namespace, "neigh", "replace", other.peer_address, "lladdr",
             port_mac, "dev", DATA_DEV, "nud", "permanent"])  # fmt: skip
        run(["ip", "-n", WAN_NAMESPACE, "neigh", "replace", port.peer_address, "lladdr",
             host_mac, "dev", port.name, "nud", "permanent"])  # fmt: skip


def topology_problems() -> list[str]:
    """What is missing from a running lab's network (empty when all is in place)."""
    problems = []
    namespaces = set(list_namespaces())
    for node in NODES:
        if node.namespace not in namespaces:
            problems.append(f"namespace {node.namespace} is missing")
            continue
        if not link_is_up(node.root_dev):
            problems.append(f"link {node.root_dev} is missing or down")
        for dev in (MGMT_DEV, DATA_DEV):
            if not link_is_up(dev, node.namespace):
                problems.append(f"link {dev} in {node.namespace} is missing or down")
    if WAN_NAMESPACE not in namespaces:
        problems.append(f"namespace {WAN_NAMESPACE} is missing")
    else:
        for port in WAN_PORTS:
            if not link_is_up(port.name, WAN_NAMESPACE):
                problems.append(f"link {port.name} in {WAN_NAMESPACE} is missing or down")
    return problems


def namespace_pids(namespace: str) -> list[int]:
    """Processes living in a namespace (``ip netns pids``); none when it is gone."""
    try:
        out = run(["ip", "netns", "pids", namespace], ok_errors=_GONE)
    except LabError:
        return []
    return [int(token) for token in out.split() if token.isdigit()]


def delete_link(name: str) -> None:
    """Remove a root-namespace link (and its veth peer)."""
    run(["ip", "link", "del", name], ok_errors=_GONE)


def delete_namespace(name: str) -> None:
    """Remove a namespace (its links go with it)."""
    run(["ip", "netns", "del", name], ok_errors=_GONE)
