"""iperf3: parameters, the argv of server and client for the probed version, and its parser."""

from __future__ import annotations

from collections.abc import Mapping

from pairbench.domain import LineSource
from pairbench.tools.base import (
    Capabilities,
    CommandContext,
    Commands,
    ParamError,
    Parser,
    Tool,
    ToolPreset,
    first_line_capabilities,
)
from pairbench.tools.iperf3_auto import Iperf3AutoParser
from pairbench.tools.iperf3_json import Iperf3JsonParser
from pairbench.tools.iperf3_text import Iperf3TextParser
from pairbench.tools.params import (
    Param,
    count_value,
    is_true,
    report_interval,
    resolve_params,
    tcp_run,
)
from pairbench.tools.provenance_readers import read_iperf3

NAME = "iperf3"
DEBIAN_PACKAGE = "iperf3"
VERSION_ARGV = ["iperf3", "--version"]
SERVER_READY_TEXT = "Server listening on"
DEFAULT_PORT = 5201
JSON_STREAM_SINCE = (3, 17)
UDP_RECEIVER_SOURCES = (LineSource.SERVER_OUT, LineSource.CLIENT_ERR)

PARAMS: dict[str, Param] = {
    p.name: p
    for p in (
        Param("duration", "int", "10", "seconds to transmit", minimum=1, maximum=86400),
        Param("streams", "int", "1", "parallel streams (-P)", minimum=1, maximum=128),
        Param("reverse", "bool", "false", "server sends, client receives (-R)"),
        Param("bidir", "bool", "false", "both directions at once (--bidir)"),
        Param("udp", "bool", "false", "UDP instead of TCP (-u)"),
        Param(
            "bitrate",
            "optrate",
            "",
            "target bitrate per stream (-b), 0 = unlimited; empty = iperf3's default "
            "(unlimited TCP, 1M UDP)",
        ),
        Param("length", "size", "0", "buffer / datagram length, 0 = iperf3 default (-l)"),
        Param("window", "size", "0", "socket buffer size, 0 = system default (-w)"),
        Param("omit", "int", "0", "seconds to omit at the start (-O)", minimum=0, maximum=600),
        Param("no_delay", "bool", "false", "TCP_NODELAY (-N)"),
        Param("affinity", "cpus", "", "pin to CPUs: N, or N,M for client N and server M (-A)"),
        Param("congestion", "optname", "", "TCP congestion control, e.g. bbr, cubic (-C)"),
        Param("zerocopy", "bool", "false", "send with zero copy (-Z)"),
        Param("bind", "address", "", "the client's source address, host[%dev] (-B)"),
        Param("mss", "int", "0", "TCP maximum segment size, 0 = system (-M)", 0, 9216),
        Param("fq_rate", "rate", "0", "fair-queuing socket pacing per stream (--fq-rate)"),
        Param("tos", "int", "0", "IP type of service, 0-255 (-S)", minimum=0, maximum=255),
        Param("dscp", "dscp", "", "IP DSCP, 0-63 or EF, AF11, CS1... (--dscp)"),
        Param("cport", "int", "0", "the client's first port, 0 = any (--cport)", 0, 65535),
        report_interval(),
        Param(
            "bytes",
            "count",
            "",
            "bytes to send instead of a duration (-n), e.g. 1G; K, M, G are 1024-based",
        ),
        Param(
            "blockcount",
            "count",
            "",
            "blocks (buffers of length) to send instead of a duration (-k), e.g. 10K",
        ),
        Param(
            "port",
            "int",
            "0",
            "the server's port (-p), 0 = a free one Pairbench picks; refused if in use",
            0,
            65535,
        ),
        Param("version4", "bool", "false", "IPv4 only (-4)"),
        Param("version6", "bool", "false", "IPv6 only (-6)"),
    )
}
# iperf3's options for the form of its output: Pairbench chooses the form itself (--json-stream
# on 3.17 and later, else text with --forceflush; -f never: figures are read in bits and bytes).
OUTPUT_FORMS = {
    "json": "-J",
    "json_stream": "--json-stream",
    "format": "-f",
    "timestamps": "--timestamps",
    "logfile": "--logfile",
    "forceflush": "--forceflush",
    "verbose": "-V",
}
ENDS = ("duration", "bytes", "blockcount")
MIN_MSS = 88  # iperf3 refuses less


def resolve(params: Mapping[str, str]) -> dict[str, str]:
    """Checked parameters with defaults filled in."""
    for name in params:
        if name in OUTPUT_FORMS:
            raise ParamError(
                f"{name} ({OUTPUT_FORMS[name]}): Pairbench chooses iperf3's output form itself "
                "(live JSON events or text, read as they come); it is not a parameter"
            )
    resolved = resolve_params(PARAMS, params)
    _resolve_end(params, resolved)
    if is_true(resolved["version4"]) and is_true(resolved["version6"]):
        raise ParamError("version4 and version6 cannot be combined")
    if is_true(resolved["reverse"]) and is_true(resolved["bidir"]):
        raise ParamError("reverse and bidir cannot be combined")
    if resolved["tos"] != "0" and resolved["dscp"]:
        raise ParamError("tos and dscp cannot be combined (dscp sets the upper 6 bits of tos)")
    if 0 < int(resolved["mss"]) < MIN_MSS:
        raise ParamError(f"mss must be 0 (the system's) or at least {MIN_MSS}")
    if is_true(resolved["udp"]):
        for name in ("congestion", "mss", "fq_rate"):
            if resolved[name] not in ("", "0"):
                raise ParamError(f"{name} is for TCP; it cannot be combined with udp")
    return resolved


def _resolve_end(given: Mapping[str, str], resolved: dict[str, str]) -> None:
    """One end of the run: ``duration`` (the default), ``bytes`` or ``blockcount``, as iperf3
    takes one of -t, -n, -k. A run by bytes or blocks has no ``duration``."""
    chosen = [name for name in ENDS if given.get(name, "").strip() not in ("", "0")]
    if len(chosen) > 1:
        raise ParamError(
            f"{' and '.join(chosen)} cannot be combined: a run ends after a duration, a number "
            "of bytes or a number of blocks (iperf3's -t, -n, -k)"
        )
    for name in ENDS[1:]:
        if resolved[name] and count_value(resolved[name]) == 0:
            raise ParamError(f"{name} must be more than 0 (or empty: not given)")
    if resolved["bytes"] or resolved["blockcount"]:
        del resolved["duration"]


def by_amount(params: Mapping[str, str]) -> bool:
    """True when the run ends after a number of bytes or blocks, not a duration."""
    return bool(params.get("bytes") or params.get("blockcount"))


def capabilities(version_output: str) -> Capabilities:
    """What the installed iperf3 can do, from ``iperf3 --version``."""
    return first_line_capabilities(version_output)


def expected_seconds(params: Mapping[str, str]) -> float:
    """How long a run should take, for progress bars; 0 (unknown) for a run by bytes or
    blocks."""
    if by_amount(params):
        return 0.0
    return float(params["duration"]) + float(params["omit"])


def chosen_port(params: Mapping[str, str]) -> int:
    """The server port the user chose (``port``), 0 when Pairbench picks a free one."""
    return int(params.get("port", "0") or 0)


def commands(params: Mapping[str, str], caps: Capabilities, ctx: CommandContext) -> Commands:
    """argv for ``iperf3 -s -1`` and the client, with live output.

    iperf3 ≥ 3.17 streams ``--json-stream`` events; older versions (Debian 12 ships 3.12)
    print text, flushed live with ``--forceflush``.
    """
    port = str(ctx.port)
    server = ["iperf3", "-s", "-1", "-p", port, "--forceflush"]
    client = ["iperf3", "-c", ctx.target, "-p", port, *_end(params), "-i", params["interval"]]
    client.append("--json-stream" if json_stream(caps) else "--forceflush")
    if params["streams"] != "1":
        client += ["-P", params["streams"]]
    if is_true(params["reverse"]):
        client.append("-R")
    if is_true(params["bidir"]):
        client.append("--bidir")
    if is_true(params["udp"]):
        client.append("-u")
    if params["bitrate"]:
        client += ["-b", params["bitrate"]]
    if params["length"] != "0":
        client += ["-l", params["length"]]
    if params["window"] != "0":
        client += ["-w", params["window"]]
    if params["omit"] != "0":
        client += ["-O", params["omit"]]
    if is_true(params["no_delay"]):
        client.append("-N")
    if params["affinity"]:
        client += ["-A", params["affinity"]]
    client += _tcp_and_ip_options(params)
    if _server_parsed(params):
        # Client -> server UDP: only the receiving server knows per-interval jitter and
        # loss, so its output (over its own channel) is what is parsed; the client's
        # stderr still carries its errors.
        return Commands(client=client, server=server, parse=UDP_RECEIVER_SOURCES)
    return Commands(client=client, server=server)


def _end(params: Mapping[str, str]) -> list[str]:
    """-t DURATION, -n BYTES or -k BLOCKS: what ends the run."""
    if params.get("bytes"):
        return ["-n", params["bytes"]]
    if params.get("blockcount"):
        return ["-k", params["blockcount"]]
    return ["-t", params["duration"]]


def _tcp_and_ip_options(params: Mapping[str, str]) -> list[str]:
    """The client's -C, -Z, -B, -M, --fq-rate, -S, --dscp and --cport, as set."""
    argv: list[str] = []
    if params["congestion"]:
        argv += ["-C", params["congestion"]]
    if is_true(params["zerocopy"]):
        argv.append("-Z")
    if params["bind"]:
        argv += ["-B", params["bind"]]
    if params["mss"] != "0":
        argv += ["-M", params["mss"]]
    if params["fq_rate"] != "0":
        argv += ["--fq-rate", params["fq_rate"]]
    if params["tos"] != "0":
        argv += ["-S", params["tos"]]
    if params["dscp"]:
        argv += ["--dscp", params["dscp"]]
    if params["cport"] != "0":
        argv += ["--cport", params["cport"]]
    if is_true(params["version4"]):
        argv.append("-4")
    if is_true(params["version6"]):
        argv.append("-6")
    return argv


def _server_parsed(params: Mapping[str, str]) -> bool:
    """Client -> server UDP: the server's (text) output is the one parsed."""
    return (
        is_true(params["udp"]) and not is_true(params["reverse"]) and not is_true(params["bidir"])
    )


def json_stream(caps: Capabilities) -> bool:
    """iperf3 ≥ 3.17 streams one JSON event per line (``--json-stream``); older: text."""
    return caps.version_tuple >= JSON_STREAM_SINCE


def parser(params: Mapping[str, str], caps: Capabilities) -> Parser:
    """A parser for the live output: JSON events for ≥ 3.17, else text."""
    if json_stream(caps) and not _server_parsed(params):
        return Iperf3JsonParser()
    return Iperf3TextParser()


PRESETS = (
    ToolPreset(
        "iperf3 TCP, 2 streams",
        {"streams": "2", "duration": "10"},
        "ec2-r4-burst-credits-iperf3.txt: two parallel streams avoid the 5 Gbit/s flow limit",
    ),
    ToolPreset(
        "iperf3 TCP long run for burst credits (2 streams, 1 h, 1 s intervals)",
        {"streams": "2", "duration": "3600"},
        "ec2-r4-burst-credits-iperf3.txt: iperf3 -i 1 -t 3600 -P 2",
    ),
    ToolPreset(
        "iperf3 UDP 1400-byte datagrams",
        {"udp": "true", "length": "1400", "bitrate": "1G", "duration": "10"},
        "iperf3-nuttcp-udp-tips-oci.txt: UDP jitter and loss on a 1 Gbit/s shape",
    ),
)


TOOL = Tool(
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
    provenance=read_iperf3,
    presets=PRESETS,
    bulk_transfer=tcp_run,
    file_parser_factory=Iperf3AutoParser,
    fixed_port=chosen_port,
    tied={"udp": ("bitrate", "length", "no_delay", "congestion", "mss", "fq_rate")},
)
