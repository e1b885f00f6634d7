"""Host name canonicalization as ssh.c does it, where it needs no DNS (addresses, rules)."""

from __future__ import annotations

import socket

from pairbench.remote.ssh_config.options import CANON_ALWAYS, CANON_NO, Options


class NeedsDNS(Exception):
    """ssh would look the name up in DNS to resolve the alias; the message says why."""


def is_addr_fast(name: str) -> bool:
    """``is_addr_fast``: a ``%`` or ``:`` in it, or only digits and dots."""
    return "%" in name or ":" in name or all(c in "0123456789." for c in name)


def is_addr(name: str) -> bool:
    """``is_addr``: ``is_addr_fast`` or a numeric address ``getaddrinfo`` accepts."""
    return is_addr_fast(name) or numeric_form(name) is not None


def numeric_form(name: str) -> str | None:
    """``resolve_addr``: the address as ``getnameinfo(NI_NUMERICHOST)`` writes it, or None
    when the name is not one numeric address (no lookup is made)."""
    try:
        found = socket.getaddrinfo(
            name, "22", type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST | socket.AI_NUMERICSERV
        )
    except (socket.gaierror, UnicodeError, ValueError):
        return None
    if len(found) != 1:
        return None
    try:
        host, _ = socket.getnameinfo(found[0][4], socket.NI_NUMERICHOST | socket.NI_NUMERICSERV)
    except (socket.gaierror, OSError):
        return None
    return host


def direct(options: Options) -> bool:
    """No ProxyCommand (or ``none``) and no ProxyJump: ssh connects to the name itself."""
    command = options.proxy_command
    return (command is None or command.lower() == "none") and options.jump_host is None


def canonicalize(host: str, options: Options) -> str:
    """``resolve_canonicalize`` without DNS: an address in its numeric form; a name that ssh
    would look up raises ``NeedsDNS``; a name ssh leaves alone is returned unchanged.
    ``ValueError`` when ssh gives up on the name (no fallback to the local resolver)."""
    numeric = numeric_form(host)
    if numeric is not None:
        return numeric if numeric.lower() != host.lower() else host
    if is_addr_fast(host) or options.canonicalize_hostname == CANON_NO:
        return host
    if not direct(options) and options.canonicalize_hostname != CANON_ALWAYS:
        return host
    if host.endswith("."):
        raise NeedsDNS(f"CanonicalizeHostname: ssh looks {host!r} up in DNS")
    if host.count(".") > options.canonicalize_max_dots:
        return host
    domains = _until_none(options.canonical_domains)
    if domains:
        raise NeedsDNS(
            f"CanonicalizeHostname: ssh looks {host!r} up in DNS under " + ", ".join(domains)
        )
    if not options.canonicalize_fallback_local:
        raise ValueError(f'Could not resolve host "{host}"')
    return host


def _until_none(domains: list[str]) -> list[str]:
    out: list[str] = []
    for domain in domains:
        if domain == "none":
            break
        out.append(domain)
    return out


def follows_cnames(options: Options, resolved_address: bool) -> bool:
    """Whether ssh would look the name up and may follow a CNAME to another name
    (CanonicalizePermittedCNAMEs with canonicalization on)."""
    if resolved_address or not options.permitted_cnames:
        return False
    if options.canonicalize_hostname in (CANON_NO, -1):
        return False
    if options.permitted_cnames == [("none", "")]:
        return False
    return direct(options) or options.canonicalize_hostname == CANON_ALWAYS
