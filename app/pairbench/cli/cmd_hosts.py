"""``pairbench hosts add|list|show|edit|remove|forget-key|import-ssh-config``: manage hosts
(``install-tool`` lives in ``hosts_install``, ``rename`` in ``renaming``)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from pairbench.cli import hosts_install, renaming
from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.cli.host_output import ADDRESS_MAX, NAME_MAX, TAGS_MAX, USER_MAX, host_json
from pairbench.cli.output import fail, say
from pairbench.cli.prompts import TerminalPrompt
from pairbench.domain import AuthMethod, Host
from pairbench.domain.host_text import (
    describe_host,
    edit_tags,
    format_tags,
    key_fingerprint,
    ssh_option_lines,
)
from pairbench.domain.validation import check_address, check_name, check_port, check_user, shown
from pairbench.export.table_render import text_table
from pairbench.export.tables import TextTable
from pairbench.services.hosts import (
    HostForm,
    check_edit_allowed,
    check_jump,
    check_new_host,
    delete_host,
    forget_host_keys,
    get_host,
    host_from_form,
    keyring_status,
    list_hosts,
    password_status,
    show_host,
    store_edited_host,
    store_new_host,
)
from pairbench.services.key_paths import check_key_path
from pairbench.services.ssh_import import (
    SSHConfigError,
    apply_import,
    plan_import,
    read_ssh_config,
)

PASSWORD_STDIN_VAR = "PAIRBENCH_PASSWORD_STDIN"
_COMMANDS = "add|list|show|edit|rename|remove|forget-key|import-ssh-config|install-tool"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``hosts`` and its subcommands."""
    p = sub.add_parser("hosts", help="add, list, show, edit or remove the hosts runs use")
    hosts_sub = p.add_subparsers(dest="hosts_command", required=True, metavar=_COMMANDS)

    p_add = hosts_sub.add_parser("add", help="add an SSH host")
    p_add.add_argument("name", metavar="NAME")
    p_add.add_argument("--address", required=True, help="IP address or DNS name")
    _add_host_options(p_add, editing=False)
    p_add.set_defaults(handler=handle_add)

    p_list = hosts_sub.add_parser("list", help="all hosts by name")
    p_list.add_argument("--json", action="store_true")
    p_list.set_defaults(handler=handle_list)

    p_show = hosts_sub.add_parser("show", help="one host, with its pinned host keys")
    p_show.add_argument("name", metavar="NAME")
    p_show.add_argument("--json", action="store_true")
    p_show.set_defaults(handler=handle_show)

    p_edit = hosts_sub.add_parser("edit", help="change a host's fields")
    p_edit.add_argument("name", metavar="NAME")
    p_edit.add_argument("--address", help="IP address or DNS name")
    _add_host_options(p_edit, editing=True)
    p_edit.set_defaults(handler=handle_edit)

    renaming.add_subparser(hosts_sub, "host")

    p_remove = hosts_sub.add_parser("remove", help="remove a host and forget its password")
    p_remove.add_argument("name", metavar="NAME")
    p_remove.set_defaults(handler=handle_remove)

    p_forget = hosts_sub.add_parser(
        "forget-key", help="unpin a host's keys after a legitimate host key change"
    )
    p_forget.add_argument("name", metavar="NAME")
    p_forget.set_defaults(handler=handle_forget_key)

    p_import = hosts_sub.add_parser(
        "import-ssh-config", help="add one host per concrete alias of an OpenSSH client config"
    )
    p_import.add_argument(
        "file", metavar="FILE", nargs="?", type=Path, help="default: ~/.ssh/config"
    )
    p_import.add_argument("--json", action="store_true")
    p_import.set_defaults(handler=handle_import)

    hosts_install.add_subparser(hosts_sub)


def _add_host_options(p: argparse.ArgumentParser, *, editing: bool) -> None:
    p.add_argument("--port", help="SSH port (default 22)")
    p.add_argument("--user", help="login user (default root)")
    auth = p.add_mutually_exclusive_group()
    auth.add_argument("--key", metavar="PATH", help="log in with this private key file")
    auth.add_argument(
        "--agent", action="store_true", help="log in with ssh-agent keys (the default)"
    )
    auth.add_argument(
        "--password",
        action="store_true",
        help="log in with a password, asked now and kept in the OS keyring "
        f"(with {PASSWORD_STDIN_VAR}=1, read from one line of stdin)",
    )
    jump = p.add_mutually_exclusive_group()
    jump.add_argument("--jump", metavar="HOST", help="reach the host through this stored host")
    if editing:
        jump.add_argument("--no-jump", action="store_true", help="connect directly")
    p.add_argument(
        "--tag",
        action="extend",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="a tag such as cloud=aws (repeatable)",
    )
    if editing:
        p.add_argument(
            "--remove-tag", action="append", default=[], metavar="KEY", help="drop a tag"
        )


# ---------------------------------------------------------------------------------------------
# add / edit


def _auth_from_args(args: argparse.Namespace) -> tuple[AuthMethod, str | None] | None:
    """The auth chosen on the command line, or None when no auth option was given."""
    if args.key is not None:
        return AuthMethod.KEY, check_key_path(args.key)
    if args.password:
        return AuthMethod.PASSWORD, None
    if args.agent:
        return AuthMethod.AGENT, None
    return None


def _host_from_args(args: argparse.Namespace) -> Host:
    auth = AuthMethod.AGENT
    if args.key is not None:
        auth = AuthMethod.KEY
    elif args.password:
        auth = AuthMethod.PASSWORD
    return host_from_form(
        HostForm(
            name=args.name,
            address=args.address,
            port=args.port,
            user=args.user,
            auth=auth,
            key_path=args.key,
            jump=args.jump,
            tags=args.tag,
        )
    )


def _edited_host(old: Host, args: argparse.Namespace) -> Host:
    new = old
    if args.address is not None:
        new = dataclasses.replace(new, address=check_address(args.address))
    if args.port is not None:
        new = dataclasses.replace(new, port=check_port(args.port))
    if args.user is not None:
        new = dataclasses.replace(new, user=check_user(args.user))
    auth = _auth_from_args(args)
    if auth is not None:
        new = dataclasses.replace(new, auth=auth[0], key_path=auth[1])
    if args.jump is not None:
        new = new.with_jump(check_name("jump host", args.jump))
    elif args.no_jump:
        new = new.with_jump(None)
    if args.tag or args.remove_tag:
        new = dataclasses.replace(new, tags=edit_tags(old.tags, args.tag, args.remove_tag))
    return new


def _read_password(host: Host, env: Environment) -> str | None:
    """The password from one line of stdin (``PAIRBENCH_PASSWORD_STDIN=1``) or the terminal."""
    if env.environ.get(PASSWORD_STDIN_VAR) == "1":
        password: str | None = sys.stdin.readline().rstrip("\r\n")
    else:
        password = TerminalPrompt().password(host, "to keep in the OS keyring")
    return password or None


def _ask_password(host: Host, env: Environment, notes: list[str]) -> str | None:
    """Ask for the password when a keyring can keep it; else note that it is asked each time."""
    available, reason = keyring_status()
    if not available:
        notes.append(reason)
        return None
    password = _read_password(host, env)
    if password is None:
        raise ValueError(
            "no password given (--password asks on a terminal; "
            f"or set {PASSWORD_STDIN_VAR}=1 and give it on one line of stdin)"
        )
    return password


def handle_add(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Validate, ask a password if needed, then store the host."""
    notes: list[str] = []
    try:
        host = _host_from_args(args)
        with env.open_library() as lib:
            check_new_host(lib, host)
            password = _ask_password(host, env, notes) if host.auth is AuthMethod.PASSWORD else None
            notes += store_new_host(lib, host, password)
    except ValueError as exc:
        return fail(env, exc)
    say(env, f"added host {host.name} ({describe_host(host)})")
    for note in notes:
        say(env, f"note: {note}")
    return ExitStatus.OK


def handle_edit(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Change the given fields; move or forget the keyring password when the login changes."""
    notes: list[str] = []
    try:
        with env.open_library() as lib:
            old = get_host(lib, args.name)
            check_edit_allowed(old)
            new = _edited_host(old, args)
            if new == old and not args.password:
                return fail(env, "nothing to change: give at least one option", ExitStatus.USAGE)
            check_jump(lib, new)
            asked = _ask_password(new, env, notes) if args.password else None
            notes += store_edited_host(lib, old, new, asked)
    except ValueError as exc:
        return fail(env, exc)
    say(env, f"updated host {new.name} ({describe_host(new)})")
    for note in notes:
        say(env, f"note: {note}")
    return ExitStatus.OK


# ---------------------------------------------------------------------------------------------
# list / show / remove / forget-key


def handle_list(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Print every host."""
    with env.open_library() as lib:
        hosts = list_hosts(lib)
    if args.json:
        env.out(json.dumps([host_json(h) for h in hosts]))
        return ExitStatus.OK
    table = TextTable(
        ("NAME", "ADDRESS", "PORT", "USER", "AUTH", "JUMP", "TAGS"),
        tuple(
            (
                h.name,
                h.address,
                str(h.port),
                h.user or "",
                h.auth.value,
                h.jump or "",
                format_tags(h.tags),
            )
            for h in hosts
        ),
        ("l", "l", "r", "l", "l", "l", "l"),
    )
    limits = (NAME_MAX, ADDRESS_MAX, 5, USER_MAX, 8, NAME_MAX, TAGS_MAX)
    env.out(text_table(table, cell_max=limits))
    return ExitStatus.OK


def handle_show(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Print one host, its pinned host keys and the pairs that use it."""
    with env.open_library() as lib:
        shown_host = show_host(lib, args.name)
    host, keys, pairs = shown_host.host, shown_host.host_keys, shown_host.pairs
    password = password_status(host)
    if args.json:
        payload = host_json(host)
        payload["host_keys"] = [{"key": k, "fingerprint": key_fingerprint(k)} for k in keys]
        payload["pairs"] = pairs
        payload["password"] = password
        env.out(json.dumps(payload))
        return ExitStatus.OK
    say(env, f"host {host.name}")
    say(env, f"  address   {host.address}")
    if not host.is_local:
        say(env, f"  port      {host.port}")
        say(env, f"  user      {host.user or 'root (default)'}")
    say(env, f"  auth      {host.auth.value}" + (f" ({host.key_path})" if host.key_path else ""))
    if password is not None:
        say(env, f"  password  {password}")
    if host.jump:
        say(env, f"  jump      {host.jump}")
    for line in ssh_option_lines(host):
        say(env, f"  {line}")
    if host.tags:
        say(env, f"  tags      {format_tags(host.tags)}")
    say(env, f"  pairs     {', '.join(pairs) or '-'}")
    if not host.is_local:
        say(
            env,
            "  host keys" + ("" if keys else "  none pinned yet (accepted at first connection)"),
        )
        for key in keys:
            say(env, f"    {key.split()[0]:<20} {key_fingerprint(key)}")
    return ExitStatus.OK


def handle_remove(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Remove a host unused by pairs and jumps; forget its keyring password."""
    try:
        with env.open_library() as lib:
            host = delete_host(lib, args.name)
    except ValueError as exc:
        return fail(env, exc)
    say(env, f"removed host {host.name}")
    return ExitStatus.OK


def handle_forget_key(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Unpin a host's keys so the next connection can accept its new key."""
    with env.open_library() as lib:
        host, keys = forget_host_keys(lib, args.name)
    if keys:
        prints = ", ".join(key_fingerprint(k) for k in keys)
        say(env, f"forgot {len(keys)} pinned host key(s) of {host.name}: {prints}")
        if host.tags.get("lab") == "true":
            env.out("`pairbench lab up` pins the lab host's current key")
        else:
            env.out(
                "the next connection refuses the host's key until you accept it "
                "(pairbench pairs check PAIR --accept-new-host-key)"
            )
    else:
        say(env, f"host {host.name} had no pinned host key")
    say(
        env,
        f"note: keys in ~/.ssh/known_hosts are still trusted; remove a stale one with "
        f"`ssh-keygen -R {host.address}`",
    )
    return ExitStatus.OK


# ---------------------------------------------------------------------------------------------
# import-ssh-config


def handle_import(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Add one host per concrete alias; skip existing names; warn about what is not supported."""
    try:
        entries = read_ssh_config(args.file)
    except SSHConfigError as exc:
        return fail(env, exc)
    with env.open_library() as lib:
        result = apply_import(lib, plan_import(lib, entries))
    if args.json:
        env.out(
            json.dumps(
                {
                    "added": [host_json(h) for h in result.added],
                    "skipped": [{"name": n, "reason": r} for n, r in result.skipped],
                    "warnings": result.warnings,
                }
            )
        )
        return ExitStatus.OK
    for host in result.added:
        say(env, f"added {host.name} ({describe_host(host)})")
    for name, reason in result.skipped:
        say(env, f"skipped {name if name.isprintable() else shown(name)}: {reason}")
    for warning in result.warnings:
        say(env, f"warning: {warning}")
    env.out(f"{len(result.added)} host(s) added, {len(result.skipped)} skipped")
    return ExitStatus.OK
