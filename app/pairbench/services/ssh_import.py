"""Hosts from an OpenSSH client config: plan (what would be added, skipped, warned), then add.

Each alias is resolved as ``ssh -G`` resolves it (``remote/ssh_config``) and made a host
(``services/ssh_hosts``). The plan is a preview: the workbench shows it with a checkbox per
host and adds the chosen ones; ``pairbench hosts import-ssh-config`` adds them all. A host
whose ProxyJump is a single alias of the config keeps that alias as its stored jump host
when that alias is added too (or is stored already, the same); otherwise its hops are kept
in the host itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from pairbench.domain import Host
from pairbench.library import Library
from pairbench.library.connection import LibraryError
from pairbench.library.hosts import add_host, get_host, list_hosts, replace_host
from pairbench.remote.ssh_config import SSHConfigEntry, parse_ssh_config
from pairbench.remote.ssh_config import SSHConfigError as SSHConfigError
from pairbench.services.hosts import check_jump
from pairbench.services.ssh_hosts import host_from_entry


@dataclass(frozen=True, slots=True)
class PlannedHost:
    """A host the config gives (its hops in ``host.ssh.jumps``), and the alias of its single
    ProxyJump hop when that hop is an alias of the config (stored as a reference if added)."""

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
    """Every concrete alias of the config at ``path`` (default ``~/.ssh/config``, then the
    system's), resolved, in order; ``SSHConfigError`` (naming the file and line) if ssh
    would refuse the config."""
    return parse_ssh_config(path)


def read_plan(lib: Library, path: Path | None = None) -> ImportPlan:
    """Read the config (default ``~/.ssh/config``) and plan; ``SSHConfigError`` if unreadable."""
    plan = plan_import(lib, read_ssh_config(path))
    plan.source = path
    return plan


def plan_import(lib: Library, entries: list[SSHConfigEntry]) -> ImportPlan:
    """One planned host per usable alias; existing names and unusable aliases are skipped,
    each with its reason."""
    existing = {h.name for h in list_hosts(lib)}
    aliases = {e.alias for e in entries}
    plan = ImportPlan()
    for entry in entries:
        if entry.alias in existing:
            plan.skipped.append((entry.alias, "a host with this name already exists"))
            continue
        try:
            converted = host_from_entry(entry)
        except ValueError as exc:
            plan.skipped.append((entry.alias, str(exc)))
            continue
        plan.warnings += [(entry.alias, text) for text in converted.warnings]
        plan.planned.append(PlannedHost(converted.host, _jump_alias(entry, aliases)))
    return plan


def _jump_alias(entry: SSHConfigEntry, aliases: set[str]) -> str | None:
    """The alias of a ProxyJump that is one plain alias of the config (``ProxyJump gate``):
    ssh reaches it exactly as it reaches that alias."""
    spec = entry.resolved.jump if entry.resolved is not None else None
    if spec is None or spec.user is not None or spec.port > 0 or spec.extra is not None:
        return None
    return spec.host if spec.host in aliases and spec.host != entry.alias else None


def apply_import(
    lib: Library, plan: ImportPlan, chosen: Collection[str] | None = None
) -> ImportResult:
    """Add the planned hosts (only ``chosen`` names when given), their jump hosts linked."""
    planned = [p for p in plan.planned if chosen is None or p.host.name in chosen]
    names = {p.host.name for p in planned}
    result = ImportResult(
        skipped=list(plan.skipped),
        warnings=[text for name, text in plan.warnings if name in names],
    )
    for item in planned:
        add_host(lib, item.host)
    for item in planned:
        host = _linked(lib, item, names)
        if host is not item.host:
            replace_host(lib, host)
        result.added.append(_without_jump_loop(lib, host, result))
    return result


def _linked(lib: Library, item: PlannedHost, added: set[str]) -> Host:
    """The host with its single hop stored as a reference to the host of that alias, when
    that host is added now or stored already with the same login and route."""
    alias = item.jump_alias
    if alias is None or len(item.host.ssh.jumps) != 1:
        return item.host
    hop = item.host.ssh.jumps[0]
    if alias not in added:
        try:
            stored = get_host(lib, alias)
        except LibraryError:
            return item.host
        if dataclasses.replace(stored, tags={}) != hop:
            return item.host
    return dataclasses.replace(
        item.host, jump=alias, ssh=dataclasses.replace(item.host.ssh, jumps=())
    )


def _without_jump_loop(lib: Library, host: Host, result: ImportResult) -> Host:
    try:
        check_jump(lib, host)
    except ValueError as exc:
        result.warnings.append(f"{host.name}: {exc}; added without a jump host")
        host = dataclasses.replace(host, jump=None)
        replace_host(lib, host)
    return host
