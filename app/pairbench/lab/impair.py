"""Shaping the data path: tc qdiscs, and netem or (without it) the delay line daemons."""

from __future__ import annotations

import sys

from pairbench.lab.errors import LabError
from pairbench.lab.netns import in_netns, tc_in
from pairbench.lab.processes import alive_with, kill_pids
from pairbench.lab.runner import run
from pairbench.lab.shaping import (
    Impairment,
    Shaping,
    client_qdisc_commands,
    forward_impairment,
    reverse_impairment,
    server_qdisc_commands,
    tc_delete_root,
)
from pairbench.lab.state import LabPaths, read_pid
from pairbench.lab.topology import DATA_DEV, DIRECTIONS, Node, PairTopology, WanPort

NETEM = "netem"
DELAYLINE = "delayline"
DELAYLINE_MODULE = "pairbench.lab.delayline"
_NO_QDISC = ("handle of zero", "No such file or directory", "Invalid handle")


def netem_available(namespace: str) -> bool:
    """True when the kernel has sch_netem (tried on the namespace's loopback, then removed)."""
    probe = ["tc", "qdisc", "add", "dev", "lo", "root", "handle", "1:", "netem", "delay", "1ms"]
    try:
        run(tc_in(namespace, probe))
    except LabError as exc:
        if "unknown" in str(exc).lower():
            return False
        raise
    run(tc_in(namespace, tc_delete_root("lo")), ok_errors=_NO_QDISC)
    return True


def apply(shaping: Shaping, backend: str, paths: LabPaths, topo: PairTopology) -> None:
    """Replace the shaping of both directions of a pair's data path."""
    stop_delay_lines(paths)
    use_netem = backend == NETEM
    for node, commands in (
        (topo.client, client_qdisc_commands(shaping, DATA_DEV, netem=use_netem)),
        (topo.server, server_qdisc_commands(shaping, DATA_DEV, netem=use_netem)),
    ):
        run(tc_in(node.namespace, tc_delete_root(DATA_DEV)), ok_errors=_NO_QDISC)
        for argv in commands:
            run(tc_in(node.namespace, argv))
    for port in expected_delay_lines(shaping, backend, topo):
        impairment = _impairment(shaping, port)
        assert impairment is not None
        start_delay_line(port, impairment, paths, topo.wan_namespace)


def _impairment(shaping: Shaping, port: WanPort) -> Impairment | None:
    if port.direction == "forward":
        return forward_impairment(shaping)
    return reverse_impairment(shaping)


def expected_delay_lines(shaping: Shaping, backend: str, topo: PairTopology) -> list[WanPort]:
    """The wan ports whose arriving packets a delay line must impair (none with netem)."""
    if backend == NETEM:
        return []
    return [port for port in topo.ports if _impairment(shaping, port) is not None]


def start_delay_line(port: WanPort, impairment: Impairment, paths: LabPaths, namespace: str) -> int:
    """Start the delay line for packets arriving on a wan port; its pid once it is ready."""
    pidfile = paths.delayline_pid(port.direction)
    log = paths.delayline_log(port.direction)
    pidfile.unlink(missing_ok=True)
    argv = [
        sys.executable, "-m", DELAYLINE_MODULE,
        "--iface", port.name,
        "--queue", str(port.queue),
        "--delay-us", str(impairment.delay_us),
        "--jitter-us", str(impairment.jitter_us),
        "--loss-percent", str(impairment.loss_percent),
        "--pidfile", str(pidfile),
        "--log", str(log),
    ]  # fmt: skip
    run(in_netns(namespace, argv), log_file=log)
    pid = read_pid(pidfile)
    if pid is None or not alive_with(pid, DELAYLINE_MODULE):
        raise LabError(f"the {port.direction} delay line did not start (see {log})")
    return pid


def delay_line_pid(port: WanPort, paths: LabPaths) -> int | None:
    """The pid of the delay line serving a wan port, or None when it does not run."""
    return _delay_line_pid(port.direction, paths)


def _delay_line_pid(direction: str, paths: LabPaths) -> int | None:
    pid = read_pid(paths.delayline_pid(direction))
    return pid if alive_with(pid, DELAYLINE_MODULE) else None


def stop_delay_lines(paths: LabPaths) -> None:
    """Stop both delay lines (their queue rules go with them)."""
    for direction in DIRECTIONS:
        pid = _delay_line_pid(direction, paths)
        if pid is not None:
            kill_pids([pid])
        paths.delayline_pid(direction).unlink(missing_ok=True)


def qdisc_summary(node: Node) -> list[str]:
    """``tc qdisc show dev data`` in the node's namespace, one line per qdisc."""
    try:
        out = run(tc_in(node.namespace, ["tc", "qdisc", "show", "dev", DATA_DEV]))
    except LabError as exc:
        return [str(exc)]
    return [line.strip() for line in out.splitlines() if line.strip()]
