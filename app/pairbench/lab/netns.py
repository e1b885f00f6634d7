"""Network namespaces, veth links, addresses and routes, through ``ip`` and ``tc`` argv lists."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from pairbench.lab.errors import LabError
from pairbench.lab.instance import current
from pairbench.lab.runner import run
from pairbench.lab.topology import DATA_DEV, MGMT_DEV, Node, PairTopology

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
    """The namespaces that carry the (current instance's) lab prefix."""
    prefix = current().prefix
    return [name for name in list_namespaces() if name.startswith(prefix)]


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
    """The (current instance's) lab's veth ends in the root namespace."""
    prefix = current().prefix
    return [name for name in list_links() if name.startswith(prefix)]


def link_is_up(name: str, namespace: str | None = None) -> bool:
    """True when the interface exists and is administratively up."""
    base = ["ip"] if namespace is None else ["ip", "-n", namespace]
    try:
        out = run([*base, "-o", "link", "show", "dev", name])
    except LabError:
        return False
    flags = out.split("<", 1)[1].split(">", 1)[0].split(",") if "<" in out else []
    return "UP" in flags


def check_address_space(topo: PairTopology) -> None:
    """Refuse when the lab's network (10.213.0.0/16, or 10.214.0.0/16 for the multi-pair lab) is
    routed or assigned in the root namespace by someone else than that lab."""
    for line in run(["ip", "-o", "-4", "route", "show", "table", "all"]).splitlines():
        tokens = line.split()
        if not tokens:
            continue
        target = tokens[1] if tokens[0] in _ROUTE_TYPES else tokens[0]
        if target == "default":
            continue
        dev = tokens[tokens.index("dev") + 1] if "dev" in tokens[:-1] else ""
        if dev and topo.family_owns(dev):
            continue
        try:
            network = ipaddress.ip_network(target, strict=False)
        except ValueError:
            continue
        if network.prefixlen > 0 and network.overlaps(topo.network):
            raise LabError(
                f"{topo.network} is already in use on this machine (route: {line.strip()}); "
                "the lab needs it: remove that route or interface first"
            )


def create_topology(topo: PairTopology) -> None:
    """The namespaces, the management links to the root namespace, and the data path."""
    for namespace in topo.namespaces:
        run(["ip", "netns", "add", namespace])
    for node in topo.nodes:
        run(["ip", "link", "add", node.root_dev, "type", "veth", "peer", "name", MGMT_DEV,
             "netns", node.namespace])  # fmt: skip
    for node, port in zip(topo.nodes, topo.ports, strict=True):
        run(["ip", "link", "add", DATA_DEV, "netns", node.namespace, "type", "veth", "peer",
             "name", port.name, "netns", topo.wan_namespace])  # fmt: skip
    for node in topo.nodes:
        _configure(node)
    _configure_wan(topo)


def _configure(node: Node) -> None:
    ns = ["ip", "-n", node.namespace]
    run(["ip", "addr", "add", node.root_cidr, "dev", node.root_dev])
    run(["ip", "link", "set", node.root_dev, "up"])
    run([*ns, "link", "set", "lo", "up"])
    run([*ns, "addr", "add", node.mgmt_cidr, "dev", MGMT_DEV])
    run([*ns, "link", "set", MGMT_DEV, "up"])
    run([*ns, "addr", "add", node.data_cidr, "dev", DATA_DEV])
    run([*ns, "link", "set", DATA_DEV, "up"])


def _configure_wan(topo: PairTopology) -> None:
    """Forward between the two ports only, answering ARP for the host on the other side."""
    ns = ["ip", "-n", topo.wan_namespace]
    run([*ns, "link", "set", "lo", "up"])
    client_port, server_port = topo.ports
    for port, other in ((client_port, server_port), (server_port, client_port)):
        run([*ns, "addr", "add", f"{topo.wan_address}/32", "dev", port.name])
        run([*ns, "link", "set", port.name, "up"])
        run([*ns, "route", "add", f"{port.peer_address}/32", "dev", port.name])
        run([*ns, "neigh", "add", "proxy", other.peer_address, "dev", port.name])
        # Proxy ARP answers after a random delay of up to 0.8 s unless told otherwise.
        run([*ns, "ntable", "change", "name", "arp_cache", "dev", port.name, "proxy_delay", "0"])
    run(in_netns(topo.wan_namespace, ["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"]))
    _pin_neighbours(topo)


def _mac(dev: str, namespace: str) -> str:
    out = run(["ip", "-n", namespace, "-o", "link", "show", "dev", dev])
    tokens = out.split()
    if "link/ether" not in tokens[:-1]:
        raise LabError(f"no MAC address on {dev} in {namespace}: {out.strip()}")
    return tokens[tokens.index("link/ether") + 1]


def _pin_neighbours(topo: PairTopology) -> None:
    """Permanent ARP entries along the data path: no ARP exchange ever adds to a measurement."""
    wan = topo.wan_namespace
    client_port, server_port = topo.ports
    for node, port in zip(topo.nodes, topo.ports, strict=True):
        other = server_port if port is client_port else client_port
        host_mac = _mac(DATA_DEV, node.namespace)
        port_mac = _mac(port.name, wan)
        run(["ip", "-n", node.namespace, "neigh", "replace", other.peer_address, "lladdr",
             port_mac, "dev", DATA_DEV, "nud", "permanent"])  # fmt: skip
        run(["ip", "-n", wan, "neigh", "replace", port.peer_address, "lladdr",
             host_mac, "dev", port.name, "nud", "permanent"])  # fmt: skip


def topology_problems(topo: PairTopology) -> list[str]:
    """What is missing from a running lab pair's network (empty when all is in place)."""
    problems = []
    namespaces = set(list_namespaces())
    for node in topo.nodes:
        if node.namespace not in namespaces:
            problems.append(f"namespace {node.namespace} is missing")
            continue
        if not link_is_up(node.root_dev):
            problems.append(f"link {node.root_dev} is missing or down")
        for dev in (MGMT_DEV, DATA_DEV):
            if not link_is_up(dev, node.namespace):
                problems.append(f"link {dev} in {node.namespace} is missing or down")
    wan = topo.wan_namespace
    if wan not in namespaces:
        problems.append(f"namespace {wan} is missing")
    else:
        for port in topo.ports:
            if not link_is_up(port.name, wan):
                problems.append(f"link {port.name} in {wan} is missing or down")
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
