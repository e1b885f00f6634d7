"""The lab's use cases: bring it up (idempotently), reshape its link, report on it, tear it down."""

from __future__ import annotations

import os
import shutil
import time
from typing import Any

from pairbench.lab import impair, netns, sshd, vendor
from pairbench.lab.errors import LabError
from pairbench.lab.info import LabHost, LabInfo, LabStatus, LabUp, ProcessStatus
from pairbench.lab.processes import alive_with, kill_pids, pids_mentioning
from pairbench.lab.runner import run
from pairbench.lab.shaping import Shaping
from pairbench.lab.state import LabPaths, exclusive, load_state, read_pid, save_state
from pairbench.lab.topology import (
    CLIENT,
    NODES,
    SERVER,
    SSH_PORT,
    SSH_USER,
    WAN_NAMESPACE,
    Node,
)

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
    """Bring the lab up with this shaping and these tools; the lab, and the hosts whose keys
    were made now.

    A healthy lab only gets the new shaping (same keys, same processes; a host whose tools
    changed gets its sshd restarted with the new PATH); a partial one (after a crash) is torn
    down and rebuilt with the keys it had. A failure while building leaves nothing behind.
    Pinning the host keys is the caller's (it holds the library).
    """
    paths = paths or LabPaths()
    tools = tools or vendor.LabTools()
    require_root()
    require_tools()
    host_paths = {node.role: vendor.host_path(tools.iperf3(node.role)) for node in NODES}
    with exclusive():
        return _up(shaping, paths, tools, host_paths)


def _up(
    shaping: Shaping, paths: LabPaths, tools: vendor.LabTools, host_paths: dict[str, str]
) -> LabUp:
    state = load_state(paths)
    if state is not None and not _problems(state, paths, check_delay_lines=False):
        backend = str(state["impairment"])
        for node in NODES:
            if not sshd.config_current(node, paths, host_paths[node.role]):
                sshd.stop(node, paths)
                sshd.start(node, paths, host_paths[node.role])
        impair.apply(shaping, backend, paths)
        return LabUp(_save(paths, shaping, backend, state, tools, host_paths))
    _teardown(paths, keep_keys=True)
    try:
        netns.check_address_space()
        paths.make()
        new_keys = _make_keys(paths)
        netns.create_topology()
        backend = impair.NETEM if impair.netem_available(CLIENT.namespace) else impair.DELAYLINE
        for node in NODES:
            sshd.start(node, paths, host_paths[node.role])
        impair.apply(shaping, backend, paths)
        return LabUp(_save(paths, shaping, backend, None, tools, host_paths), new_keys)
    except BaseException:
        _teardown(paths, keep_keys=False)
        raise


def shape(shaping: Shaping, paths: LabPaths | None = None) -> LabInfo:
    """Change the shaping of a running lab (aspects not given are unshaped)."""
    paths = paths or LabPaths()
    require_root()
    with exclusive():
        return _shape(shaping, paths)


def _shape(shaping: Shaping, paths: LabPaths) -> LabInfo:
    state = load_state(paths)
    if state is None:
        raise LabError(NOT_UP)
    problems = _problems(state, paths, check_delay_lines=False)
    if problems:
        raise LabError(f"the lab is broken ({'; '.join(problems)}): run `pairbench lab up`")
    backend = str(state["impairment"])
    impair.apply(shaping, backend, paths)
    return _save(paths, shaping, backend, state, *_saved_tools(state))


def status(paths: LabPaths | None = None) -> LabStatus:
    """How the lab stands; never raises for a broken lab (that is what it reports)."""
    paths = paths or LabPaths()
    require_root()
    state = load_state(paths)
    if state is None:
        leftovers = netns.lab_namespaces() + netns.lab_root_links()
        problems: tuple[str, ...] = (
            f"leftovers of a lab: {', '.join(leftovers)}: run `pairbench lab down`",
        )
        return LabStatus(up=False, problems=problems if leftovers else ())
    tools = vendor.LabTools.from_json(state.get("tools"))
    info = _info(
        paths, Shaping.from_json(state.get("shaping", {})), str(state["impairment"]), tools
    )
    processes = [
        ProcessStatus("sshd", node.namespace, sshd.running_pid(node, paths)) for node in NODES
    ]
    for port in impair.expected_delay_lines(info.shaping, info.impairment):
        name = f"delayline ({port.direction})"
        processes.append(ProcessStatus(name, WAN_NAMESPACE, impair.delay_line_pid(port, paths)))
    qdiscs = {node.role: impair.qdisc_summary(node) for node in NODES}
    problems = tuple(_problems(state, paths))
    return LabStatus(True, problems, info, tuple(processes), qdiscs)


def down(paths: LabPaths | None = None) -> None:
    """Remove every namespace, link, process and file of the lab (found by name if need be)."""
    paths = paths or LabPaths()
    require_root()
    with exclusive():
        _teardown(paths, keep_keys=False)


def _make_keys(paths: LabPaths) -> frozenset[str]:
    """Make the keys that are missing; the names of the hosts whose host key was made now."""
    sshd.ensure_key(paths.user_key, "pairbench-lab-user")
    paths.authorized_keys.write_text(sshd.public_key_line(paths.user_key) + " pairbench-lab\n")
    return frozenset(
        node.host_name
        for node in NODES
        if sshd.ensure_key(paths.host_key(node.role), f"pairbench-{node.host_name}")
    )


def _host(node: Node, paths: LabPaths) -> LabHost:
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
    )


def _info(paths: LabPaths, shaping: Shaping, backend: str, tools: vendor.LabTools) -> LabInfo:
    return LabInfo(
        client=_host(CLIENT, paths),
        server=_host(SERVER, paths),
        shaping=shaping,
        impairment=backend,
        state_dir=str(paths.root),
        tools=tools,
    )


def _saved_tools(state: dict[str, Any]) -> tuple[vendor.LabTools, dict[str, str]]:
    """The tool choices and host PATHs a state holds (an older state: the system's tools)."""
    saved = state.get("host_paths")
    host_paths = {k: str(v) for k, v in saved.items()} if isinstance(saved, dict) else {}
    return vendor.LabTools.from_json(state.get("tools")), host_paths


def _save(
    paths: LabPaths,
    shaping: Shaping,
    backend: str,
    old: dict[str, Any] | None,
    tools: vendor.LabTools,
    host_paths: dict[str, str],
) -> LabInfo:
    info = _info(paths, shaping, backend, tools)
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


def _problems(state: dict[str, Any], paths: LabPaths, check_delay_lines: bool = True) -> list[str]:
    """What keeps a lab with this state from working (empty when healthy)."""
    if state.get("impairment") not in (impair.NETEM, impair.DELAYLINE):
        return ["the state file is incomplete"]
    problems = netns.topology_problems()
    for path in (paths.user_key, paths.authorized_keys):
        if not path.exists():
            problems.append(f"{path} is missing")
    for node in NODES:
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
        for port in impair.expected_delay_lines(shaping, str(state["impairment"])):
            if impair.delay_line_pid(port, paths) is None:
                problems.append(f"the {port.direction} delay line is not running")
    return problems


def _teardown(paths: LabPaths, keep_keys: bool) -> None:
    """Stop and remove everything the lab made; ``keep_keys`` keeps the key files for a rebuild."""
    impair.stop_delay_lines(paths)
    pids: set[int] = set()
    for namespace in netns.lab_namespaces():
        pids.update(netns.namespace_pids(namespace))
    root = str(paths.root)
    for node in NODES:
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
        netns.delete_link(link)
    for namespace in netns.lab_namespaces():
        netns.delete_namespace(namespace)
    if not keep_keys:
        paths.remove()
        return
    paths.state_file.unlink(missing_ok=True)
    for node in NODES:
        paths.sshd_pid(node.role).unlink(missing_ok=True)
