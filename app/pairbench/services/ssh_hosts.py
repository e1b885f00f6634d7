"""A host from one ssh_config alias as ``ssh -G`` resolves it, and what to tell the user.

Everything Pairbench stores is what ssh uses: the host name, port and user (the local user
when none is set), every identity file in order (ssh's defaults when none), certificate
files, IdentitiesOnly, IdentityAgent, the known_hosts files, HostKeyAlias, whether a first
host key is accepted, and the way there (ProxyJump hops, each resolved by the config as ssh
resolves it, or a ProxyCommand kept as written). A value Pairbench cannot store refuses the
alias (``ValueError``); a keyword Pairbench does not honour is a warning.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from pairbench.domain import AuthMethod, Host
from pairbench.domain.hosts import SSHOptions
from pairbench.domain.validation import (
    check_address,
    check_new_name,
    check_port,
    check_user,
    shown,
)
from pairbench.remote.ssh_config import Resolved, SSHConfigEntry
from pairbench.remote.ssh_config.keywords import KEYWORDS
from pairbench.services.key_paths import check_key_path

# A HostKeyAlias Pairbench keeps: a name for known_hosts (it is also ProxyCommand's %k).
_KEY_ALIAS = re.compile(r"[A-Za-z0-9._:\[\]-]{1,255}")
# StrictHostKeyChecking as ssh -G prints it -> whether a first key is accepted (and pinned).
_ACCEPTS_NEW = {"accept-new": True, "false": True, "true": False, "ask": False}


@dataclass
class Converted:
    """A host made from an alias, and the warnings about it (in order)."""

    host: Host
    warnings: list[str] = field(default_factory=list)


def host_from_entry(entry: SSHConfigEntry) -> Converted:
    """The host for one resolved alias; ``ValueError`` (why) when it cannot be used."""
    if entry.refused is not None or entry.resolved is None:
        raise ValueError(entry.refused or "not resolved")
    name = check_new_name("host", entry.alias)
    warnings: list[str] = []
    hops = tuple(_hop(hop, warnings, name) for hop in entry.hops)
    host = _host(name, entry.resolved, warnings, name)
    if hops:
        host = dataclasses.replace(host, ssh=dataclasses.replace(host.ssh, jumps=hops))
    return Converted(host, warnings)


def _hop(resolved: Resolved, warnings: list[str], owner: str) -> Host:
    try:
        return _host(resolved.alias, resolved, warnings, owner, hop=True)
    except ValueError as exc:
        raise ValueError(f"ProxyJump host {shown(resolved.alias)}: {exc}") from None


def _host(name: str, r: Resolved, warnings: list[str], owner: str, hop: bool = False) -> Host:
    where = f"{owner} (jump host {r.alias})" if hop else owner
    if hop and (not name.isprintable() or " " in name or len(name) > 255):
        raise ValueError(f"the name {shown(name)} cannot be stored")
    address = check_address(r.hostname)
    if r.host_key_alias is not None and not _KEY_ALIAS.fullmatch(r.host_key_alias):
        raise ValueError(
            f"HostKeyAlias {shown(r.host_key_alias)}: use letters, digits, '.', '_', ':', '-', "
            "'[' or ']'"
        )
    if r.proxy_command is not None and not r.proxy_command.isprintable():
        raise ValueError(f"ProxyCommand {shown(r.proxy_command)} has control characters")
    _check_identities(r, warnings, where)
    for keyword, value, line in r.not_honoured:
        note = KEYWORDS[keyword.lower()].note
        warnings.append(
            f"{where}: {keyword} {value} ({line}) is not honoured" + (f": {note}" if note else "")
        )
    if r.strict_host_key_checking == "false":
        warnings.append(
            f"{where}: StrictHostKeyChecking no is taken as accept-new: a first host key is "
            "pinned, a changed one is still refused"
        )
    return Host(
        name=name,
        address=address,
        port=check_port(r.port),
        user=check_user(r.user),
        auth=AuthMethod.AGENT,
        ssh=SSHOptions(
            identity_files=r.identity_paths,
            certificate_files=r.certificate_paths,
            identities_only=r.identities_only,
            identity_agent=r.identity_agent,
            known_hosts=r.user_known_hosts,
            host_key_alias=r.host_key_alias,
            accept_new_host_keys=_ACCEPTS_NEW.get(r.strict_host_key_checking, False),
            proxy_command=r.proxy_command,
        ),
    )


def _check_identities(r: Resolved, warnings: list[str], where: str) -> None:
    """A warning for each key file set in the config that ssh would skip (missing,
    unreadable, too open...); ssh's default files are tried only when present."""
    if not r.default_identities:
        for path in r.identity_paths:
            try:
                check_key_path(path)
            except ValueError as exc:
                warnings.append(f"{where}: IdentityFile: {exc} (ssh skips it too)")
    agent = r.identity_agent is None or r.identity_agent.lower() != "none"
    if not agent or r.identities_only:
        usable = [p for p in r.identity_paths if _usable(p)]
        if not usable:
            warnings.append(
                f"{where}: no usable key file and no agent (IdentitiesOnly or IdentityAgent "
                "none): the login will fail until a key file is there"
            )


def _usable(path: str) -> bool:
    try:
        check_key_path(path)
    except ValueError:
        return False
    return True
