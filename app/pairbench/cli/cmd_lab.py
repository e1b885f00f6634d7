"""``pairbench lab up|shape|status|down``: the network lab of real hosts on this machine (root)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Iterable

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.domain.host_text import key_fingerprint
from pairbench.lab import LabError, Shaping, manager, parse_shaping, vendor
from pairbench.lab.info import LabInfo, LabStatus
from pairbench.services.lab_hosts import key_changes, register_lab
from pairbench.services.library import LibraryError

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
        register_lab(lib, info)
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
