"""``ss -ainmH`` output (iproute2) read as sockets: TCP connection state and socket memory.

Each socket is two lines: ``STATE RECV-Q SEND-Q LOCAL PEER`` then, indented, its details:
``skmem:(r0,rb131072,t0,tb4194304,f0,w0,o0,bl0,d0)`` and for TCP ``-i``'s ``key:value``
words (``cwnd:13``, ``rtt:0.027/0.009``, ``bytes_acked:180``, ``delivery_rate 24.9Gbps``,
``busy:824ms rwnd_limited:564ms(68.4%)``, ``snd_wnd:65536``). Counters are cumulative since
the connection opened; ``busy``, ``rwnd_limited`` and ``sndbuf_limited`` are the sender's
(tcp_info's ``tcpi_busy_time`` and friends, Linux ≥ 4.9; ``snd_wnd`` is Linux ≥ 5.x).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

_RATE_UNITS: Final = {"bps": 1.0, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9, "Tbps": 1e12}
_RATE = re.compile(r"^([\d.]+)([KMGT]?bps)$")
_MS = re.compile(r"^([\d.]+)ms")
_SKMEM = re.compile(r"skmem:\(([^)]*)\)")
_SKMEM_FIELD = re.compile(r"^([a-z]+)(\d+)$")


@dataclass(frozen=True, slots=True)
class Socket:
    """One socket of ``ss``: its identity (state, local, peer) and what it said."""

    state: str
    local: str
    peer: str
    values: dict[str, float] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return (self.local, self.peer)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _details(text: str) -> dict[str, float]:
    """The numbers of a detail line: skmem's fields (``skmem_rb``, ``skmem_d``), ``key:value``
    words (the first of ``a/b``; ``ms`` values in ms) and ``delivery_rate``/``send`` in bit/s."""
    values: dict[str, float] = {}
    skmem = _SKMEM.search(text)
    if skmem is not None:
        for part in skmem[1].split(","):
            match = _SKMEM_FIELD.match(part)
            if match is not None:
                values[f"skmem_{match[1]}"] = float(match[2])
        text = text[: skmem.start()] + text[skmem.end() :]
    words = text.split()
    for i, word in enumerate(words):
        key, sep, value = word.partition(":")
        if sep and value:
            first = value.split("/", 1)[0]
            timed = _MS.match(first)
            number = float(timed[1]) if timed else _number(first)
            if number is not None:
                values[key] = number
        elif word in ("delivery_rate", "send", "pacing_rate") and i + 1 < len(words):
            rate = _RATE.match(words[i + 1])
            if rate is not None:
                values[word] = float(rate[1]) * _RATE_UNITS[rate[2]]
    return values


def parse(lines: list[str]) -> list[Socket]:
    """The sockets of ``ss -ainmH`` output (state lines each followed by their details);
    lines that are neither are skipped."""
    sockets: list[Socket] = []
    head: list[str] | None = None
    for line in lines:
        if line[:1] in (" ", "\t"):
            if head is not None:
                sockets.append(Socket(head[0], head[3], head[4], _details(line)))
                head = None
            continue
        words = line.split()
        if head is not None:
            sockets.append(Socket(head[0], head[3], head[4]))
        head = words if len(words) >= 5 else None
    if head is not None:
        sockets.append(Socket(head[0], head[3], head[4]))
    return sockets
