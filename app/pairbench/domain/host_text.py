"""How hosts, pairs' tags and host keys read as text, and how typed tags are read back."""

from __future__ import annotations

import base64
import binascii
import hashlib
import shlex
from collections.abc import Mapping, Sequence

from pairbench.domain.hosts import AuthMethod, Host
from pairbench.domain.validation import check_tag, parse_tag, shown

# Pair tags with a field of their own in the workbench (key, label), as in `pairs add --tag`.
PAIR_TAG_FIELDS: tuple[tuple[str, str], ...] = (
    ("cloud", "Cloud"),
    ("region", "Region"),
    ("zone", "Zone"),
    ("type", "Instance type"),
    ("placement", "Placement"),
)


def parse_tags(items: Sequence[str] | None) -> dict[str, str]:
    """``KEY=VALUE`` strings into checked tags; a key given twice is refused."""
    tags: dict[str, str] = {}
    for item in items or []:
        key, value = parse_tag(item)
        if key in tags and tags[key] != value:
            raise ValueError(f"tag {key!r} is given twice")
        tags[key] = value
    return tags


def edit_tags(old: Mapping[str, str], add: Sequence[str], remove: Sequence[str]) -> dict[str, str]:
    """Old tags with ``remove`` keys dropped, then ``add`` values set."""
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


def split_tags_text(text: str) -> list[str]:
    """One line of ``k=v k="v w"`` (shell quoting) into ``KEY=VALUE`` items."""
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise ValueError(f"cannot read the tags {shown(text)}: {exc}") from None


def tag_items(tags: Sequence[str] | str) -> list[str]:
    """``KEY=VALUE`` items from a list, or from one line of text."""
    return split_tags_text(tags) if isinstance(tags, str) else list(tags)


def tags_text(tags: Mapping[str, str]) -> str:
    """Tags as one editable line that ``split_tags_text`` reads back unchanged."""
    return " ".join(shlex.quote(f"{k}={v}") for k, v in sorted(tags.items()))


def describe_host(host: Host) -> str:
    """One line: ``user@address:port, auth, via jump``."""
    if host.is_local:
        return "this computer"
    auth = {
        AuthMethod.AGENT: _agent_words(host),
        AuthMethod.KEY: f"key {host.key_path}",
        AuthMethod.PASSWORD: "password",
    }.get(host.auth, host.auth.value)
    route = route_text(host)
    via = f", via {route}" if route else ""
    return f"{host.user or 'root'}@{host.address}:{host.port}, {auth}{via}"


def _agent_words(host: Host) -> str:
    files = len(host.ssh.identity_files)
    if not files:
        return "ssh-agent"
    agent = "" if host.ssh.identities_only else "ssh-agent + "
    return f"{agent}{files} key file{'s' if files > 1 else ''}"


def route_text(host: Host) -> str:
    """How a host is reached: its jump host, its hops (``a > b``), ``ProxyCommand``, or ""."""
    if host.jump:
        return host.jump
    if host.ssh.jumps:
        first = host.ssh.jumps[0]
        command = " (ProxyCommand)" if first.ssh.proxy_command is not None else ""
        return " > ".join(hop.name for hop in host.ssh.jumps) + command
    if host.ssh.proxy_command is not None:
        return "ProxyCommand"
    return ""


def ssh_option_lines(host: Host) -> list[str]:
    """``(label, value)`` lines for what a host's OpenSSH config gave, for ``hosts show``."""
    options = host.ssh
    lines: list[str] = []
    for path in options.identity_files:
        lines.append(f"key file  {path}")
    for path in options.certificate_files:
        lines.append(f"cert file {path}")
    if options.identities_only:
        lines.append("keys      only the key files (IdentitiesOnly)")
    if options.identity_agent is not None:
        lines.append(f"agent     {options.identity_agent}")
    if options.known_hosts is not None:
        lines.append(f"known     {' '.join(options.known_hosts) or 'none'}")
    if options.host_key_alias is not None:
        lines.append(f"key alias {options.host_key_alias}")
    if options.accept_new_host_keys:
        lines.append("new keys  accepted and pinned (StrictHostKeyChecking accept-new)")
    for hop in options.jumps:
        via = " (ProxyCommand)" if hop.ssh.proxy_command is not None else ""
        lines.append(f"jump      {hop.name}: {hop.user}@{hop.address}:{hop.port}{via}")
        for sub in ssh_option_lines(hop):
            lines.append(f"  {sub}")
    if options.proxy_command is not None:
        lines.append(f"proxy     {options.proxy_command}")
    return lines


def key_fingerprint(key_line: str) -> str:
    """The OpenSSH SHA256 fingerprint of a public key line ("ssh-ed25519 AAAA...")."""
    parts = key_line.split()
    try:
        blob = base64.b64decode(parts[1], validate=True)
    except (IndexError, binascii.Error):
        return "?"
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
