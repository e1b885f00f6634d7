"""A uperf profile a user wrote: read as uperf reads it (XML lower-cased, ``$name`` values from
the environment), checked against uperf 1.0.8's elements and options, and summarised."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from pairbench.tools.base import ParamError
from pairbench.tools.uperf_details import FLOWOP_TYPES
from pairbench.tools.uperf_profiles import VAR_NAME

__all__ = [
    "MAX_PROFILE_CHARS",
    "CustomProfile",
    "Flowop",
    "Group",
    "ProfileError",
    "Transaction",
    "parse_profile",
]

MAX_PROFILE_CHARS: Final = 64 * 1024
MAX_GROUPS: Final = 64  # uperf takes 1024; a profile of more is not one to run from a pair
# uperf 1.0.8's flowop options (parse.c parse_option): flags, then key=value keys.
FLAGS: Final = frozenset(
    {"tcp_nodelay", "busy", "idle", "canfail", "non_blocking", "sctp_unordered", "sctp_nodelay"}
)
KEYS: Final = frozenset(
    {
        "size",
        "rsize",
        "nfiles",
        "count",
        "repeat",
        "batch_size",
        "port",
        "protocol",
        "conn",
        "remotehost",
        "wndsz",
        "timeout",
        "duration",
        "encaps",
        "cc",
        "stack",
        "bblog",
        "engine",
        "cipher",
        "method",
        "sctp_rto_min",
        "sctp_rto_max",
        "sctp_rto_initial",
        "sctp_sack_delay",
        "sctp_sack_frequency",
        "sctp_max_burst_size",
        "sctp_max_fragment_size",
        "sctp_hb_interval",
        "sctp_path_mtu",
        "sctp_in_streams",
        "sctp_out_streams",
        "sctp_stream_id",
        "sctp_pr_value",
        "sctp_pr_policy",
    }
)
# The protocols uperf knows (protocol.c; which ones a build has is uperf's to say at run time).
PROTOCOLS: Final = ("tcp", "udp", "sctp", "ssl", "vsock", "rds")
_REFUSED_KEYS: Final = {
    "localhost": "uperf runs on the pair's client and connects from there: leave localhost out",
    "dir": (
        "sendfile's files would be a directory on the host that Pairbench neither uploads nor "
        "removes: leave dir out"
    ),
}
_ATTRIBUTES: Final = {
    "profile": frozenset({"name"}),
    "group": frozenset({"nthreads", "nprocs", "name"}),
    "transaction": frozenset({"iterations", "duration", "rate"}),
    "flowop": frozenset({"type", "options"}),
}
_CHILD: Final = {"profile": "group", "group": "transaction", "transaction": "flowop"}
_SINGLE_QUOTED: Final = re.compile(r"=\s*'")
_SKIPPED: Final = re.compile(r"<\?.*?\?>|<!--.*?-->", re.DOTALL)
_LINE_COLUMN: Final = re.compile(r"line (\d+), column (\d+)")


class ProfileError(ParamError):
    """A profile Pairbench will not run: the message says where and what to change."""


@dataclass(frozen=True, slots=True)
class Flowop:
    """One ``<flowop>``: its type and its options as uperf splits them (``key=value`` pairs,
    and flags with an empty value), lower-cased."""

    type: str
    options: tuple[tuple[str, str], ...]

    def option(self, key: str) -> str | None:
        """The last value of ``key`` (uperf keeps the last), None if absent."""
        found = [value for k, value in self.options if k == key]
        return found[-1] if found else None


@dataclass(frozen=True, slots=True)
class Transaction:
    """One ``<transaction>``: ``iterations``, ``duration`` or ``rate`` as written ("" when
    absent; a ``$name`` is filled at run time), and its flowops."""

    iterations: str
    duration: str
    rate: str
    flowops: tuple[Flowop, ...]


@dataclass(frozen=True, slots=True)
class Group:
    """One ``<group>``: its strand count as written (``nthreads`` or ``nprocs``) and its
    transactions."""

    threads: str
    transactions: tuple[Transaction, ...]


@dataclass(frozen=True, slots=True)
class CustomProfile:
    """A checked profile: its name (lower-cased, as uperf prints it) and groups."""

    name: str
    groups: tuple[Group, ...]

    def values(self) -> Iterator[tuple[str, str]]:
        """Every value that may be a ``$variable``: ``(where, value)``, where is the attribute
        or option name (``nthreads``, ``remotehost``...)."""
        for group in self.groups:
            yield "nthreads", group.threads
            for txn in group.transactions:
                yield "iterations", txn.iterations
                yield "duration", txn.duration
                yield "rate", txn.rate
                for flowop in txn.flowops:
                    yield from flowop.options

    def variables(self) -> dict[str, str]:
        """The variables the profile uses (``$h`` → ``h``), each with where it is first used."""
        found: dict[str, str] = {}
        for where, value in self.values():
            if value.startswith("$"):
                found.setdefault(value[1:], where)
        return found

    def host_variables(self) -> set[str]:
        """The variables that are a ``remotehost``: the pair's server address fills them."""
        return {
            value[1:]
            for where, value in self.values()
            if where == "remotehost" and value[:1] == "$"
        }


def _check_attributes(tag: str, element: ET.Element, where: str) -> dict[str, str]:
    attrs = {key.lower(): value.lower() for key, value in element.attrib.items()}
    unknown = sorted(set(attrs) - _ATTRIBUTES[tag])
    if unknown:
        raise ProfileError(
            f"{where}: uperf knows no attribute {unknown[0]!r} on <{tag}> "
            f"(only {', '.join(sorted(_ATTRIBUTES[tag]))})"
        )
    for key, value in attrs.items():
        _check_value(where, key, value)
    return attrs


def _check_value(where: str, key: str, value: str) -> None:
    if value.startswith("$") and not VAR_NAME.fullmatch(value[1:]):
        raise ProfileError(
            f"{where}: {key}={value}: a variable name is letters, digits and '_' (uperf "
            "looks $name up in the environment)"
        )


def _children(element: ET.Element, tag: str, where: str) -> list[ET.Element]:
    """The child elements, each of the one tag uperf allows there; no text between them."""
    texts = [element.text or "", *(child.tail or "" for child in element)]
    stray = next((text.strip() for text in texts if text.strip()), "")
    if stray:
        raise ProfileError(f"{where}: text {stray[:40]!r} is not uperf's")
    children = list(element)
    for child in children:
        if child.tag.lower() != tag:
            raise ProfileError(f"{where}: <{child.tag}> is not uperf's here (only <{tag}>)")
    return children


def _options(text: str, where: str) -> tuple[tuple[str, str], ...]:
    options: list[tuple[str, str]] = []
    for token in text.split():
        if not token[0].isalpha():
            raise ProfileError(f"{where}: option {token[:40]!r}: uperf would ignore it")
        key, sep, value = token.partition("=")
        if not sep:
            if key not in FLAGS:
                raise ProfileError(
                    f"{where}: {key!r} is not an option of uperf's (flags: "
                    f"{', '.join(sorted(FLAGS))}; others are key=value)"
                )
            options.append((key, ""))
            continue
        refused = _REFUSED_KEYS.get(key)
        if refused is not None:
            raise ProfileError(f"{where}: {key}: {refused}")
        if key not in KEYS:
            raise ProfileError(f"{where}: {key}={value}: uperf knows no option {key!r}")
        if not value:
            raise ProfileError(f"{where}: {key}= needs a value")
        _check_value(where, key, value)
        if key == "remotehost" and not value.startswith("$"):
            raise ProfileError(
                f"{where}: remotehost={value}: write a variable such as $h, which Pairbench "
                "fills with the pair's server address (a profile runs on its pair)"
            )
        if key == "protocol" and not value.startswith("$") and value not in PROTOCOLS:
            raise ProfileError(f"{where}: protocol={value}: uperf knows {', '.join(PROTOCOLS)}")
        options.append((key, value))
    return tuple(options)


def _flowop(element: ET.Element, where: str) -> Flowop:
    attrs = _check_attributes("flowop", element, where)
    if len(element) or (element.text or "").strip():
        raise ProfileError(f"{where}: a <flowop> holds nothing (<flowop type=... />)")
    kind = attrs.get("type", "")
    if kind not in FLOWOP_TYPES:
        shown = f"type={kind!r}" if kind else "no type"
        raise ProfileError(
            f"{where}: {shown}: uperf's flowops are {', '.join(sorted(FLOWOP_TYPES))}"
        )
    return Flowop(kind, _options(attrs.get("options", ""), where))


def _transaction(element: ET.Element, where: str) -> Transaction:
    attrs = _check_attributes("transaction", element, where)
    if "iterations" in attrs and "duration" in attrs:
        raise ProfileError(f"{where}: a transaction has iterations or a duration, not both")
    flowops = [
        _flowop(child, f"{where}, flowop {i}")
        for i, child in enumerate(_children(element, "flowop", where), 1)
    ]
    if not flowops:
        raise ProfileError(f"{where}: a transaction without a flowop")
    return Transaction(
        attrs.get("iterations", ""),
        attrs.get("duration", ""),
        attrs.get("rate", ""),
        tuple(flowops),
    )


def _group(element: ET.Element, where: str) -> Group:
    attrs = _check_attributes("group", element, where)
    if ("nthreads" in attrs) == ("nprocs" in attrs):
        raise ProfileError(f"{where}: a group needs nthreads (or nprocs), one of them")
    transactions = [
        _transaction(child, f"{where}, transaction {i}")
        for i, child in enumerate(_children(element, "transaction", where), 1)
    ]
    if not transactions:
        raise ProfileError(f"{where}: a group without a transaction")
    return Group(attrs.get("nthreads") or attrs["nprocs"], tuple(transactions))


def parse_profile(text: str) -> CustomProfile:
    """The profile in ``text``, checked; ``ProfileError`` says what uperf would refuse or do
    otherwise than it reads (entities, single quotes, text between elements), and what
    Pairbench does not run (a ``remotehost`` that is not a variable, ``localhost``, ``dir``)."""
    if len(text) > MAX_PROFILE_CHARS:
        raise ProfileError(f"profile longer than {MAX_PROFILE_CHARS // 1024} KiB")
    if "\x00" in text:
        raise ProfileError("profile has NUL characters: not a text file")
    if "<!DOCTYPE" in text.upper() or "<!ENTITY" in text.upper() or "<![CDATA[" in text.upper():
        raise ProfileError("profile has a DOCTYPE, ENTITY or CDATA section: uperf reads none")
    if "&" in text:
        line = text[: text.index("&")].count("\n") + 1
        raise ProfileError(
            f"line {line}: '&': uperf reads the text as it is, without XML entities: write "
            "the characters themselves"
        )
    # uperf skips "<?...?>" and comments whole; elsewhere it reads "..." values only.
    skipped = _SKIPPED.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    if (quoted := _SINGLE_QUOTED.search(skipped)) is not None:
        line = text[: quoted.start()].count("\n") + 1
        raise ProfileError(f'line {line}: uperf reads only double-quoted values ("...")')
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ProfileError(f"not well-formed XML: {exc}") from exc
    if root.tag.lower() != "profile":
        raise ProfileError(f"the root element is <{root.tag}>: a uperf profile is <profile>")
    attrs = _check_attributes("profile", root, "<profile>")
    groups = [
        _group(child, f"group {i}")
        for i, child in enumerate(_children(root, "group", "<profile>"), 1)
    ]
    if not groups:
        raise ProfileError("a profile without a group")
    if len(groups) > MAX_GROUPS:
        raise ProfileError(f"{len(groups)} groups; at most {MAX_GROUPS}")
    return CustomProfile(attrs.get("name", ""), tuple(groups))
