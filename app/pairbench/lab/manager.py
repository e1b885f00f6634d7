"""The lab's use cases: bring it up (idempotently), reshape its link, report on it, tear it down."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from typing import Any

from pairbench.lab import impair, netns, sshd, vendor
from pairbench.lab.errors import LabError
from pairbench.lab.info import LabHost, LabInfo, LabStatus, LabUp, ProcessStatus
from pairbench.lab.processes import alive_with, kill_pids, pids_mentioning
from pairbench.lab.runner import run
from pairbench.lab.shaping import Shaping
from pairbench.lab.state import LabPaths, exclusive, load_state, read_pid, save_state
from pairbench.lab.topology import SSH_PORT, SSH_USER, Node, PairTopology, single

NOT_UP = "the lab is not up: run `pairbench lab up` first"


def require_root() -> None:
    """``LabError`` unless this process runs as root."""
    if os.geteuid() != 0:
        raise LabError("the lab needs root: run as root (sudo)")


def require_tools() -> None:
    """``LabError`` naming the package to install when ip, tc, ssh-keygen or sshd is missing."""
    for program, package in (
        ("ip", "iproute2"),
        ("tc", "iproute2"),
        ("sysctl", "procps"),
        ("ssh-keygen", "openssh-client"),
    ):
        if shutil.which(program) is None:
            raise LabError(f"{program} is not installed: apt-get install {package}")
    sshd.sshd_program()
    try:
        run(["ip", "netns", "list"])
    except LabError as exc:
        raise LabError(f"`ip netns` does not work here ({exc}): apt-get install iproute2") from exc


def up(
    shaping: Shaping, paths: LabPaths | None = None, tools: vendor.LabTools | None = None
) -> LabUp:
    """Bring the (single) lab up with this shaping and these tools; see ``up_pair``."""
    paths = paths or LabPaths()
    tools = tools or vendor.LabTools()
    require_root()
    require_tools()
    with exclusive():
        return up_pair(single(), shaping, paths, tools, session_paths(tools))


def session_paths(tools: vendor.LabTools) -> dict[str, str]:
    """The PATH of each role's sessions for these tool choices."""
    return {role: vendor.host_path(tools.iperf3(role)) for role in ("client", "server")}


def up_pair(
    topo: PairTopology,
    shaping: Shaping,
    paths: LabPaths,
    tools: vendor.LabTools,
    host_paths: dict[str, str],
) -> LabUp:
    """Bring one lab pair up (the caller holds the lock); the pair, and the hosts whose keys
    were made now.

    A healthy lab only gets the new shaping (same keys, same processes; a host whose tools
    changed gets its sshd restarted with the new PATH); a partial one (after a crash) is torn
    down and rebuilt with the keys it had. A failure while building leaves nothing behind.
    Pinning the host keys is the caller's (it holds the library).
    """
    state = load_state(paths)
    if state is not None and not _problems(topo, state, paths, check_delay_lines=False):
        backend = str(state["impairment"])
        for node in topo.nodes:
            if not sshd.config_current(node, paths, host_paths[node.role]):
                sshd.stop(node, paths)
                sshd.start(node, paths, host_paths[node.role])
        impair.apply(shaping, backend, paths, topo)
        return LabUp(_save(topo, paths, shaping, backend, state, tools, host_paths))
    teardown_pair(topo, paths, keep_keys=True)
    try:
        netns.check_address_space(topo)
        paths.make()
        new_keys = _make_keys(topo, paths)
        netns.create_topology(topo)
        netem = impair.netem_available(topo.client.namespace)
        backend = impair.NETEM if netem else impair.DELAYLINE
        for node in topo.nodes:
            sshd.start(node, paths, host_paths[node.role])
        impair.apply(shaping, backend, paths, topo)
        return LabUp(_save(topo, paths, shaping, backend, None, tools, host_paths), new_keys)
    except BaseException:
        teardown_pair(topo, paths, keep_keys=False)
        raise


def shape(shaping: Shaping, paths: LabPaths | None = None) -> LabInfo:
    """Change the shaping of the running (single) lab (aspects not given are unshaped)."""
    paths = paths or LabPaths()
    require_root()
    with exclusive():
        return shape_pair(single(), shaping, paths)


def shape_pair(topo: PairTopology, shaping: Shaping, paths: LabPaths) -> LabInfo:
    """Change the shaping of a running lab pair (the caller holds the lock)."""
    state = load_state(paths)
    if state is None:
        raise LabError(NOT_UP if topo.index == 0 else f"lab pair {topo.pair} is not up")
    problems = _problems(topo, state, paths, check_delay_lines=False)
    if problems:
        again = "pairbench lab up" if topo.index == 0 else "pairbench lab up --pairs N"
        raise LabError(f"the lab{_of(topo)} is broken ({'; '.join(problems)}): run `{again}`")
    backend = str(state["impairment"])
    impair.apply(shaping, backend, paths, topo)
    return _save(topo, paths, shaping, backend, state, *_saved_tools(state))


def _of(topo: PairTopology) -> str:
    return "" if topo.index == 0 else f" pair {topo.pair}"


def status(paths: LabPaths | None = None) -> LabStatus:
    """How the (single) lab stands; never raises for a broken lab (that is what it reports)."""
    paths = paths or LabPaths()
    require_root()
    return status_pair(single(), paths)


def status_pair(topo: PairTopology, paths: LabPaths) -> LabStatus:
    """How a lab pair stands (its namespaces and links found by name when it has no state)."""
    state = load_state(paths)
    if state is None:
        leftovers = [n for n in netns.lab_namespaces() + netns.lab_root_links() if n in names(topo)]
        problems: tuple[str, ...] = (
            f"leftovers of a lab: {', '.join(leftovers)}: run `pairbench lab down`",
        )
        return LabStatus(up=False, problems=problems if leftovers else ())
    tools = vendor.LabTools.from_json(state.get("tools"))
    shaping = Shaping.from_json(state.get("shaping", {}))
    info = _info(topo, paths, shaping, str(state["impairment"]), tools)
    processes = [
        ProcessStatus("sshd", node.namespace, sshd.running_pid(node, paths)) for node in topo.nodes
    ]
    for port in impair.expected_delay_lines(info.shaping, info.impairment, topo):
        name = f"delayline ({port.direction})"
        pid = impair.delay_line_pid(port, paths)
        processes.append(ProcessStatus(name, topo.wan_namespace, pid))
    qdiscs = {node.role: impair.qdisc_summary(node) for node in topo.nodes}
    problems = tuple(_problems(topo, state, paths))
    return LabStatus(True, problems, info, tuple(processes), qdiscs)


def names(topo: PairTopology) -> frozenset[str]:
    """The pair's namespaces and root links."""
    return frozenset((*topo.namespaces, *topo.root_devs))


def down(paths: LabPaths | None = None) -> None:
    """Remove every namespace, link, process and file of the (single) lab."""
    paths = paths or LabPaths()
    require_root()
    with exclusive():
        teardown_pair(single(), paths, keep_keys=False)


def _make_keys(topo: PairTopology, paths: LabPaths) -> frozenset[str]:
    """Make the keys that are missing; the names of the hosts whose host key was made now."""
    sshd.ensure_key(paths.user_key, "pairbench-lab-user")
    paths.authorized_keys.write_text(sshd.public_key_line(paths.user_key) + " pairbench-lab\n")
    return frozenset(
        node.host_name
        for node in topo.nodes
        if sshd.ensure_key(paths.host_key(node.role), f"pairbench-{node.host_name}")
    )


def _host(topo: PairTopology, node: Node, paths: LabPaths) -> LabHost:
    return LabHost(
        role=node.role,
        name=node.host_name,
        namespace=node.namespace,
        address=node.address,
        port=SSH_PORT,
        user=SSH_USER,
        key_path=str(paths.user_key),
        host_key=sshd.public_key_line(paths.host_key(node.role)),
        data_address=node.data_address,
        zone=topo.zone,
    )


def _info(
    topo: PairTopology, paths: LabPaths, shaping: Shaping, backend: str, tools: vendor.LabTools
) -> LabInfo:
    return LabInfo(
        client=_host(topo, topo.client, paths),
        server=_host(topo, topo.server, paths),
        shaping=shaping,
        impairment=backend,
        state_dir=str(paths.root),
        tools=tools,
        pair=topo.pair,
        zone=topo.zone,
    )


def _saved_tools(state: dict[str, Any]) -> tuple[vendor.LabTools, dict[str, str]]:
    """The tool choices and host PATHs a state holds (an older state: the system's tools)."""
    saved = state.get("host_paths")
    host_paths = {k: str(v) for k, v in saved.items()} if isinstance(saved, dict) else {}
    return vendor.LabTools.from_json(state.get("tools")), host_paths


def _save(
    topo: PairTopology,
    paths: LabPaths,
    shaping: Shaping,
    backend: str,
    old: dict[str, Any] | None,
    tools: vendor.LabTools,
    host_paths: dict[str, str],
) -> LabInfo:
    info = _info(topo, paths, shaping, backend, tools)
    created = old.get("created_at") if old else None
    save_state(
        paths,
        {
            "created_at": created if isinstance(created, float) else time.time(),
            "updated_at": time.time(),
            "impairment": backend,
            "shaping": shaping.to_json(),
            "tools": tools.to_json(),
            "host_paths": host_paths,
            "user_key": str(paths.user_key),
            "client": info.client.to_json(),
            "server": info.server.to_json(),
        },
    )
    return info


def _problems(
    topo: PairTopology, state: dict[str, Any], paths: LabPaths, check_delay_lines: bool = True
) -> list[str]:
    """What keeps a lab pair with this state from working (empty when healthy)."""
    if state.get("impairment") not in (impair.NETEM, impair.DELAYLINE):
        return ["the state file is incomplete"]
    problems = netns.topology_problems(topo)
    for path in (paths.user_key, paths.authorized_keys):
        if not path.exists():
            problems.append(f"{path} is missing")
    for node in topo.nodes:
        if not sshd.public_key_path(paths.host_key(node.role)).exists():
            problems.append(f"the host key of {node.host_name} is missing")
        if sshd.running_pid(node, paths) is None:
            problems.append(f"sshd of {node.host_name} is not running")
        elif not sshd.port_open(node.address):
            problems.append(f"sshd of {node.host_name} does not accept connections")
    if check_delay_lines:
        try:
            shaping = Shaping.from_json(state.get("shaping") or {})
        except LabError as exc:
            return [*problems, f"the saved shaping is invalid: {exc}"]
        for port in impair.expected_delay_lines(shaping, str(state["impairment"]), topo):
            if impair.delay_line_pid(port, paths) is None:
                problems.append(f"the {port.direction} delay line is not running")
    return problems


def teardown_pair(topo: PairTopology, paths: LabPaths, keep_keys: bool) -> None:
    """Stop and remove everything of a lab pair (its processes found by its state directory,
    its namespaces and links by name); ``keep_keys`` keeps the key files for a rebuild."""
    impair.stop_delay_lines(paths)
    present = set(netns.lab_namespaces())
    pids: set[int] = set()
    for namespace in topo.namespaces:
        if namespace in present:
            pids.update(netns.namespace_pids(namespace))
    root = f"{paths.root}/"  # the slash: /run/pairbench-lab is a prefix of other labs' roots
    for node in topo.nodes:
        pid = read_pid(paths.sshd_pid(node.role))
        if pid is not None and alive_with(pid, root):
            pids.add(pid)
    pids.update(
        pid
        for pid in pids_mentioning(root)
        if alive_with(pid, "sshd") or alive_with(pid, impair.DELAYLINE_MODULE)
    )
    kill_pids(pids)
    for link in netns.lab_root_links():
        if link in topo.root_devs:
            netns.delete_link(link)
    for namespace in netns.lab_namespaces():
        if namespace in topo.namespaces:
            netns.delete_namespace(namespace)
    if not keep_keys:
        paths.remove()
        return
    paths.state_file.unlink(missing_ok=True)
    for node in topo.nodes:
        paths.sshd_pid(node.role).unlink(missing_ok=True)


def sweep(owned: Callable[[str], bool] = lambda _name: True) -> None:
    """Remove the lab namespaces and root links (by their name prefix) that ``owned`` accepts,
    and the processes in those namespaces: leftovers found by name only."""
    namespaces = [name for name in netns.lab_namespaces() if owned(name)]
    pids: set[int] = set()
    for namespace in namespaces:
        pids.update(netns.namespace_pids(namespace))
    kill_pids(pids)
    for link in netns.lab_root_links():
        if owned(link):
            netns.delete_link(link)
    for namespace in namespaces:
        netns.delete_namespace(namespace)
