"""iperf 2 (Debian package ``iperf``): parameters, server and client argv (TCP), its parser."""

from __future__ import annotations

from collections.abc import Mapping

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
from pairbench.tools.iperf2_text import Iperf2TextParser
from pairbench.tools.params import Param, resolve_params
from pairbench.tools.provenance_readers import read_iperf2

NAME = "iperf2"
DEBIAN_PACKAGE = "iperf"
# Prints "iperf version 2.1.8 (12 August 2022) pthreads" on stderr and exits 1.
VERSION_ARGV = ["iperf", "-v"]
# The server's banner ("Server listening on TCP port 5001"), flushed at once even into a pipe.
# An iperf 2 server never exits after a test: the engine stops it.
SERVER_READY_TEXT = "Server listening on TCP port"
DEFAULT_PORT = 5001

PARAMS: dict[str, Param] = {
    p.name: p
    for p in (
        Param("duration", "int", "10", "seconds to transmit (-t)", minimum=1, maximum=86400),
        Param("streams", "int", "1", "parallel streams (-P)", minimum=1, maximum=128),
        Param("window", "size", "0", "socket buffer size, 0 = system default (-w)"),
        Param("length", "size", "0", "read/write buffer length, 0 = iperf's default (-l)"),
    )
}


def resolve(params: Mapping[str, str]) -> dict[str, str]:
    """Checked parameters with defaults filled in; size suffixes in upper case.

    iperf 2 reads ``k``/``m``/``g`` as powers of 1000 and ``K``/``M``/``G`` as powers of 1024;
    Pairbench sizes are 1024-based everywhere, so the suffix is upper-cased.
    """
    resolved = resolve_params(PARAMS, params)
    for name in ("window", "length"):
        value = resolved[name]
        suffix = value[-1:].upper() if value[-1:].isalpha() else ""
        number = int(value[: len(value) - len(suffix)])  # checked digits ("size" kind)
        if number == 0 and suffix:
            raise ParamError(f"{name} must be more than 0 (or 0 for iperf's default)")
        resolved[name] = f"{number}{suffix}"  # ASCII digits, 1024-based suffix
    return resolved


def capabilities(version_output: str) -> Capabilities:
    """What the installed iperf 2 is, from ``iperf -v`` ("iperf version 2.1.8 (...)")."""
    return first_line_capabilities(version_output)


def expected_seconds(params: Mapping[str, str]) -> float:
    """How long a run should take, for progress bars."""
    return float(params["duration"])


def commands(params: Mapping[str, str], caps: Capabilities, ctx: CommandContext) -> Commands:
    """argv of ``iperf -s -p PORT`` and ``iperf -c TARGET -p PORT -t D -i 1 [-P n] [-w] [-l]``."""
    port = str(ctx.port)
    server = ["iperf", "-s", "-p", port]
    client = [
        "iperf",
        "-c",
        target_argument(ctx.target),
        "-p",
        port,
        "-t",
        params["duration"],
        "-i",
        "1",
    ]
    if params["streams"] != "1":
        client += ["-P", params["streams"]]
    if params["window"] != "0":
        client += ["-w", params["window"]]
    if params["length"] != "0":
        client += ["-l", params["length"]]
    return Commands(client=client, server=server)


def parser(params: Mapping[str, str], caps: Capabilities) -> Parser:
    """A parser for the client's output."""
    return Iperf2TextParser()


PRESETS = (
    ToolPreset(
        "iperf 2 TCP, 1 stream, 60 s",
        {"duration": "60"},
        "ec2-iperf-matrix-automation.txt: iperf -t TIME -c SERVER between EC2 instances",
    ),
)


def bulk_transfer(params: Mapping[str, str]) -> bool:
    """Every iperf 2 run Pairbench starts is a TCP bulk transfer."""
    return True


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
    provenance=read_iperf2,
    presets=PRESETS,
    bulk_transfer=bulk_transfer,
)
