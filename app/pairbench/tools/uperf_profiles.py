"""uperf profile XML (latency: request/response; throughput: bulk writes) and its environment."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Final
from xml.sax.saxutils import escape

from pairbench.domain import quantities
from pairbench.tools.base import ParamError

__all__ = [
    "DEFAULT_VARS",
    "LATENCY_DEFAULTS",
    "THROUGHPUT_DEFAULTS",
    "VAR_NAME",
    "Profile",
    "ProfileVars",
    "check_host",
    "latency_profile",
    "size_bytes",
    "throughput_profile",
]

# uperf's tokenizer lower-cases the whole profile (quoted values included) before it looks a
# ``$name`` up with getenv(), so every variable name must be lower-case (fixture
# err_env_uppercase_names). It does not decode XML entities either, so nothing that would need
# escaping may go into the XML at all: the values travel in the environment, the XML holds only
# fixed structure, validated names and ``$references``.
VAR_NAME: Final = re.compile(r"[a-z_][a-z0-9_]{0,31}")
_PROFILE_NAME: Final = re.compile(r"[a-z0-9][a-z0-9_.-]{0,31}")
# A host name, an IPv4 address or an IPv6 address (with an optional %zone). No whitespace,
# quotes or shell/XML metacharacters; uperf keeps at most 256 characters of it.
_HOST: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:%-]{0,252}")
_SIZE: Final = re.compile(r"([0-9]{1,10})([kKmMgG]?)")

PROTOCOLS: Final = ("tcp", "udp")
MAX_INT: Final = 2**31 - 1  # uperf keeps sizes and window sizes in a C int
MAX_UDP_PAYLOAD: Final = 65507
MAX_THREADS: Final = 1024
MAX_DURATION_S: Final = 86400
MAX_COUNT: Final = 1_000_000


@dataclass(frozen=True, slots=True)
class ProfileVars:
    """The names of the environment variables a profile refers to (``$h``, ``$proto``, ...).

    The defaults ``h``, ``proto`` and ``nthr`` are those of uperf's own workloads/netperf.xml
    and iperf.xml.
    """

    host: str = "h"
    protocol: str = "proto"
    threads: str = "nthr"
    duration: str = "dur"
    size: str = "size"
    count: str = "count"
    wndsz: str = "wndsz"

    def __post_init__(self) -> None:
        names = [getattr(self, f.name) for f in fields(self)]
        for name in names:
            if not VAR_NAME.fullmatch(name):
                raise ParamError(
                    f"uperf variable name {name!r} must be lower-case letters, digits or '_' "
                    "(uperf lower-cases the profile before it reads the environment)"
                )
        if len(set(names)) != len(names):
            raise ParamError(f"uperf variable names must be distinct, got {names}")


DEFAULT_VARS: Final = ProfileVars()


@dataclass(frozen=True, slots=True)
class Profile:
    """A profile to write to a file (``xml``) and the environment uperf must run with."""

    xml: str
    env: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class _Defaults:
    size: str
    threads: int
    wndsz: str
    count: int


# uperf's workloads/netperf.xml (90 B request/response, 1 thread, wndsz=50k) and iperf.xml
# (write count=10 size=8k, wndsz=500k; the field report ran it with nthr=8).
LATENCY_DEFAULTS: Final = _Defaults(size="90", threads=1, wndsz="50k", count=1)
THROUGHPUT_DEFAULTS: Final = _Defaults(size="8k", threads=8, wndsz="500k", count=10)


def size_bytes(text: str, what: str = "size") -> int:
    """A uperf size (``90``, ``8k``, ``4M``: k/m/g are powers of two) in bytes, checked."""
    m = _SIZE.fullmatch(text)
    if m is None:
        raise ParamError(f"{what} must be a size such as 90, 8k or 4m, got {text!r}")
    value = int(quantities.size_bytes(text, bare="iec"))  # uperf's k, m, g: powers of two
    if not 1 <= value <= MAX_INT:
        raise ParamError(f"{what} must be between 1 byte and 2 GiB, got {text!r}")
    return value


def _check_int(value: int, what: str, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise ParamError(f"{what} must be a whole number from 1 to {maximum}, got {value!r}")
    return value


def check_host(host: str) -> str:
    """``host`` if it is a host name or an IP address uperf can take (``ParamError`` else)."""
    if not _HOST.fullmatch(host):
        raise ParamError(f"uperf: {host!r} is not a host name or IP address")
    return host


def _check_common(
    host: str, protocol: str, size: str, threads: int, duration_s: int, wndsz: str, name: str
) -> None:
    check_host(host)
    if protocol not in PROTOCOLS:
        raise ParamError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")
    payload = size_bytes(size, "size")
    if protocol == "udp" and payload > MAX_UDP_PAYLOAD:
        raise ParamError(f"size {size} is larger than a UDP datagram ({MAX_UDP_PAYLOAD} bytes)")
    size_bytes(wndsz, "wndsz")
    _check_int(threads, "threads", MAX_THREADS)
    _check_int(duration_s, "duration", MAX_DURATION_S)
    if not _PROFILE_NAME.fullmatch(name):
        raise ParamError(
            f"profile name {name!r} must be lower-case letters, digits, '.', '_' or '-'"
        )


def _attr(value: str) -> str:
    """A double-quoted XML attribute value (a no-op on the validated tokens that go in)."""
    return '"' + escape(value, {'"': "&quot;"}) + '"'


def _flowop(kind: str, options: str | None = None) -> str:
    opts = "" if options is None else f" options={_attr(options)}"
    return f"      <flowop type={_attr(kind)}{opts}/>\n"


def _build(name: str, v: ProfileVars, nodelay: bool, timed: list[str]) -> str:
    connect = f"remotehost=${v.host} protocol=${v.protocol} wndsz=${v.wndsz}"
    if nodelay:
        connect += " tcp_nodelay"
    return (
        '<?xml version="1.0"?>\n'
        f"<profile name={_attr(name)}>\n"
        f"  <group nthreads={_attr('$' + v.threads)}>\n"
        '    <transaction iterations="1">\n'
        + _flowop("connect", connect)
        + "    </transaction>\n"
        + f"    <transaction duration={_attr('$' + v.duration)}>\n"
        + "".join(timed)
        + "    </transaction>\n"
        + '    <transaction iterations="1">\n'
        + _flowop("disconnect")
        + "    </transaction>\n"
        "  </group>\n"
        "</profile>\n"
    )


def _env(
    v: ProfileVars,
    *,
    host: str,
    protocol: str,
    threads: int,
    duration_s: int,
    size: str,
    wndsz: str,
    count: int | None,
) -> dict[str, str]:
    env = {
        v.host: host,
        v.protocol: protocol,
        v.threads: str(threads),
        v.duration: f"{duration_s}s",
        v.size: size,
        v.wndsz: wndsz,
    }
    if count is not None:
        env[v.count] = str(count)
    return env


def latency_profile(
    host: str,
    *,
    protocol: str = "tcp",
    size: str = LATENCY_DEFAULTS.size,
    threads: int = LATENCY_DEFAULTS.threads,
    duration_s: int = 10,
    wndsz: str = LATENCY_DEFAULTS.wndsz,
    nodelay: bool = True,
    name: str = "pairbench-latency",
    variables: ProfileVars = DEFAULT_VARS,
) -> Profile:
    """Request/response like uperf's netperf.xml: connect, then for ``duration_s`` write
    ``size`` bytes and read ``size`` bytes back, then disconnect.

    One iteration of the timed transaction (``Txn1`` in uperf's 0-based table, ``Txn2`` in its
    progress lines) is one round trip. netperf.xml itself has the slave connect back
    (``accept``); this profile connects from the master, so only the slave's port must be
    reachable.
    """
    _check_common(host, protocol, size, threads, duration_s, wndsz, name)
    timed = [
        _flowop("write", f"size=${variables.size}"),
        _flowop("read", f"size=${variables.size}"),
    ]
    xml = _build(name, variables, nodelay, timed)
    env = _env(
        variables,
        host=host,
        protocol=protocol,
        threads=threads,
        duration_s=duration_s,
        size=size,
        wndsz=wndsz,
        count=None,
    )
    return Profile(xml=xml, env=env)


def throughput_profile(
    host: str,
    *,
    protocol: str = "tcp",
    size: str = THROUGHPUT_DEFAULTS.size,
    count: int = THROUGHPUT_DEFAULTS.count,
    threads: int = THROUGHPUT_DEFAULTS.threads,
    duration_s: int = 10,
    wndsz: str = THROUGHPUT_DEFAULTS.wndsz,
    nodelay: bool = True,
    name: str = "pairbench-throughput",
    variables: ProfileVars = DEFAULT_VARS,
) -> Profile:
    """Bulk transfer like uperf's iperf.xml: ``threads`` connections, each writing ``count``
    blocks of ``size`` bytes per iteration for ``duration_s``, then disconnecting."""
    _check_common(host, protocol, size, threads, duration_s, wndsz, name)
    _check_int(count, "count", MAX_COUNT)
    options = f"count=${variables.count} size=${variables.size}"
    xml = _build(name, variables, nodelay, [_flowop("write", options)])
    env = _env(
        variables,
        host=host,
        protocol=protocol,
        threads=threads,
        duration_s=duration_s,
        size=size,
        wndsz=wndsz,
        count=count,
    )
    return Profile(xml=xml, env=env)
