"""Validators for what users type about hosts and pairs; each raises ``ValueError`` saying why."""

from __future__ import annotations

import ipaddress
import re

from pairbench.domain.hosts import RESERVED_NAMES, is_reserved_name

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
USER_RE = re.compile(r"[a-z_][a-z0-9_.-]{0,31}", re.IGNORECASE)
TAG_KEY_RE = re.compile(r"[A-Za-z0-9_.-]{1,32}")
PORT_RE = re.compile(r"[0-9]{1,5}")
_LABEL_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_SCOPE_RE = re.compile(r"[A-Za-z0-9_.-]{1,64}")
# Characters that never belong in an address: shell and quoting metacharacters, whitespace.
_FORBIDDEN_IN_ADDRESS = frozenset(" \t\r\n\v\f'\"`;$()&|<>\\*?!{}[]#~,=@/")

MAX_TAG_VALUE = 128
MAX_HOST_NAME = 253


def shown(value: object, limit: int = 60) -> str:
    """A value for an error message: repr (control characters escaped), shortened."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_name(kind: str, value: str) -> str:
    """A host or pair name: 1-64 letters, digits, '.', '_' or '-', not starting with a symbol."""
    if not value:
        raise ValueError(f"the {kind} name is empty")
    if not NAME_RE.fullmatch(value):
        raise ValueError(
            f"invalid {kind} name {shown(value)}: use 1 to 64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return value


def check_new_name(kind: str, value: str) -> str:
    """A name for a new (or renamed) host or pair: ``check_name``, and none of the names that
    mean this computer (``hosts.RESERVED_NAMES``, in any letter case)."""
    check_name(kind, value)
    if is_reserved_name(value):
        reserved = " and ".join(repr(n) for n in sorted(RESERVED_NAMES))
        raise ValueError(
            f"the {kind} name {value!r} is reserved: {reserved} (in any letter case) mean "
            "this computer; choose another name"
        )
    return value


def check_address(value: str) -> str:
    """An IPv4 or IPv6 address, or a DNS host name (RFC 1123 labels); returned unchanged."""
    if not value:
        raise ValueError("the address is empty")
    bad = sorted({c for c in value if c in _FORBIDDEN_IN_ADDRESS or not c.isprintable()})
    if bad:
        raise ValueError(
            f"invalid address {shown(value)}: it contains {shown(''.join(bad))}; "
            "give an IPv4 or IPv6 address or a host name"
        )
    if value.startswith("-"):
        raise ValueError(f"invalid address {shown(value)}: it must not start with '-'")
    if ":" in value:
        return _check_ipv6(value)
    labels = value.removesuffix(".").split(".")
    if all(label.isdigit() for label in labels):
        try:
            ipaddress.IPv4Address(value)
        except ValueError:
            raise ValueError(f"invalid address {shown(value)}: not a valid IPv4 address") from None
        return value
    return _check_host_name(value, labels)


def _check_ipv6(value: str) -> str:
    address, _, scope = value.partition("%")
    if "%" in value and not _SCOPE_RE.fullmatch(scope):
        raise ValueError(f"invalid address {shown(value)}: bad IPv6 scope {shown(scope)}")
    try:
        ipaddress.IPv6Address(address)
    except ValueError:
        raise ValueError(f"invalid address {shown(value)}: not a valid IPv6 address") from None
    return value


def _check_host_name(value: str, labels: list[str]) -> str:
    if len(value.removesuffix(".")) > MAX_HOST_NAME:
        raise ValueError(
            f"invalid host name {shown(value)}: longer than {MAX_HOST_NAME} characters"
        )
    for label in labels:
        if not _LABEL_RE.fullmatch(label):
            raise ValueError(
                f"invalid host name {shown(value)}: each dot-separated part must be 1 to 63 "
                "letters, digits or '-', not starting or ending with '-'"
            )
    if labels[-1].isdigit():
        raise ValueError(f"invalid host name {shown(value)}: the last part cannot be all digits")
    return value


def check_port(value: int | str) -> int:
    """A TCP port, 1 to 65535, given as an int or as decimal digits."""
    if isinstance(value, bool):
        raise ValueError(f"invalid port {shown(value)}: give a number from 1 to 65535")
    if isinstance(value, str):
        if not PORT_RE.fullmatch(value):
            raise ValueError(f"invalid port {shown(value)}: give a number from 1 to 65535")
        value = int(value)
    if not 1 <= value <= 65535:
        raise ValueError(f"invalid port {value}: give a number from 1 to 65535")
    return value


def check_user(value: str) -> str:
    """A login name: a letter or '_', then up to 31 letters, digits, '_', '.' or '-'."""
    if not value:
        raise ValueError("the user name is empty")
    if not USER_RE.fullmatch(value):
        raise ValueError(
            f"invalid user name {shown(value)}: use a letter or '_' followed by up to 31 "
            "letters, digits, '_', '.' or '-'"
        )
    return value


def check_tag(key: str, value: str) -> tuple[str, str]:
    """A tag: a key of 1-32 letters, digits, '_', '.' or '-'; a printable value of ≤ 128 chars."""
    if not TAG_KEY_RE.fullmatch(key):
        raise ValueError(
            f"invalid tag key {shown(key)}: use 1 to 32 letters, digits, '_', '.' or '-'"
        )
    if len(value) > MAX_TAG_VALUE:
        raise ValueError(
            f"the value of tag {key!r} is {len(value)} characters long; at most "
            f"{MAX_TAG_VALUE} are allowed"
        )
    if not value.isprintable():
        raise ValueError(
            f"invalid value {shown(value)} for tag {key!r}: newlines and control characters "
            "are not allowed"
        )
    return key, value


def parse_tag(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` into a checked (key, value)."""
    key, sep, value = text.partition("=")
    if not sep:
        raise ValueError(f"a tag must look like KEY=VALUE, got {shown(text)}")
    return check_tag(key, value)


MAX_DESCRIPTION = 256


def check_description(value: str) -> str:
    """A one-line description: printable, at most 256 characters (may be empty)."""
    if len(value) > MAX_DESCRIPTION:
        raise ValueError(
            f"the description is {len(value)} characters long; at most {MAX_DESCRIPTION} "
            "are allowed"
        )
    if not value.isprintable():
        raise ValueError(
            f"invalid description {shown(value)}: newlines and control characters are not allowed"
        )
    return value
