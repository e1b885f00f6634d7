"""``ProxyJump`` values as OpenSSH reads them (readconf.c ``parse_jump``, misc.c URIs)."""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass

from pairbench.remote.ssh_config.lexer import WHITESPACE


@dataclass(frozen=True, slots=True)
class JumpSpec:
    """The last hop of a ProxyJump list and the hops before it, as ssh keeps them.

    ssh reaches the target through ``ssh [-l user] [-p port] [-J extra] host -W target``:
    ``host`` is the hop connected to last, ``extra`` the list before it (as written).
    """

    host: str
    user: str | None = None
    port: int = -1
    extra: str | None = None

    def shown(self) -> str:
        """The value as ``ssh -G`` prints it (a numeric host in brackets)."""
        numeric = ":" in self.host or all(c in "1234567890." for c in self.host)
        host = f"[{self.host}]" if numeric else self.host
        return (
            (f"{self.extra}," if self.extra is not None else "")
            + (f"{self.user}@" if self.user is not None else "")
            + host
            + (f":{self.port}" if self.port > 0 else "")
        )


NONE = "none"


def a2port(text: str) -> int:
    """``a2port``: 0-65535 in decimal, or a TCP service name; -1 when neither."""
    if re.fullmatch(r"[ \t\n\v\f\r]*[+-]?[0-9]+", text):
        value = int(text)
        if 0 <= value <= 65535:
            return value
    try:
        return socket.getservbyname(text, "tcp")
    except OSError:
        return -1


def parse_jump(value: str, strict: bool = False) -> JumpSpec | None:
    """A ProxyJump value: None for ``none``, else the spec; ``ValueError`` when ssh refuses it.

    ``value`` is the raw rest of the line (ssh does not unquote it); from a ``#`` on it is a
    comment. ``strict`` (a ``-J`` on ssh's command line, as for a hop) also refuses host and
    user names with shell metacharacters, as Debian's ssh 9.2 (deb12u10) does.
    """
    raw = value.lstrip(WHITESPACE + "=")
    if raw.lower() == NONE:
        return None
    checked = raw.split("#", 1)[0].rstrip(WHITESPACE)
    hops = [_parse_hop(hop) for hop in reversed(checked.split(","))]
    for hop in hops:
        if hop is None or (strict and not _valid_names(hop)):
            raise ValueError(f'Invalid ProxyJump "{raw}"')
    user, host, port = hops[0]  # type: ignore[misc]
    comma = checked.rfind(",")
    extra = checked[:comma] if comma >= 0 else None
    return JumpSpec(host=host, user=user, port=port, extra=extra)


def _valid_names(hop: tuple[str | None, str, int]) -> bool:
    """``ssh_valid_hostname`` and ``ssh_valid_ruser`` (names given on ssh's command line)."""
    user, host, _ = hop
    if host.startswith("-"):
        return False
    if any(c in "'`\"$\\;&<>|(){}," or c in _SPACE or _control(c) for c in host):
        return False
    if user is None:
        return True
    if user.startswith("-") or user.endswith("\\"):
        return False
    for i, c in enumerate(user):
        if _control(c) or c in "'`\";&<>|(){}":
            return False
        if c in _SPACE and user[i + 1 : i + 2] == "-":
            return False
    return True


_SPACE = " \t\n\v\f\r"


def _control(char: str) -> bool:
    """C's ``iscntrl`` in the C locale."""
    return ord(char) < 32 or ord(char) == 127


def _parse_hop(hop: str) -> tuple[str | None, str, int] | None:
    if hop.startswith("ssh://"):
        return _parse_ssh_uri(hop)
    return _parse_user_host_port(hop)


def _parse_user_host_port(text: str) -> tuple[str | None, str, int] | None:
    """``[user@]host[:port]`` (``parse_user_host_port``); None when invalid."""
    user = None
    at = text.rfind("@")
    if at >= 0:
        if at == 0:
            return None
        user, text = text[:at], text[at + 1 :]
    host, delimiter, rest = _hpdelim(text)
    if not host or delimiter == "/":
        return None
    port = -1
    if rest:
        port = a2port(rest)
        if port <= 0:
            return None
    return user, _clean(host), port


def _parse_ssh_uri(text: str) -> tuple[str | None, str, int] | None:
    """``ssh://[user[;params]@]host[:port]``: the parts, None when invalid
    (``parse_ssh_uri``; a path is not allowed)."""
    rest = text[len("ssh://") :]
    user = None
    at = rest.find("@")
    if at >= 0:
        info = rest[:at].split(";", 1)[0]
        if not info:
            return None
        user = _urldecode(info)
        if user is None:
            return None
        rest = rest[at + 1 :]
    host, delimiter, tail = _hpdelim(rest)
    if not host:
        return None
    host = _clean(host)
    if not _valid_domain(host):
        return None
    host = host.removesuffix(".")
    port = -1
    if tail:
        if delimiter == ":":
            port_text, slash, path = tail.partition("/")
            port = a2port(port_text)
            if port <= 0:
                return None
            tail = path if slash else ""
        if tail:
            return None  # a path is not allowed in a ProxyJump URI
    return user, host, port


def _hpdelim(text: str) -> tuple[str | None, str, str]:
    """``hpdelim2``: the host part (``[...]`` kept), the delimiter (``:``, ``/`` or none) and
    what follows it; host None when the text has no valid host part."""
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            return None, "", ""
        cut = end + 1
    else:
        found = [i for i in (text.find(":"), text.find("/")) if i >= 0]
        cut = min(found) if found else len(text)
    if cut == len(text):
        return text, "", ""
    if text[cut] not in ":/":
        return None, "", ""
    return text[:cut], text[cut], text[cut + 1 :]


def _clean(host: str) -> str:
    """``cleanhostname``: ``[addr]`` without its brackets."""
    if host.startswith("[") and host.endswith("]"):
        return host[1:-1]
    return host


def _urldecode(text: str) -> str | None:
    out = bytearray()
    i = 0
    data = text.encode("utf-8", "surrogateescape")
    while i < len(data):
        byte = data[i]
        if byte == ord("+"):
            out += b" "
        elif byte == ord("%"):
            pair = data[i + 1 : i + 3]
            if len(pair) < 2 or not all(chr(b) in "0123456789abcdefABCDEF" for b in pair):
                return None
            out.append(int(pair, 16))
            i += 2
        else:
            out.append(byte)
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _valid_domain(name: str) -> bool:
    """``valid_domain``: letters, digits, ``.-_``, starting with a letter or digit, no ``..``."""
    if not name or not (name[0].isascii() and name[0].isalnum()):
        return False
    if ".." in name:
        return False
    return all(c.isascii() and (c.isalnum() or c in ".-_") for c in name)
