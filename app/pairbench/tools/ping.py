"""ping (iputils): parameters, the client argv (no server), and its parser."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal

from pairbench.tools.base import (
    Capabilities,
    CommandContext,
    Commands,
    Parser,
    Tool,
    ToolPreset,
    target_argument,
)
from pairbench.tools.params import Param, SecondsParam, resolve_params
from pairbench.tools.ping_text import PingTextParser
from pairbench.tools.provenance_readers import read_ping

NAME = "ping"
DEBIAN_PACKAGE = "iputils-ping"
VERSION_ARGV = ["ping", "-V"]
SERVER_READY_TEXT: str | None = None  # no server: the target only has to answer ICMP echo
DEFAULT_PORT = 0  # unused: ping has no port

_IPUTILS_VERSION = re.compile(r"iputils[- ]?s?([0-9]{8})")


PARAMS: dict[str, Param] = {
    p.name: p
    for p in (
        Param("count", "int", "20", "echo requests to send (-c)", minimum=1, maximum=100000),
        SecondsParam(
            "interval",
            "seconds",
            "1",
            "seconds between requests (-i); below 0.2 older iputils need root",
            low=Decimal("0.002"),
            high=Decimal(60),
        ),
        Param(
            "size", "int", "56", "payload bytes (-s), under 16: no RTT", minimum=0, maximum=65507
        ),
        Param(
            "deadline",
            "int",
            "0",
            "stop after this many seconds whatever the count, 0 = none (-w)",
            minimum=0,
            maximum=86400,
        ),
    )
}


def resolve(params: Mapping[str, str]) -> dict[str, str]:
    """Checked parameters with defaults filled in."""
    return resolve_params(PARAMS, params)


def capabilities(version_output: str) -> Capabilities:
    """What the installed ping is, from ``ping -V`` ("ping from iputils 20221126")."""
    first = version_output.strip().splitlines()[0] if version_output.strip() else ""
    m = _IPUTILS_VERSION.search(first)
    return Capabilities(version=first, version_tuple=(int(m.group(1)),) if m else ())


def expected_seconds(params: Mapping[str, str]) -> float:
    """How long a run should take: ``count`` requests ``interval`` apart, capped by the deadline."""
    seconds = float(params["count"]) * float(params["interval"])
    deadline = float(params["deadline"])
    return min(seconds, deadline) if deadline > 0 else seconds


def commands(params: Mapping[str, str], caps: Capabilities, ctx: CommandContext) -> Commands:
    """argv of ``ping -D -n -c COUNT -i INTERVAL -s SIZE [-w DEADLINE] TARGET``; no server.

    ``-D`` timestamps every reply (the parser's times), ``-n`` skips reverse DNS lookups.
    """
    client = ["ping", "-D", "-n", "-c", params["count"], "-i", params["interval"]]
    client += ["-s", params["size"]]
    if params["deadline"] != "0":
        client += ["-w", params["deadline"]]
    client.append(target_argument(ctx.target))
    return Commands(client=client, server=None)


def parser(params: Mapping[str, str], caps: Capabilities) -> Parser:
    """A parser for ping's output, told the interval (it sets the records' times)."""
    return PingTextParser(float(params["interval"]))


PRESETS = (
    ToolPreset(
        "ping 1400 bytes",
        {"count": "50", "size": "1400", "interval": "0.2"},
        "uperf-latency-throughput-oci-vs-aws.txt: ping -c 50 -s 1400 -i 0.2",
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
    provenance=read_ping,
    presets=PRESETS,
)
