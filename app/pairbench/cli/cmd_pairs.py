"""``pairbench pairs add|list|show|edit|remove|check``: manage and preflight client/server pairs
(``rename`` lives in ``renaming``)."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
from typing import Any

from pairbench.cli import renaming
from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.cli.host_output import ADDRESS_MAX, NAME_MAX, TAGS_MAX, host_json
from pairbench.cli.output import fail, say
from pairbench.cli.prompts import TerminalPrompt
from pairbench.domain import HostPair
from pairbench.domain.failures import TransportError
from pairbench.domain.host_text import describe_host, edit_tags, format_tags, key_fingerprint
from pairbench.domain.validation import MAX_DESCRIPTION, check_address, check_description
from pairbench.export.table_render import text_table
from pairbench.export.tables import TextTable
from pairbench.services.hosts import get_pair, list_pairs
from pairbench.services.library import LibraryError
from pairbench.services.pair_check import CHECKABLE_TOOLS, report_lines, run_check
from pairbench.services.pairs import (
    PairForm,
    check_pair_edit_allowed,
    delete_pair,
    pair_from_form,
    store_edited_pair,
    store_new_pair,
    stored_host,
)

_COMMANDS = "add|list|show|edit|rename|remove|check"
_TAG_HELP = "a tag such as cloud=aws region=eu-west-1 zone=... type=... placement=..."


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``pairs`` and its subcommands."""
    p = sub.add_parser("pairs", help="add, list, show, edit, remove or check client/server pairs")
    pairs_sub = p.add_subparsers(dest="pairs_command", required=True, metavar=_COMMANDS)

    p_add = pairs_sub.add_parser("add", help="add a pair of two stored hosts")
    p_add.add_argument("name", metavar="NAME")
    p_add.add_argument("--client", required=True, metavar="HOST", help="the host that sends")
    p_add.add_argument("--server", required=True, metavar="HOST", help="the host that serves")
    _add_pair_options(p_add, editing=False)
    p_add.set_defaults(handler=handle_add)

    p_list = pairs_sub.add_parser("list", help="all pairs by name")
    p_list.add_argument("--json", action="store_true")
    p_list.set_defaults(handler=handle_list)

    p_show = pairs_sub.add_parser("show", help="one pair with both hosts")
    p_show.add_argument("name", metavar="NAME")
    p_show.add_argument("--json", action="store_true")
    p_show.set_defaults(handler=handle_show)

    p_edit = pairs_sub.add_parser("edit", help="change a pair's fields")
    p_edit.add_argument("name", metavar="NAME")
    p_edit.add_argument("--client", metavar="HOST")
    p_edit.add_argument("--server", metavar="HOST")
    _add_pair_options(p_edit, editing=True)
    p_edit.set_defaults(handler=handle_edit)

    renaming.add_subparser(pairs_sub, "pair")

    p_remove = pairs_sub.add_parser("remove", help="remove a pair (its runs stay)")
    p_remove.add_argument("name", metavar="NAME")
    p_remove.set_defaults(handler=handle_remove)

    p_check = pairs_sub.add_parser(
        "check", help="connect to both hosts, list tool versions, test the data path and clocks"
    )
    p_check.add_argument("name", metavar="NAME")
    p_check.add_argument("--tool", choices=CHECKABLE_TOOLS, help="a tool the next run needs")
    p_check.add_argument(
        "--accept-new-host-key",
        action="store_true",
        help="trust and pin a host key seen for the first time (check its fingerprint first)",
    )
    p_check.add_argument("--json", action="store_true")
    p_check.set_defaults(handler=handle_check)


def _add_pair_options(p: argparse.ArgumentParser, *, editing: bool) -> None:
    data = p.add_mutually_exclusive_group()
    data.add_argument(
        "--data-address",
        metavar="ADDR",
        help="where the client sends traffic (default: the server's address)",
    )
    if editing:
        data.add_argument(
            "--no-data-address", action="store_true", help="use the server's address again"
        )
    p.add_argument("--description", metavar="TEXT", help="one line about the pair")
    p.add_argument(
        "--tag", action="extend", nargs="+", default=[], metavar="KEY=VALUE", help=_TAG_HELP
    )
    if editing:
        p.add_argument(
            "--remove-tag", action="append", default=[], metavar="KEY", help="drop a tag"
        )


def pair_json(pair: HostPair) -> dict[str, Any]:
    """A pair's fields for ``--json``."""
    return {
        "name": pair.name,
        "client": host_json(pair.client),
        "server": host_json(pair.server),
        "data_address": pair.data_address,
        "target_address": pair.target_address,
        "description": pair.description,
        "tags": dict(pair.tags),
    }


def handle_add(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Validate and store a new pair."""
    form = PairForm(
        name=args.name,
        client=args.client,
        server=args.server,
        data_address=args.data_address,
        description=args.description,
        tags=args.tag,
    )
    try:
        with env.open_library() as lib:
            pair = pair_from_form(lib, form)
            store_new_pair(lib, pair)
    except ValueError as exc:
        return fail(env, exc)
    say(
        env,
        f"added pair {pair.name}: {pair.client.name} → {pair.server.name} ({pair.target_address})",
    )
    return ExitStatus.OK


def handle_edit(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Change the given fields of a pair."""
    try:
        with env.open_library() as lib:
            old = get_pair(lib, args.name)
            check_pair_edit_allowed(old.name)
            new = old
            if args.client is not None:
                new = dataclasses.replace(new, client=stored_host(lib, "client", args.client))
            if args.server is not None:
                new = dataclasses.replace(new, server=stored_host(lib, "server", args.server))
            if args.data_address is not None:
                new = dataclasses.replace(new, data_address=check_address(args.data_address))
            elif args.no_data_address:
                new = dataclasses.replace(new, data_address=None)
            if args.description is not None:
                new = dataclasses.replace(new, description=check_description(args.description))
            if args.tag or args.remove_tag:
                new = dataclasses.replace(new, tags=edit_tags(old.tags, args.tag, args.remove_tag))
            if new == old:
                return fail(env, "nothing to change: give at least one option", ExitStatus.USAGE)
            store_edited_pair(lib, new)
    except ValueError as exc:
        return fail(env, exc)
    say(
        env,
        f"updated pair {new.name}: {new.client.name} → {new.server.name} ({new.target_address})",
    )
    return ExitStatus.OK


def handle_list(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Print every pair."""
    with env.open_library() as lib:
        pairs = list_pairs(lib)
    if args.json:
        env.out(json.dumps([pair_json(p) for p in pairs]))
        return ExitStatus.OK
    table = TextTable(
        ("NAME", "CLIENT", "SERVER", "TARGET", "TAGS", "DESCRIPTION"),
        tuple(
            (
                p.name,
                p.client.name,
                p.server.name,
                p.target_address,
                format_tags(p.tags),
                p.description,
            )
            for p in pairs
        ),
        ("l",) * 6,
    )
    limits = (NAME_MAX, NAME_MAX, NAME_MAX, ADDRESS_MAX, TAGS_MAX, MAX_DESCRIPTION)
    env.out(text_table(table, cell_max=limits))
    return ExitStatus.OK


def handle_show(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Print one pair and both of its hosts."""
    with env.open_library() as lib:
        pair = get_pair(lib, args.name)
    if args.json:
        env.out(json.dumps(pair_json(pair)))
        return ExitStatus.OK
    say(env, f"pair {pair.name}" + (f" — {pair.description}" if pair.description else ""))
    say(env, f"  client       {pair.client.name} ({describe_host(pair.client)})")
    say(env, f"  server       {pair.server.name} ({describe_host(pair.server)})")
    data = pair.data_address or f"{pair.server.address} (the server's address)"
    say(env, f"  data address {data}")
    if pair.tags:
        say(env, f"  tags         {format_tags(pair.tags)}")
    return ExitStatus.OK


def handle_remove(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Remove a pair; its runs stay in the library."""
    with env.open_library() as lib:
        delete_pair(lib, args.name)
    say(env, f"removed pair {args.name} (its runs stay in the library)")
    return ExitStatus.OK


# ---------------------------------------------------------------------------------------------
# check


def handle_check(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Preflight a pair; exit 0 when it is ready (and has ``--tool``), 1 otherwise."""
    with env.open_library() as lib:
        pair = get_pair(lib, args.name)
        try:
            report = asyncio.run(
                run_check(
                    lib,
                    pair.name,
                    tool=args.tool,
                    accept_new_host_key=args.accept_new_host_key,
                    secrets=TerminalPrompt(),
                )
            )
        except KeyboardInterrupt:
            return fail(env, "check cancelled", ExitStatus.CANCELLED)
        except (TransportError, LibraryError, OSError, ValueError) as exc:
            return fail(env, f"cannot check pair {pair.name}: {exc}")
        except Exception as exc:  # never a traceback for the user: name what went wrong
            return fail(env, f"cannot check pair {pair.name}: {type(exc).__name__}: {exc}")
    check = report.check
    if args.json:
        payload = dataclasses.asdict(check)
        payload["ok"] = report.ready
        if not (check.client.reachable and check.server.reachable):
            payload["clock_offset_s"] = None  # preflight reports 0.0 when the server is down
        payload["newly_pinned"] = [
            {"host": n, "key": k, "fingerprint": key_fingerprint(k)} for n, k in report.newly_pinned
        ]
        env.out(json.dumps(payload))
    else:
        for line in report_lines(report):
            say(env, line)
    return ExitStatus.OK if report.ready else ExitStatus.ERROR
