"""``pairbench hosts add|list|show|edit|remove|forget-key|import-ssh-config``: manage hosts."""

from __future__ import annotations

import argparse
import base64
import binascii
import dataclasses
import hashlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.cli.prompts import TerminalPrompt
from pairbench.domain import AuthMethod, Host
from pairbench.domain.validation import (
    NAME_RE,
    check_address,
    check_name,
    check_port,
    check_tag,
    check_user,
    parse_tag,
    shown,
)
from pairbench.library import Library, LibraryError
from pairbench.library.hosts import (
    add_host,
    get_host,
    list_hosts,
    list_pairs,
    pinned_host_keys,
    remove_host,
    replace_host,
    unpin_host_keys,
)
from pairbench.remote.secrets import (
    forget_password,
    keyring_account,
    keyring_status,
    store_password,
    stored_password,
)
from pairbench.remote.ssh_config import SSHConfigEntry, SSHConfigError, parse_ssh_config

PASSWORD_STDIN_VAR = "PAIRBENCH_PASSWORD_STDIN"
_COMMANDS = "add|list|show|edit|remove|forget-key|import-ssh-config"


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
# Helpers shared with cmd_pairs


def fail(env: Environment, message: object, status: ExitStatus = ExitStatus.ERROR) -> ExitStatus:
    """Print one ``pairbench: ...`` line on stderr and return ``status``."""
    env.err(f"pairbench: {message}")
    return status


def parse_tags(items: list[str] | None) -> dict[str, str]:
    """``KEY=VALUE`` strings into checked tags; a key given twice is refused."""
    tags: dict[str, str] = {}
    for item in items or []:
        key, value = parse_tag(item)
        if key in tags and tags[key] != value:
            raise ValueError(f"tag {key!r} is given twice")
        tags[key] = value
    return tags


def edit_tags(old: Mapping[str, str], add: list[str], remove: list[str]) -> dict[str, str]:
    """Old tags with ``--remove-tag`` keys dropped, then ``--tag`` values set."""
    tags = dict(old)
    for key in remove:
        check_tag(key, "")
        if key not in tags:
            raise ValueError(f"there is no tag {key!r} to remove")
        del tags[key]
    tags.update(parse_tags(add))
    return tags


def format_tags(tags: Mapping[str, str]) -> str:
    """Tags as ``k=v k=v`` sorted by key."""
    return " ".join(f"{k}={v}" for k, v in sorted(tags.items()))


def host_json(host: Host) -> dict[str, Any]:
    """A host's fields for ``--json``."""
    return {
        "name": host.name,
        "address": host.address,
        "port": host.port,
        "user": host.user,
        "auth": host.auth.value,
        "key_path": host.key_path,
        "jump": host.jump,
        "tags": dict(host.tags),
        "local": host.is_local,
    }


def describe_host(host: Host) -> str:
    """One line: ``user@address:port, auth, via jump``."""
    if host.is_local:
        return "this computer"
    auth = {
        AuthMethod.AGENT: "ssh-agent",
        AuthMethod.KEY: f"key {host.key_path}",
        AuthMethod.PASSWORD: "password",
    }.get(host.auth, host.auth.value)
    via = f", via {host.jump}" if host.jump else ""
    return f"{host.user or 'root'}@{host.address}:{host.port}, {auth}{via}"


def key_fingerprint(key_line: str) -> str:
    """The OpenSSH SHA256 fingerprint of a public key line ("ssh-ed25519 AAAA...")."""
    parts = key_line.split()
    try:
        blob = base64.b64decode(parts[1], validate=True)
    except (IndexError, binascii.Error):
        return "?"
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def host_exists(lib: Library, name: str) -> bool:
    """Whether a host of this name is stored."""
    return any(h.name == name for h in list_hosts(lib))


# ---------------------------------------------------------------------------------------------
# add / edit


def _key_path(value: str) -> str:
    if not value or not value.isprintable():
        raise ValueError(f"invalid key file name {shown(value)}")
    path = Path(value).expanduser()
    if not path.is_file():
        raise ValueError(f"key file {path} not found")
    return str(path.absolute())


def _auth_from_args(args: argparse.Namespace) -> tuple[AuthMethod, str | None] | None:
    """The auth chosen on the command line, or None when no auth option was given."""
    if args.key is not None:
        return AuthMethod.KEY, _key_path(args.key)
    if args.password:
        return AuthMethod.PASSWORD, None
    if args.agent:
        return AuthMethod.AGENT, None
    return None


def _host_from_args(args: argparse.Namespace) -> Host:
    auth, key_path = _auth_from_args(args) or (AuthMethod.AGENT, None)
    return Host(
        name=check_name("host", args.name),
        address=check_address(args.address),
        port=22 if args.port is None else check_port(args.port),
        user=None if args.user is None else check_user(args.user),
        auth=auth,
        key_path=key_path,
        jump=None if args.jump is None else check_name("jump host", args.jump),
        tags=parse_tags(args.tag),
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
        new = dataclasses.replace(new, jump=check_name("jump host", args.jump))
    elif args.no_jump:
        new = dataclasses.replace(new, jump=None)
    if args.tag or args.remove_tag:
        new = dataclasses.replace(new, tags=edit_tags(old.tags, args.tag, args.remove_tag))
    return new


def _check_jump(lib: Library, host: Host) -> None:
    """The jump host must be another stored SSH host, and jumps must not loop."""
    if host.jump is None:
        return
    if host.jump == host.name:
        raise ValueError(f"host {host.name!r} cannot be its own jump host")
    seen = {host.name}
    name: str | None = host.jump
    while name is not None:
        if name in seen:
            raise ValueError(f"jump host {host.jump!r} would make the jump hosts loop")
        seen.add(name)
        try:
            jump = get_host(lib, name)
        except LibraryError:
            raise ValueError(f"jump host {name!r} is not a stored host; add it first") from None
        if jump.is_local:
            raise ValueError(f"jump host {name!r} is this computer, not an SSH host")
        name = jump.jump


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


def _keep_password(host: Host, password: str, notes: list[str]) -> None:
    if store_password(host, password):
        notes.append(f"the password is kept in the OS keyring for {keyring_account(host)}")
    else:
        notes.append(
            "the password could not be stored in the OS keyring; it will be asked at each "
            "connection"
        )


def _account_shared(lib: Library, host: Host) -> bool:
    """Whether another stored host uses the same keyring account (user@address:port)."""
    account = keyring_account(host)
    return any(h.name != host.name and keyring_account(h) == account for h in list_hosts(lib))


def handle_add(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Validate, ask a password if needed, then store the host."""
    notes: list[str] = []
    try:
        host = _host_from_args(args)
        with env.open_library() as lib:
            if host_exists(lib, host.name):
                return fail(env, f"a host named {host.name!r} already exists")
            _check_jump(lib, host)
            password = _ask_password(host, env, notes) if host.auth is AuthMethod.PASSWORD else None
            add_host(lib, host)
            if password is not None:
                _keep_password(host, password, notes)
    except ValueError as exc:
        return fail(env, exc)
    env.out(f"added host {host.name} ({describe_host(host)})")
    for note in notes:
        env.out(f"note: {note}")
    return ExitStatus.OK


def handle_edit(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Change the given fields; move or forget the keyring password when the login changes."""
    notes: list[str] = []
    try:
        with env.open_library() as lib:
            old = get_host(lib, args.name)
            if old.is_local:
                return fail(env, f"the built-in host {old.name!r} cannot be edited")
            new = _edited_host(old, args)
            if new == old and not args.password:
                return fail(env, "nothing to change: give at least one option", ExitStatus.USAGE)
            _check_jump(lib, new)
            asked = _ask_password(new, env, notes) if args.password else None
            account_changed = keyring_account(new) != keyring_account(old)
            moved = None
            if (
                asked is None
                and old.auth is AuthMethod.PASSWORD
                and new.auth is AuthMethod.PASSWORD
                and account_changed
            ):
                moved = stored_password(old)
            replace_host(lib, new)
            secret = asked if asked is not None else moved
            if secret is not None:
                _keep_password(new, secret, notes)
            leaves_old = account_changed or new.auth is not AuthMethod.PASSWORD
            if old.auth is AuthMethod.PASSWORD and leaves_old and not _account_shared(lib, old):
                forget_password(old)
            if (new.address, new.port) != (old.address, old.port):
                keys = pinned_host_keys(lib, new.name)
                if keys:
                    notes.append(
                        f"{len(keys)} pinned host key(s) kept; if {new.address} is another "
                        f"machine, run `pairbench hosts forget-key {new.name}`"
                    )
    except ValueError as exc:
        return fail(env, exc)
    env.out(f"updated host {new.name} ({describe_host(new)})")
    for note in notes:
        env.out(f"note: {note}")
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
    env.out(f"{'NAME':16}  {'ADDRESS':24}  {'PORT':>5}  {'USER':10}  {'AUTH':8}  {'JUMP':12}  TAGS")
    for h in hosts:
        env.out(
            f"{h.name:16}  {h.address:24}  {h.port:>5}  {h.user or '':10}  {h.auth.value:8}  "
            f"{h.jump or '':12}  {format_tags(h.tags)}"
        )
    return ExitStatus.OK


def handle_show(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Print one host, its pinned host keys and the pairs that use it."""
    with env.open_library() as lib:
        host = get_host(lib, args.name)
        keys = pinned_host_keys(lib, host.name)
        pairs = [p.name for p in list_pairs(lib) if host.name in (p.client.name, p.server.name)]
    password = _password_status(host)
    if args.json:
        payload = host_json(host)
        payload["host_keys"] = [{"key": k, "fingerprint": key_fingerprint(k)} for k in keys]
        payload["pairs"] = pairs
        payload["password"] = password
        env.out(json.dumps(payload))
        return ExitStatus.OK
    env.out(f"host {host.name}")
    env.out(f"  address   {host.address}")
    if not host.is_local:
        env.out(f"  port      {host.port}")
        env.out(f"  user      {host.user or 'root (default)'}")
    env.out(f"  auth      {host.auth.value}" + (f" ({host.key_path})" if host.key_path else ""))
    if password is not None:
        env.out(f"  password  {password}")
    if host.jump:
        env.out(f"  jump      {host.jump}")
    if host.tags:
        env.out(f"  tags      {format_tags(host.tags)}")
    env.out(f"  pairs     {', '.join(pairs) or '-'}")
    if not host.is_local:
        env.out(
            "  host keys" + ("" if keys else "  none pinned yet (accepted at first connection)")
        )
        for key in keys:
            env.out(f"    {key.split()[0]:<20} {key_fingerprint(key)}")
    return ExitStatus.OK


def _password_status(host: Host) -> str | None:
    if host.auth is not AuthMethod.PASSWORD:
        return None
    available, reason = keyring_status()
    if not available:
        return reason
    if stored_password(host) is None:
        return "none stored in the OS keyring: asked at each connection"
    return "stored in the OS keyring"


def handle_remove(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Remove a host unused by pairs and jumps; forget its keyring password."""
    with env.open_library() as lib:
        host = get_host(lib, args.name)
        jumpers = [h.name for h in list_hosts(lib) if h.jump == host.name]
        if jumpers:
            return fail(
                env,
                f"host {host.name!r} is the jump host of {', '.join(jumpers)}; "
                "edit them first (hosts edit NAME --no-jump)",
            )
        remove_host(lib, host.name)
        if not _account_shared(lib, host):
            forget_password(host)
    env.out(f"removed host {host.name}")
    return ExitStatus.OK


def handle_forget_key(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Unpin a host's keys so the next connection can accept its new key."""
    with env.open_library() as lib:
        host = get_host(lib, args.name)
        keys = pinned_host_keys(lib, host.name)
        unpin_host_keys(lib, host.name)
    if keys:
        prints = ", ".join(key_fingerprint(k) for k in keys)
        env.out(f"forgot {len(keys)} pinned host key(s) of {host.name}: {prints}")
        env.out(
            "the next connection refuses the host's key until you accept it "
            "(pairbench pairs check PAIR --accept-new-host-key)"
        )
    else:
        env.out(f"host {host.name} had no pinned host key")
    env.out(
        f"note: keys in ~/.ssh/known_hosts are still trusted; remove a stale one with "
        f"`ssh-keygen -R {host.address}`"
    )
    return ExitStatus.OK


# ---------------------------------------------------------------------------------------------
# import-ssh-config


@dataclasses.dataclass
class _ImportResult:
    added: list[Host] = dataclasses.field(default_factory=list)
    skipped: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)


def _plain_alias(value: str) -> bool:
    return NAME_RE.fullmatch(value) is not None


def _host_from_entry(entry: SSHConfigEntry, result: _ImportResult) -> Host:
    """A host for one alias; ``ValueError`` when a field cannot be used."""
    name = check_name("host", entry.alias)
    address = check_address(entry.hostname)
    user = None if entry.user is None else check_user(entry.user)
    port = 22 if entry.port is None else check_port(entry.port)
    auth, key_path = AuthMethod.AGENT, None
    if entry.identity_file is not None:
        try:
            key_path = _key_path(entry.identity_file)
            auth = AuthMethod.KEY
        except ValueError as exc:
            result.warnings.append(f"{name}: {exc}; it will log in with ssh-agent keys")
    if entry.proxy_command is not None:
        result.warnings.append(
            f"{name}: ProxyCommand is not supported; added without it (it may be unreachable)"
        )
    return Host(name=name, address=address, port=port, user=user, auth=auth, key_path=key_path)


def _import_entries(
    lib: Library, entries: list[SSHConfigEntry], result: _ImportResult
) -> list[tuple[Host, str | None]]:
    """The hosts to add, each with its wanted jump alias (checked once all names are known)."""
    existing = {h.name for h in list_hosts(lib)}
    planned: list[tuple[Host, str | None]] = []
    for entry in entries:
        if entry.alias in existing:
            result.skipped.append((entry.alias, "a host with this name already exists"))
            continue
        try:
            host = _host_from_entry(entry, result)
        except ValueError as exc:
            result.skipped.append((entry.alias, str(exc)))
            continue
        planned.append((host, entry.proxy_jump))
    return planned


def _resolve_jump(host: Host, jump: str | None, known: set[str], result: _ImportResult) -> Host:
    if jump is None:
        return host
    if _plain_alias(jump) and jump in known and jump != host.name:
        return dataclasses.replace(host, jump=jump)
    why = (
        "only a single host alias that is also imported or stored is supported"
        if _plain_alias(jump)
        else "only a single plain host alias is supported (no user@, :port or hop list)"
    )
    result.warnings.append(
        f"{host.name}: ProxyJump {shown(jump)} not used: {why}; added without a jump host "
        f"(set one with `pairbench hosts edit {host.name} --jump HOST`)"
    )
    return host


def _without_jump_loop(lib: Library, host: Host, result: _ImportResult) -> Host:
    try:
        _check_jump(lib, host)
    except ValueError as exc:
        result.warnings.append(f"{host.name}: {exc}; added without a jump host")
        host = dataclasses.replace(host, jump=None)
        replace_host(lib, host)
    return host


def handle_import(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Add one host per concrete alias; skip existing names; warn about what is not supported."""
    try:
        entries = parse_ssh_config(args.file)
    except SSHConfigError as exc:
        return fail(env, exc)
    result = _ImportResult()
    with env.open_library() as lib:
        planned = _import_entries(lib, entries, result)
        known = {h.name for h in list_hosts(lib) if not h.is_local} | {h.name for h, _ in planned}
        for host, _ in planned:
            add_host(lib, host)
        for index, (host, jump) in enumerate(planned):
            with_jump = _resolve_jump(host, jump, known, result)
            if with_jump.jump is not None:
                replace_host(lib, with_jump)
            planned[index] = (with_jump, jump)
        for host, _ in planned:
            result.added.append(_without_jump_loop(lib, host, result))
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
        env.out(f"added {host.name} ({describe_host(host)})")
    for name, reason in result.skipped:
        env.out(f"skipped {name if name.isprintable() else shown(name)}: {reason}")
    for warning in result.warnings:
        env.out(f"warning: {warning}")
    env.out(f"{len(result.added)} host(s) added, {len(result.skipped)} skipped")
    return ExitStatus.OK
