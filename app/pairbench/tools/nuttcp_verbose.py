"""What nuttcp 6.1.2's ``nuttcp-t:``/``nuttcp-r:`` lines tell: errors, ``-v``/``-vv`` figures."""

from __future__ import annotations

import re
from typing import Final, NamedTuple

__all__ = ["NuttcpLine", "plain_error", "read_nuttcp_line"]

# "nuttcp-t: ", "nuttcp-r: " (with -I id the id follows the side letter).
_SIDE: Final = r"nuttcp-([tr])[^ :]{0,40}+: "
# -v, brief: "nuttcp-r: 4601.1250 MB in 3.00 real seconds = 1570553.98 KB/sec = 12865.9782 Mbps"
_REAL_RE: Final = re.compile(
    _SIDE + r"[0-9]{1,15}+\.[0-9]{1,9}+ MB in [0-9]{1,9}+\.[0-9]{1,9}+ real seconds"
    r" = [0-9.]++ KB/sec = ([0-9]{1,15}+\.[0-9]{1,9}+) Mbps"
)
# -v -fparse: "nuttcp-r: megabytes=7234.8750 real_seconds=3.00 rate_KBps=2468462.31 rate_Mbps=..."
_REAL_FPARSE_RE: Final = re.compile(
    _SIDE + r"megabytes=[0-9.]{1,25}+ real_seconds=[0-9.]{1,20}+ rate_KBps=[0-9.]{1,25}+"
    r" rate_Mbps=([0-9]{1,15}+\.[0-9]{1,9}+) *+\Z"
)
# "nuttcp-t: retrans = 0" (brief), "nuttcp-t: retrans=0" (-fparse)
_RETRANS_RE: Final = re.compile(_SIDE + r"retrans ?= ?([0-9]{1,15}+) *+\Z")
# "nuttcp-r: 0 / 13393 drop/pkt 0.00% data loss", "nuttcp-r: drop=147 pkt=13393 data_loss=1.09778"
_LOSS_RE: Final = re.compile(
    _SIDE + r"(?:([0-9]{1,15}+) / ([0-9]{1,15}+) drop/pkt ([0-9]{1,9}+\.[0-9]{1,9}+)% data loss"
    r"|drop=([0-9]{1,15}+) pkt=([0-9]{1,15}+) data_loss=([0-9]{1,9}+\.[0-9]{1,9}+)) *+\Z"
)
# "nuttcp-t: 0.0user 2.3sys 0:03real 77% ...", "nuttcp-t: stats=cpu user=0.0 ... cpu=86% ..."
_CPU_RE: Final = re.compile(
    _SIDE + r"(?:[0-9.]++user [0-9.]++sys [0-9:.]++real "
    r"|stats=cpu user=[0-9.]++ system=[0-9.]++ elapsed=[0-9:.]++ cpu=)([0-9]{1,4}+)%"
)
# -v setup: "nuttcp-t: buflen=65536, nstream=1, port=5001 tcp -> ...", "... port=15701 mode=udp"
_SETUP_RE: Final = re.compile(
    _SIDE + r"buflen=[0-9]++,? nstream=[0-9]++,? port=[0-9]++ (?:mode=)?(tcp|udp)\b"
)
# Errors printed without the "nuttcp-t: v6.1.2: Error: " prefix (nuttcp's perror and usage
# checks): "connect failed: Connection refused", "bad hostname or address: ...".
_PLAIN_ERROR_RE: Final = re.compile(
    r"(?:connect failed: |bad hostname or address: |[a-z0-9 ]{1,40} only supported for"
    r" client/server mode\Z|invalid [a-z_ ]{1,40} = )"
)

_THR: Final = "throughput_bps"


class NuttcpLine(NamedTuple):
    """What one ``nuttcp-t:``/``nuttcp-r:`` line told.

    ``values``: summary values ("r:throughput_bps"/"t:throughput_bps" for each side's rate,
    ``retransmits``, ``lost_packets``/``packets``/``lost_percent``, ``tx_cpu_percent``/
    ``rx_cpu_percent``); ``verbose``: the line is one only ``-v`` (or ``-vv``) prints;
    ``fparse``: the line is in ``-fparse`` form (``key=value``); ``protocol``: "tcp", "udp"
    or "" as the line says.
    """

    values: dict[str, float]
    verbose: bool = True
    fparse: bool = False
    protocol: str = ""


_NOTHING: Final = NuttcpLine({}, verbose=False)


def read_nuttcp_line(line: str) -> NuttcpLine:
    """What a line that starts with ``nuttcp`` tells (errors are the caller's: ``Error: ``)."""
    m = _REAL_RE.match(line)
    if m is not None:
        return NuttcpLine({f"{m.group(1)}:{_THR}": float(m.group(2) + "e6")})
    m = _REAL_FPARSE_RE.match(line)
    if m is not None:
        return NuttcpLine({f"{m.group(1)}:{_THR}": float(m.group(2) + "e6")}, fparse=True)
    m = _RETRANS_RE.match(line)
    if m is not None:
        fparse = "retrans=" in line
        return NuttcpLine({"retransmits": float(m.group(2))}, fparse=fparse, protocol="tcp")
    m = _LOSS_RE.match(line)
    if m is not None:
        _, drop, pkt, loss, fdrop, fpkt, floss = m.groups()
        fparse = drop is None
        lost, total, percent = (fdrop, fpkt, floss) if fparse else (drop, pkt, loss)
        values = {"lost_packets": float(lost), "packets": float(total)}
        values["lost_percent"] = float(percent)
        return NuttcpLine(values, fparse=fparse, protocol="udp")
    m = _CPU_RE.match(line)
    if m is not None:
        key = "tx_cpu_percent" if m.group(1) == "t" else "rx_cpu_percent"
        return NuttcpLine({key: float(m.group(2))}, fparse="stats=cpu" in line)
    m = _SETUP_RE.match(line)
    if m is not None:
        return NuttcpLine({}, fparse="mode=" in line, protocol=m.group(2))
    if line.endswith(": socket") and re.match(_SIDE + r"v[0-9.]{1,20}+: socket\Z", line):
        return NuttcpLine({})
    return _NOTHING  # Info, Warning and the other -v/-vv lines: nothing kept


def plain_error(line: str) -> str | None:
    """The error a line without the ``nuttcp-`` prefix reports, or None."""
    return line.strip() if _PLAIN_ERROR_RE.match(line) is not None else None
