"""One line of tool output as it crossed a transport, stamped with the time it arrived."""

from __future__ import annotations

import enum
from typing import NamedTuple


class LineSource(enum.StrEnum):
    """Which process and which pipe a line came from."""

    CLIENT_OUT = "client.stdout"
    CLIENT_ERR = "client.stderr"
    SERVER_OUT = "server.stdout"
    SERVER_ERR = "server.stderr"
    # The host sampler's pipes (``tools/host_sampler.py``): parsed into telemetry, never
    # stored as raw output.
    SAMPLER_OUT = "sampler.stdout"
    SAMPLER_ERR = "sampler.stderr"


class Line(NamedTuple):
    """A line of output without its newline; ``t_received`` is a monotonic clock reading."""

    source: LineSource
    text: str
    t_received: float
