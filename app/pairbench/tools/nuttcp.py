"""nuttcp: parameters, the argv of server and client (TCP or UDP), and its parser."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from pairbench.domain.quantities import QuantityError, size_bytes
from pairbench.tools.base import (
    Capabilities,
    CommandContext,
    Commands,
    ParamError,
    Parser,
    Tool,
    ToolPreset,
    first_line_capabilities,
    target_argument,
)
from pairbench.tools.nuttcp_text import NuttcpTextParser
from pairbench.tools.params import (
    Param,
    is_true,
    report_interval,
    resolve_params,
    tcp_run,
)
from pairbench.tools.provenance_readers import read_nuttcp

NAME = "nuttcp"
DEBIAN_PACKAGE = "nuttcp"
VERSION_ARGV = ["nuttcp", "-V"]
# ``nuttcp -S --nofork`` prints nothing at all: the engine waits for its port instead. It
# serves one client after another and never exits by itself: the engine stops it.
SERVER_READY_TEXT: str | None = None
# The control port (-P). The data connections go to the ports right after it (-p: the first,
# one per stream), not to nuttcp's fixed 5001, so that the engine's free-port choice covers
# them too (two runs, or anything listening on 5001, would collide): ``ports_needed``.
DEFAULT_PORT = 5000

UDP_DEFAULT_LENGTH = 1400  # nuttcp's UDP default (8K) fragments on a 1500-byte MTU
UDP_LENGTHS = (8, 65507)
TCP_MAX_LENGTH = 64 * 1024 * 1024


PARAMS: dict[str, Param] = {
    p.name: p
    for p in (
        Param("duration", "int", "10", "seconds to transmit (-T)", minimum=1, maximum=86400),
        Param("udp", "bool", "false", "UDP instead of TCP (-u)"),
        Param("rate", "rate", "1g", "UDP target rate in bit/s, e.g. 500M or 2G (-R)"),
        Param(
            "length",
            "size",
            "0",
            "buffer / datagram length, 0 = 64K for TCP (nuttcp's) or 1400 for UDP (-l)",
        ),
        Param("streams", "int", "1", "parallel TCP streams (-N)", minimum=1, maximum=128),
        Param("window", "size", "0", "TCP socket window, 0 = system default (-w, in KB)"),
        Param("reverse", "bool", "false", "server sends, client receives (-r)"),
        report_interval(),
    )
}


def resolve(params: Mapping[str, str]) -> dict[str, str]:
    """Checked parameters with defaults filled in; UDP takes no streams, window or reverse."""
    resolved = resolve_params(PARAMS, params)
    if is_true(resolved["udp"]):
        tcp_only = [
            name
            for name, default in (("streams", "1"), ("window", "0"), ("reverse", "false"))
            if resolved[name] != default
        ]
        if tcp_only:
            raise ParamError(f"{' and '.join(tcp_only)} cannot be combined with udp (TCP only)")
        nuttcp_rate(resolved["rate"])
    nuttcp_length(resolved)
    if resolved["window"] != "0":
        nuttcp_window_kb(resolved["window"])
    return resolved


def _size_bytes(name: str, value: str) -> int:
    """A checked ``size`` value ("1400", "64K", "4M") in bytes, 1024-based."""
    try:
        return int(size_bytes(value, bare="iec"))
    except QuantityError as exc:
        raise ParamError(f"{name}: {exc}") from exc


def nuttcp_length(params: Mapping[str, str]) -> int | None:
    """The ``-l`` buffer length in bytes, or None for nuttcp's TCP default."""
    udp = is_true(params["udp"])
    if params["length"] == "0":
        return UDP_DEFAULT_LENGTH if udp else None
    length = _size_bytes("length", params["length"])
    low, high = UDP_LENGTHS if udp else (1, TCP_MAX_LENGTH)
    if not low <= length <= high:
        kind = "UDP datagram" if udp else "TCP buffer"
        raise ParamError(f"length: a {kind} length must be {low} to {high} bytes, got {length}")
    return length


def nuttcp_window_kb(window: str) -> int:
    """The ``-w`` value: nuttcp counts windows in KB (1024 bytes); bytes are rounded up."""
    size = _size_bytes("window", window)
    if size <= 0:
        raise ParamError("window must be more than 0 (or 0 for the system default)")
    return -(-size // 1024)


def nuttcp_rate(rate: str) -> str:
    """A ``rate`` value (bit/s, 1000-based: "500M", "2G", "800K") in nuttcp's ``-R`` syntax.

    nuttcp reads a bare number as Kbps and ``m``/``g`` suffixes as Mbps/Gbps ("2G" -> "2g",
    "1.5G" -> "1.5g"). Kilobits and bare bits/s become whole Kbps; a rate under 1 Kbps is
    refused (nuttcp ignores it and sends unlimited).
    """
    suffix = rate[-1:].lower() if rate[-1:].isalpha() else ""
    try:
        number = Decimal(rate[: len(rate) - len(suffix)])
    except InvalidOperation as exc:
        raise ParamError(f"rate must be a rate such as 500M or 2G, got {rate!r}") from exc
    if suffix in ("m", "g"):
        if number <= 0:
            raise ParamError(f"rate must be more than 0, got {rate!r}")
        return format(number.normalize(), "f") + suffix
    if suffix == "t":
        return format((number * 1000).normalize(), "f") + "g"
    kbps = number if suffix == "k" else number / 1000
    if kbps < 1:
        raise ParamError(f"rate must be at least 1K (1000 bit/s) for nuttcp, got {rate!r}")
    return str(int(kbps.quantize(Decimal(1), rounding=ROUND_HALF_UP)))


def capabilities(version_output: str) -> Capabilities:
    """What the installed nuttcp is, from ``nuttcp -V`` ("nuttcp-6.1.2")."""
    return first_line_capabilities(version_output)


def expected_seconds(params: Mapping[str, str]) -> float:
    """How long a run should take, for progress bars."""
    return float(params["duration"])


def ports_needed(params: Mapping[str, str]) -> int:
    """How many consecutive ports from ``CommandContext.port`` a run uses: the control port,
    then one data port per stream (UDP: one)."""
    streams = 1 if is_true(params.get("udp", "false")) else int(params.get("streams", "1"))
    return 1 + streams


def commands(params: Mapping[str, str], caps: Capabilities, ctx: CommandContext) -> Commands:
    """argv of ``nuttcp -S --nofork -P PORT`` and the client, reports every ``interval``.

    TCP: ``nuttcp -i I -T D -P PORT -p PORT+1 [-N n] [-w KB] [-l bytes] [-r] TARGET``;
    UDP: ``nuttcp -u -R RATE -l LEN -i I -T D -P PORT -p PORT+1 TARGET``. The client tells the
    server which data port(s) to listen on (``-N n`` uses PORT+1 .. PORT+n).
    """
    port = str(ctx.port)
    server = ["nuttcp", "-S", "--nofork", "-P", port]
    target = target_argument(ctx.target)
    interval = params.get("interval", "1")
    timing = ["-i", interval, "-T", params["duration"], "-P", port, "-p", str(ctx.port + 1)]
    length = nuttcp_length(params)
    if is_true(params["udp"]):
        rate = nuttcp_rate(params["rate"])
        client = ["nuttcp", "-u", "-R", rate, "-l", str(length), *timing, target]
        return Commands(client=client, server=server)
    client = ["nuttcp", *timing]
    if params["streams"] != "1":
        client += ["-N", params["streams"]]
    if params["window"] != "0":
        client += ["-w", str(nuttcp_window_kb(params["window"]))]
    if length is not None:
        client += ["-l", str(length)]
    if is_true(params["reverse"]):
        client.append("-r")
    client.append(target)
    return Commands(client=client, server=server)


def parser(params: Mapping[str, str], caps: Capabilities) -> Parser:
    """A parser for the client's output: the brief text it asks for, or any other form
    (``-fparse``, ``-v``, ``-frunningtotal``, ``-fxmitstats``), told by the lines."""
    return NuttcpTextParser()


PRESETS = (
    ToolPreset(
        "nuttcp UDP 8000-byte at 2 Gbit/s",
        {"udp": "true", "length": "8000", "rate": "2g", "duration": "600"},
        "iperf3-nuttcp-udp-tips-oci.txt: 8000-byte datagrams at 2000 Mbit/s for 600 s",
    ),
)


TOOL = Tool(
    ports_needed=ports_needed,
    name=NAME,
    debian_package=DEBIAN_PACKAGE,
    version_argv=VERSION_ARGV,
    server_ready_text=SERVER_READY_TEXT,
    default_port=DEFAULT_PORT,
    params=PARAMS,
    resolve=resolve,
    capabilities=capabilities,
    expected_seconds=expected_seconds,
    commands=commands,
    parser=parser,
    provenance=read_nuttcp,
    presets=PRESETS,
    bulk_transfer=tcp_run,
    tied={"udp": ("rate", "length", "streams", "window", "reverse")},
)
