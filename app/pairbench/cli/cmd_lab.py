"""``pairbench lab up|shape|status|down``: the network lab of real hosts on this machine (root)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Iterable

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.cli.lab_pairs import (
    pair_lines,
    pairs_json,
    pairs_status_json,
    print_pairs_status,
    shape_targets,
)
from pairbench.domain.host_text import key_fingerprint
from pairbench.lab import LabError, Shaping, instance, manager, pairs, vendor
from pairbench.lab.info import LabInfo, LabStatus
from pairbench.lab.pair_shaping import parse_pair_shapings
from pairbench.lab.topology import MAX_PAIRS
from pairbench.services.lab_hosts import KeyChange, key_changes, register_labs
from pairbench.services.library import LibraryError

TRY = "try: pairbench run --pair lab --tool iperf3 --set duration=5"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``lab`` and its subcommands."""
    p = sub.add_parser(
        "lab",
        help="a network lab of real hosts on this machine (needs root)",
        description="Network namespaces joined by a shaped link, each running its own sshd, "
        "registered as the pair 'lab' (with --pairs N: pairs lab1 … labN, tagged zone=z1 … "
        "zN, lab=multi and their shaping). Each shaping option takes one value for all pairs "
        "or a comma list with one value per pair, e.g. --rate 100mbit,200mbit,300mbit.",
    )
    lab_sub = p.add_subparsers(dest="lab_command", required=True, metavar="up|shape|status|down")
    p_up = lab_sub.add_parser("up", help="create the lab (or reshape a running one)")
    p_up.add_argument(
        "--pairs",
        type=int,
        metavar="N",
        help=f"make the multi-pair lab: pairs lab1 … labN (1 to {MAX_PAIRS}), each its own "
        "client, server and shaped link, beside the single lab 'lab'",
    )
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
    target = p_shape.add_mutually_exclusive_group()
    target.add_argument(
        "--pairs", type=int, metavar="N", help="reshape the N pairs of the multi-pair lab"
    )
    target.add_argument(
        "--pair", metavar="NAME", help="reshape one pair: labK of the multi-pair lab (or lab)"
    )
    _shaping_options(p_shape)
    p_shape.add_argument("--json", action="store_true")
    p_shape.set_defaults(handler=handle_shape)
    p_status = lab_sub.add_parser("status", help="is the lab up and healthy")
    p_status.add_argument("--json", action="store_true")
    p_status.set_defaults(handler=handle_status)
    p_down = lab_sub.add_parser("down", help="remove the lab entirely (both labs)")
    p_down.add_argument(
        "--pairs",
        action="store_true",
        help="remove only the multi-pair lab (lab1 … labN); the single lab 'lab' stays",
    )
    p_down.set_defaults(handler=handle_down)


def _shaping_options(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group(
        "shaping of the data link (client → server unless noted; with --pairs N each takes "
        "one value for all pairs or a comma list of N values, one per pair)"
    )
    group.add_argument("--rate", metavar="RATE", help="e.g. 200mbit, 1gbit, 50M (TCP goodput)")
    group.add_argument("--delay", metavar="TIME", help="one-way delay each way, e.g. 0.7ms, 5ms")
    group.add_argument("--jitter", metavar="TIME", help="± on the delay, e.g. 1ms (needs --delay)")
    group.add_argument("--loss", metavar="PERCENT", help="packet loss, e.g. 0.5%%")
    group.add_argument(
        "--burst-rate", metavar="RATE", help="burst emulation: this rate until --bucket drains"
    )
    group.add_argument("--bucket", metavar="SIZE", help="burst credit in bytes, e.g. 500MB")


def _shapings(args: argparse.Namespace, count: int) -> tuple[Shaping, ...]:
    """One shaping per pair (``count`` 1: the single lab, or the one pair of ``--pair``)."""
    return parse_pair_shapings(
        count,
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
    """Bring the lab (``--pairs N``: the multi-pair lab) up and register its hosts and pairs.

    A lab host offering a key other than the one pinned is refused (nothing is written to the
    library) unless ``--repin-keys`` was given; keys this ``lab up`` made itself (a lab built
    from nothing) replace the pins of the earlier lab, saying so.
    """
    try:
        multi = args.pairs is not None
        shapings = _shapings(args, args.pairs if multi else 1)
        tools = vendor.parse_iperf3_choice(args.iperf3)
        if multi:
            results = pairs.up(shapings, tools=tools)
        else:
            results = (manager.up(shapings[0], tools=tools),)
    except LabError as exc:
        env.err(f"pairbench: {exc}")
        return ExitStatus.ERROR
    infos = [result.info for result in results]
    new_keys = frozenset().union(*(result.new_host_keys for result in results))
    if not _register(env, args, infos, new_keys):
        return ExitStatus.ERROR
    if args.json:
        env.out(json.dumps(pairs_json(infos) if multi else infos[0].to_json()))
    elif multi:
        for line in pair_lines(infos, "up"):
            env.out(line)
    else:
        _print_info(env, infos[0], "up")
    return ExitStatus.OK


def _register(
    env: Environment, args: argparse.Namespace, infos: list[LabInfo], new_keys: frozenset[str]
) -> bool:
    """Register the lab pairs in the library unless a host offers a changed key (and
    ``--repin-keys`` was not given); False when refused."""
    with env.open_library() as lib:
        changes: list[KeyChange] = [c for info in infos for c in key_changes(lib, info)]
        refused = [c for c in changes if c.host not in new_keys]
        if refused and not getattr(args, "repin_keys", False):
            for change in refused:
                env.err(f"pairbench: {change.error('refusing to pin it')}")
            env.err(
                "pairbench: the lab is up, but runs on it refuse the changed key until it is "
                "re-pinned (`pairbench lab status` lists the problem)"
            )
            return False
        register_labs(lib, infos)
    note = env.err if args.json else env.out
    for change in changes:
        old = ", ".join(key_fingerprint(k) for k in change.pinned)
        new = key_fingerprint(change.offered)
        why = "new lab: pinned the new" if change.host in new_keys else "re-pinned the"
        note(f"{why} host key of {change.host}: {new} (was {old})")
    return True


def handle_shape(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Change the shaping of the running lab, of the multi-pair lab (``--pairs N``) or of one
    pair (``--pair NAME``); the multi-pair lab's pairs get their shaping tags updated."""
    try:
        count = shape_targets(args.pairs)
        shapings = _shapings(args, count)
        if args.pairs is not None:
            infos = list(pairs.shape(shapings))
        elif args.pair is not None:
            infos = [pairs.shape_one(args.pair, shapings[0])]
        else:
            infos = [manager.shape(shapings[0])]
    except LabError as exc:
        env.err(f"pairbench: {exc}")
        return ExitStatus.ERROR
    tagged = [info for info in infos if info.zone is not None]
    if tagged and not _register(env, args, tagged, frozenset()):
        return ExitStatus.ERROR
    if args.json:
        env.out(json.dumps(pairs_json(infos) if args.pairs else infos[0].to_json()))
    elif args.pairs is not None or args.pair is not None:
        for line in pair_lines(infos, "shaped"):
            env.out(line)
    else:
        env.out(f"lab shaped: {infos[0].shaping.describe()}")
    return ExitStatus.OK


def handle_status(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Report whether the lab (and the multi-pair lab's pairs) are up and healthy; exit 1 when
    one is up but broken.

    Besides the lab itself, the library's pins are checked: a lab host whose pinned key is not
    the key it offers makes the lab unhealthy (every run on it would be refused).
    """
    try:
        status = manager.status()
        multi = pairs.status()
    except LabError as exc:
        env.err(f"pairbench: {exc}")
        return ExitStatus.ERROR
    status = _checked(env, status)
    multi = tuple(_checked(env, pair) for pair in multi)
    if args.json:
        env.out(json.dumps({**status.to_json(), **pairs_status_json(status, multi)}))
    else:
        _print_status(env, status)
        print_pairs_status(env.out, multi)
    broken = [s for s in (status, *multi) if s.up and not s.healthy]
    return ExitStatus.ERROR if broken else ExitStatus.OK


def _checked(env: Environment, status: LabStatus) -> LabStatus:
    """The status with the pin problems of its hosts added."""
    if status.info is None:
        return status
    return _with_problems(status, _pin_problems(env, status.info))


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
    """Remove the lab and the multi-pair lab (``--pairs``: only the latter); their hosts and
    pairs stay in the library, with the runs that used them."""
    try:
        lab = instance.current()
        if args.pairs:
            pairs.down()
        else:
            pairs.down_all()
    except LabError as exc:
        env.err(f"pairbench: {exc}")
        return ExitStatus.ERROR
    if args.pairs:
        env.out(f"lab pairs down: lab1 … labN and {lab.multi_root} removed (lab stays)")
    else:
        env.out(
            f"lab down: namespaces, links, processes, {lab.state_root} and {lab.multi_root} removed"
        )
    return ExitStatus.OK
