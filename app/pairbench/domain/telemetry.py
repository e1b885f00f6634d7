"""Host telemetry's vocabulary: how its streams are named, and which NIC counters mean what.

Telemetry is stored as series of the run beside the tool's, in streams named ``ROLE:PART``
(``client:cpu``, ``server:cpu3``, ``client:net``): the role (``client`` or ``server``) is the
host the sampler ran on, the part what was sampled there. A tool's own streams (``sum``,
``5``, a fio job's name) never hold a colon after a role, so ``is_telemetry`` tells them
apart.
"""

from __future__ import annotations

import re
from typing import Final, Literal

# The analysis kind of what the samplers said of their hosts (interface, cores, notes).
TELEMETRY_KIND: Final = "telemetry"

Role = Literal["client", "server"]
ROLES: Final[tuple[Role, ...]] = ("client", "server")

CPU: Final = "cpu"  # all cores; "cpuN" is core N
NET: Final = "net"  # the data interface's counters (/proc/net/dev)
NIC: Final = "nic"  # the data interface's ethtool -S counters
TCP: Final = "tcp"  # /proc/net/snmp and /proc/net/netstat, host-wide
UDP: Final = "udp"
CONN: Final = "conn"  # ss -ti of the tool's TCP connections
SOCK: Final = "sock"  # ss -u -m of the tool's UDP sockets
PROC: Final = "proc"  # the tool's own processes and threads
DISK: Final = "disk"  # /proc/diskstats of the device under test (fio)

# The cloud NICs' allowance counters: packets the provider shaped (queued or dropped)
# because the instance exceeded an allowance. AWS ENA (ena_ethtool.c "ena_stats_eni_strings";
# AWS EC2 user guide, "Monitor network performance for ENA settings on your EC2 instance").
# No other provider's guest driver exposes such counters: GCP's gVNIC (gve) and Azure's
# MANA and netvsc count only the guest's own drops (``DROP_COUNTERS``).
ALLOWANCE_COUNTERS: Final = (
    "bw_in_allowance_exceeded",
    "bw_out_allowance_exceeded",
    "pps_allowance_exceeded",
    "conntrack_allowance_exceeded",
    "linklocal_allowance_exceeded",
)
# What each allowance is, for a verdict's evidence.
ALLOWANCE_MEANING: Final = {
    "bw_in_allowance_exceeded": "the instance's inbound bandwidth allowance",
    "bw_out_allowance_exceeded": "the instance's outbound bandwidth allowance",
    "pps_allowance_exceeded": "the instance's packets-per-second allowance",
    "conntrack_allowance_exceeded": "the instance's connection-tracking allowance",
    "linklocal_allowance_exceeded": "the packet rate allowed to link-local services",
}
# A level, not a counter: how many more connections the instance may track (ENA).
ALLOWANCE_GAUGES: Final = ("conntrack_allowance_available",)


def stream_name(role: Role, part: str) -> str:
    """``client:cpu3``: the stream of ``part`` sampled on the ``role`` host."""
    return f"{role}:{part}"


def split_stream(stream: str) -> tuple[Role, str] | None:
    """(role, part) of a telemetry stream; None for a tool's own stream."""
    role, sep, part = stream.partition(":")
    if not sep or not part:
        return None
    if role == "client":
        return "client", part
    if role == "server":
        return "server", part
    return None


def is_telemetry(stream: str) -> bool:
    """True for a stream of host telemetry (``client:cpu``), False for the tool's own."""
    return split_stream(stream) is not None


def core_of(part: str) -> int | None:
    """The core number of a per-core part (``cpu3`` → 3); None for anything else."""
    if part.startswith(CPU) and part[len(CPU) :].isdigit():
        return int(part[len(CPU) :])
    return None


def ethtool_metric(counter: str) -> str:
    """The metric of an ethtool counter: its rate per second (``ethtool_<counter>_pps``), or
    its level for a gauge (``ethtool_<counter>``); what is no letter, digit or ``_`` in a
    driver's name (vmxnet3's "ring full") becomes ``_``."""
    name = re.sub(r"[^A-Za-z0-9_]+", "_", counter).strip("_")
    return f"ethtool_{name}" if counter in ALLOWANCE_GAUGES else f"ethtool_{name}_pps"


def ethtool_counter(metric: str) -> str | None:
    """The ethtool counter a metric of ``ethtool_metric`` holds; None for another metric."""
    if not metric.startswith("ethtool_"):
        return None
    name = metric[len("ethtool_") :]
    return name[: -len("_pps")] if name.endswith("_pps") else name
