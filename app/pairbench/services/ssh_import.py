"""Hosts from an OpenSSH client config: plan (what would be added, skipped, warned), then add.

The plan is a preview: the workbench shows it with a checkbox per host and adds the chosen
ones; ``pairbench hosts import-ssh-config`` adds them all. Jump hosts are resolved once the
chosen names are known, so a jump to an alias left out is dropped with a warning.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from pairbench.domain import AuthMethod, Host
from pairbench.domain.validation import (
    NAME_RE,
    check_address,
    check_new_name,
    check_port,
    check_user,
    shown,
)
from pairbench.library import Library
from pairbench.library.hosts import add_host, list_hosts, replace_host
from pairbench.remote.ssh_config import SSHConfigEntry, parse_ssh_config
from pairbench.remote.ssh_config import SSHConfigError as SSHConfigError
from pairbench.services.hosts import check_jump
from pairbench.services.key_paths import check_key_path


@dataclass(frozen=True, slots=True)
class PlannedHost:
    """A host the config gives, with the ProxyJump alias it asks for (resolved when added)."""

    host: Host
    jump_alias: str | None = None


@dataclass
class ImportPlan:
    """What a config would add; ``warnings`` are (host name, message) in the order found."""

    source: Path | None = None
    planned: list[PlannedHost] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)

    def warnings_of(self, name: str) -> list[str]:
        """The warnings about one planned host."""
        return [text for host, text in self.warnings if host == name]


@dataclass
class ImportResult:
    """What was added, skipped, and warned about."""

    added: list[Host] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def read_ssh_config(path: Path | None = None) -> list[SSHConfigEntry]:
    """Every concrete alias of the config at ``path`` (default ``~/.ssh/config``), in order,
    for ``plan_import``; ``SSHConfigError`` (naming the file and line) if unreadable."""
    return parse_ssh_config(path)


def read_plan(lib: Library, path: Path | None = None) -> ImportPlan:
    """Read the config (default ``~/.ssh/config``) and plan; ``SSHConfigError`` if unreadable."""
    plan = plan_import(lib, parse_ssh_config(path))
    plan.source = path
    return plan


def plan_import(lib: Library, entries: list[SSHConfigEntry]) -> ImportPlan:
    """One planned host per usable alias; existing names and unusable fields are skipped."""
    existing = {h.name for h in list_hosts(lib)}
    plan = ImportPlan()
    for entry in entries:
        if entry.alias in existing:
            plan.skipped.append((entry.alias, "a host with this name already exists"))
            continue
        try:
            host = _host_from_entry(entry, plan)
        except ValueError as exc:
            plan.skipped.append((entry.alias, str(exc)))
            continue
        plan.planned.append(PlannedHost(host, entry.proxy_jump))
    return plan


def apply_import(
    lib: Library, plan: ImportPlan, chosen: Collection[str] | None = None
) -> ImportResult:
    """Add the planned hosts (only ``chosen`` names when given), then their jump hosts."""
    planned = [p for p in plan.planned if chosen is None or p.host.name in chosen]
    names = {p.host.name for p in planned}
    result = ImportResult(
        skipped=list(plan.skipped),
        warnings=[text for name, text in plan.warnings if name in names],
    )
    known = {h.name for h in list_hosts(lib) if not h.is_local} | names
    for item in planned:
        add_host(lib, item.host)
    hosts: list[Host] = []
    for item in planned:
        host = _resolve_jump(item.host, item.jump_alias, known, result)
        if host.jump is not None:
            replace_host(lib, host)
        hosts.append(host)
    for host in hosts:
        result.added.append(_without_jump_loop(lib, host, result))
    return result


def _plain_alias(value: str) -> bool:
    return NAME_RE.fullmatch(value) is not None


def _host_from_entry(entry: SSHConfigEntry, plan: ImportPlan) -> Host:
    """A host for one alias; ``ValueError`` when a field cannot be used."""
    name = check_new_name("host", entry.alias)
    address = check_address(entry.hostname)
    user = None if entry.user is None else check_user(entry.user)
    port = 22 if entry.port is None else check_port(entry.port)
    auth, key_path = AuthMethod.AGENT, None
    if entry.identity_file is not None:
        try:
            key_path = check_key_path(entry.identity_file)
            auth = AuthMethod.KEY
        except ValueError as exc:
            plan.warnings.append((name, f"{name}: {exc}; it will log in with ssh-agent keys"))
    if entry.proxy_command is not None:
        plan.warnings.append(
            (
                name,
                f"{name}: ProxyCommand is not supported; added without it (it may be unreachable)",
            )
        )
    return Host(name=name, address=address, port=port, user=user, auth=auth, key_path=key_path)


def _resolve_jump(host: Host, jump: str | None, known: set[str], result: ImportResult) -> Host:
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


def _without_jump_loop(lib: Library, host: Host, result: ImportResult) -> Host:
    try:
        check_jump(lib, host)
    except ValueError as exc:
        result.warnings.append(f"{host.name}: {exc}; added without a jump host")
        host = dataclasses.replace(host, jump=None)
        replace_host(lib, host)
    return host
