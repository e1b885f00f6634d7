"""``pairbench lab up|shape|status|down``: the network lab of real hosts on this machine (root)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Iterable
from dataclasses import dataclass

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.domain.failures import HostKeyChangedError
from pairbench.domain.host_text import key_fingerprint
from pairbench.lab import LabError, Shaping, manager, parse_shaping, vendor
from pairbench.lab.info import LabInfo, LabStatus
from pairbench.library import Library, LibraryError
from pairbench.library.hosts import (
    add_host,
    add_pair,
    get_host,
    get_pair,
    pin_host_key,
    pinned_host_keys,
    replace_host,
    replace_pair,
    unpin_host_keys,
)
from pairbench.remote.host_keys import LAB_REPIN

TRY = "try: pairbench run --pair lab --tool iperf3 --set duration=5"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``lab`` and its subcommands."""
    p = sub.add_parser(
        "lab",
        help="a network lab of real hosts on this machine (needs root)",
        description="Network namespaces joined by a shaped link, each running its own sshd, "
        "registered as the pair 'lab'.",
    )
    lab_sub = p.add_subparsers(dest="lab_command", required=True, metavar="up|shape|status|down")
    p_up = lab_sub.add_parser("up", help="create the lab (or reshape a running one)")
    _shaping_options(p_up)
    p_up.add_argument("--json", action="store_true", help="print the lab's details as JSON")
    p_up.add_argument(
        "--repin-keys",
        action="store_true",
        help="pin the lab hosts' current host keys even where other keys are pinned "
        "(after you changed a lab host key yourself); without it a changed key is refused",
    )
    p_up.add_argument(
        "--iperf3",
        metavar="3.21|system",
        help="which iperf3 the lab hosts run: 3.21 (built by `make setup` into the tools cache) "
        "or system (the host's package) on both, or per host: client=3.21,server=system "
        "(default: system; uperf's build is always available)",
    )
    p_up.set_defaults(handler=handle_up)
    p_shape = lab_sub.add_parser(
        "shape", help="change the link's shaping; aspects not given become unshaped"
    )
    _shaping_options(p_shape)
    p_shape.add_argument("--json", action="store_true")
    p_shape.set_defaults(handler=handle_shape)
    p_status = lab_sub.add_parser("status", help="is the lab up and healthy")
    p_status.add_argument("--json", action="store_true")
    p_status.set_defaults(handler=handle_status)
    p_down = lab_sub.add_parser("down", help="remove the lab entirely")
    p_down.set_defaults(handler=handle_down)


def _shaping_options(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("shaping of the data link (client → server unless noted)")
    group.add_argument("--rate", metavar="RATE", help="e.g. 200mbit, 1gbit, 50M (TCP goodput)")
    group.add_argument("--delay", metavar="TIME", help="one-way delay each way, e.g. 0.7ms, 5ms")
    group.add_argument("--jitter", metavar="TIME", help="± on the delay, e.g. 1ms (needs --delay)")
    group.add_argument("--loss", metavar="PERCENT", help="packet loss, e.g. 0.5%%")
    group.add_argument(
        "--burst-rate", metavar="RATE", help="burst emulation: this rate until --bucket drains"
    )
    group.add_argument("--bucket", metavar="SIZE", help="burst credit in bytes, e.g. 500MB")


def _shaping(args: argparse.Namespace) -> Shaping:
    return parse_shaping(
        rate=args.rate,
        delay=args.delay,
        jitter=args.jitter,
        loss=args.loss,
        burst_rate=args.burst_rate,
        bucket=args.bucket,
    )


@dataclass(frozen=True, slots=True)
class KeyChange:
    """A lab host whose pinned host keys do not include the key it offers now."""

    host: str
    pinned: tuple[str, ...]  # key lines
    offered: str  # key line

    def error(self, refusing: str) -> HostKeyChangedError:
        """The changed-key error every command gives, with both fingerprints."""
        return HostKeyChangedError(
            self.host,
            [key_fingerprint(k) for k in self.pinned],
            key_fingerprint(self.offered),
            refusing=refusing,
            remedy=LAB_REPIN,
        )


def key_changes(lib: Library, info: LabInfo) -> list[KeyChange]:
    """The lab hosts registered in ``lib`` with pinned keys other than the key they offer.

    The key a lab host offers is its sshd's host key file (the only ``HostKey`` of its
    sshd_config). A host with nothing pinned (or not registered) is not a change.
    """
    changes = []
    for lab_host in (info.client, info.server):
        pinned = pinned_host_keys(lib, lab_host.name) if _host_exists(lib, lab_host.name) else []
        if pinned and lab_host.host_key not in pinned:
            changes.append(KeyChange(lab_host.name, tuple(pinned), lab_host.host_key))
    return changes


def register(lib: Library, info: LabInfo) -> None:
    """Store (or update) hosts ``lab-client``, ``lab-server`` and pair ``lab``; pin host keys.

    The pins are replaced by the lab's current keys: callers check ``key_changes`` first.
    """
    lib.conn.execute("BEGIN IMMEDIATE")
    try:
        for lab_host in (info.client, info.server):
            host = lab_host.to_host()
            if _host_exists(lib, host.name):
                replace_host(lib, host)
            else:
                add_host(lib, host)
            unpin_host_keys(lib, host.name)
            pin_host_key(lib, host.name, lab_host.host_key)
        pair = info.to_pair()
        if _pair_exists(lib, pair.name):
            replace_pair(lib, pair)
        else:
            add_pair(lib, pair)
        lib.conn.execute("COMMIT")
    except BaseException:
        lib.conn.execute("ROLLBACK")
        raise


def _host_exists(lib: Library, name: str) -> bool:
    try:
        get_host(lib, name)
    except LibraryError:
        return False
    return True


def _pair_exists(lib: Library, name: str) -> bool:
    try:
        get_pair(lib, name)
    except LibraryError:
        return False
    return True


def _print_info(env: Environment, info: LabInfo, verb: str) -> None:
    env.out(f"lab {verb}: pair 'lab' = {info.client.name} → {info.server.name}")
    for host in (info.client, info.server):
        env.out(
            f"  {host.name:<11} ssh {host.user}@{host.address} (namespace {host.namespace}, "
            f"data {host.data_address})"
        )
    env.out(f"  key         {info.client.key_path}")
    env.out(f"  shaping     {info.shaping.describe()}")
    uperf = vendor.find(vendor.UPERF)
    uperf_text = f"uperf {vendor.UPERF.version} ({uperf})" if uperf else "no uperf (not built)"
    env.out(f"  tools       {info.tools.describe()}; {uperf_text}")
    if info.impairment == "delayline" and (info.shaping.delay or info.shaping.loss):
        env.out("              (delay/loss by the lab's delay line: this kernel has no netem)")
    env.out(TRY)


def handle_up(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Bring the lab up and register its hosts and pair in the library.

    A lab host offering a key other than the one pinned is refused (nothing is written to the
    library) unless ``--repin-keys`` was given; keys this ``lab up`` made itself (a lab built
    from nothing) replace the pins of the earlier lab, saying so.
    """
    try:
        shaping = _shaping(args)
        tools = vendor.parse_iperf3_choice(args.iperf3)
        result = manager.up(shaping, tools=tools)
    except LabError as exc:
        env.err(f"pairbench: {exc}")
        return ExitStatus.ERROR
    info = result.info
    with env.open_library() as lib:
        changes = key_changes(lib, info)
        refused = [c for c in changes if c.host not in result.new_host_keys]
        if refused and not args.repin_keys:
            for change in refused:
                env.err(f"pairbench: {change.error('refusing to pin it')}")
            env.err(
                "pairbench: the lab is up, but runs on it refuse the changed key until it is "
                "re-pinned (`pairbench lab status` lists the problem)"
            )
            return ExitStatus.ERROR
        register(lib, info)
    note = env.err if args.json else env.out
    for change in changes:
        old = ", ".join(key_fingerprint(k) for k in change.pinned)
        new = key_fingerprint(change.offered)
        why = "new lab: pinned the new" if change.host in result.new_host_keys else "re-pinned the"
        note(f"{why} host key of {change.host}: {new} (was {old})")
    if args.json:
        env.out(json.dumps(info.to_json()))
    else:
        _print_info(env, info, "up")
    return ExitStatus.OK


def handle_shape(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Change the shaping of the running lab."""
    try:
        info = manager.shape(_shaping(args))
    except LabError as exc:
        env.err(f"pairbench: {exc}")
        return ExitStatus.ERROR
    if args.json:
        env.out(json.dumps(info.to_json()))
    else:
        env.out(f"lab shaped: {info.shaping.describe()}")
    return ExitStatus.OK


def handle_status(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Report whether the lab is up and healthy; exit 1 when it is up but broken.

    Besides the lab itself, the library's pins are checked: a lab host whose pinned key is not
    the key it offers makes the lab unhealthy (every run on it would be refused).
    """
    try:
        status = manager.status()
    except LabError as exc:
        env.err(f"pairbench: {exc}")
        return ExitStatus.ERROR
    if status.info is not None:
        status = _with_problems(status, _pin_problems(env, status.info))
    if args.json:
        env.out(json.dumps(status.to_json()))
    else:
        _print_status(env, status)
    return ExitStatus.ERROR if status.up and not status.healthy else ExitStatus.OK


def _pin_problems(env: Environment, info: LabInfo) -> list[str]:
    """Changed host keys as status problems (none when there is no library to check yet)."""
    if not env.resolve_library_path().exists():
        return []  # `lab status` creates no library; `lab up` registers the lab in one
    try:
        with env.open_library() as lib:
            changes = key_changes(lib, info)
    except LibraryError as exc:
        return [f"cannot check the pinned host keys: {exc}"]
    return [str(c.error("runs refuse to connect")) for c in changes]


def _with_problems(status: LabStatus, problems: Iterable[str]) -> LabStatus:
    extra = tuple(problems)
    return dataclasses.replace(status, problems=status.problems + extra) if extra else status


def _print_status(env: Environment, status: LabStatus) -> None:
    if not status.up:
        env.out("lab: down")
    else:
        env.out("lab: up, healthy" if status.healthy else "lab: up, BROKEN")
    for problem in status.problems:
        env.out(f"  problem: {problem}")
    if status.info is not None:
        env.out(f"  shaping     {status.info.shaping.describe()} ({status.info.impairment})")
        env.out(f"  tools       {status.info.tools.describe()}")
        for host in (status.info.client, status.info.server):
            env.out(
                f"  {host.name:<11} {host.user}@{host.address}:{host.port}"
                f"  data {host.data_address}"
            )
    for process in status.processes:
        state = f"pid {process.pid}" if process.alive else "NOT RUNNING"
        env.out(f"  {process.name:<11} in {process.namespace}: {state}")
    for role, lines in status.qdiscs.items():
        for line in lines:
            env.out(f"  qdisc {role:<6} {line}")


def handle_down(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Remove the lab (its hosts and pair stay in the library, with the runs that used them)."""
    try:
        manager.down()
    except LabError as exc:
        env.err(f"pairbench: {exc}")
        return ExitStatus.ERROR
    env.out("lab down: namespaces, links, processes and /run/pairbench-lab removed")
    return ExitStatus.OK
