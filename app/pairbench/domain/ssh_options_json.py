"""A host's SSH options as a JSON-ready mapping and back (the library's column, exports)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pairbench.domain.hosts import NO_SSH_OPTIONS, AuthMethod, Host, SSHOptions
from pairbench.domain.validation import check_address, check_port, check_user

MAX_JUMPS = 16
MAX_FILES = 100


def ssh_options_json(options: SSHOptions) -> dict[str, Any]:
    """The options that are set, as plain JSON values (an empty dict for none)."""
    out: dict[str, Any] = {}
    if options.identity_files:
        out["identity_files"] = list(options.identity_files)
    if options.certificate_files:
        out["certificate_files"] = list(options.certificate_files)
    if options.identities_only:
        out["identities_only"] = True
    if options.identity_agent is not None:
        out["identity_agent"] = options.identity_agent
    if options.known_hosts is not None:
        out["known_hosts"] = list(options.known_hosts)
    if options.host_key_alias is not None:
        out["host_key_alias"] = options.host_key_alias
    if options.accept_new_host_keys:
        out["accept_new_host_keys"] = True
    if options.proxy_command is not None:
        out["proxy_command"] = options.proxy_command
    if options.jumps:
        out["jumps"] = [_hop_json(hop) for hop in options.jumps]
    return out


def _hop_json(hop: Host) -> dict[str, Any]:
    return {
        "name": hop.name,
        "address": hop.address,
        "port": hop.port,
        "user": hop.user,
        "ssh": ssh_options_json(hop.ssh),
    }


def ssh_options_from_json(data: object) -> SSHOptions:
    """The inverse of ``ssh_options_json``; ``ValueError`` for anything else."""
    if data is None or data == {}:
        return NO_SSH_OPTIONS
    if not isinstance(data, Mapping):
        raise ValueError("SSH options must be a JSON object")
    known_hosts = data.get("known_hosts")
    jumps = data.get("jumps") or []
    if not isinstance(jumps, list) or len(jumps) > MAX_JUMPS:
        raise ValueError(f"SSH options: jumps must be a list of at most {MAX_JUMPS} hops")
    return SSHOptions(
        identity_files=_strings(data.get("identity_files"), "identity_files"),
        certificate_files=_strings(data.get("certificate_files"), "certificate_files"),
        identities_only=data.get("identities_only") is True,
        identity_agent=_string(data.get("identity_agent"), "identity_agent"),
        known_hosts=None if known_hosts is None else _strings(known_hosts, "known_hosts"),
        host_key_alias=_string(data.get("host_key_alias"), "host_key_alias"),
        accept_new_host_keys=data.get("accept_new_host_keys") is True,
        proxy_command=_string(data.get("proxy_command"), "proxy_command"),
        jumps=tuple(_hop(item) for item in jumps),
    )


def _hop(data: object) -> Host:
    if not isinstance(data, Mapping):
        raise ValueError("SSH options: a jump hop must be a JSON object")
    name = _string(data.get("name"), "jump name")
    if not name:
        raise ValueError("SSH options: a jump hop has no name")
    user = data.get("user")
    return Host(
        name=name,
        address=check_address(str(data.get("address") or "")),
        port=check_port(int(data.get("port") or 22)),
        user=None if user is None else check_user(str(user)),
        auth=AuthMethod.AGENT,
        ssh=ssh_options_from_json(data.get("ssh")),
    )


def _string(value: object, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or "\0" in value:
        raise ValueError(f"SSH options: {what} must be a string")
    return value


def _strings(value: object, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) > MAX_FILES:
        raise ValueError(f"SSH options: {what} must be a list of at most {MAX_FILES} strings")
    out = tuple(_string(item, what) for item in value)
    return tuple(item for item in out if item is not None)
