"""Two readings of a host's kernel counters → telemetry records (percentages, rates, levels).

Pure functions over what ``tools/sampler_parse.py`` gathered of two samples; ``dt`` is the
host's own time between them. A counter that went backwards (a reset, a wrap) gives NaN for
that interval, never a negative or huge rate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

from pairbench.domain import Record
from pairbench.domain.telemetry import (
    CONN,
    CPU,
    DISK,
    NET,
    PROC,
    SOCK,
    TCP,
    UDP,
    Role,
    stream_name,
)
from pairbench.tools.ss_stats import Socket

NAN: Final = math.nan
# Per-core streams are stored for the first cores only (a 192-core host would otherwise
# store 1,500 series a host); the aggregate covers them all.
MAX_CORES: Final = 64

CPU_METRICS: Final = (
    "cpu_busy_percent",
    "cpu_user_percent",
    "cpu_system_percent",
    "cpu_softirq_percent",
    "cpu_irq_percent",
    "cpu_steal_percent",
    "cpu_iowait_percent",
    "cpu_idle_percent",
)
NET_METRICS: Final = (
    "nic_rx_bps",
    "nic_tx_bps",
    "nic_rx_pps",
    "nic_tx_pps",
    "nic_rx_drop_pps",
    "nic_tx_drop_pps",
    "nic_rx_error_pps",
    "nic_tx_error_pps",
)
# (metric, /proc/net/snmp or netstat line prefix, field)
TCP_FIELDS: Final = (
    ("tcp_out_pps", "Tcp", "OutSegs"),
    ("tcp_retrans_pps", "Tcp", "RetransSegs"),
    ("tcp_in_error_pps", "Tcp", "InErrs"),
    ("tcp_timeouts_per_s", "TcpExt", "TCPTimeouts"),
    ("tcp_rcvq_drop_pps", "TcpExt", "TCPRcvQDrop"),
    ("tcp_backlog_drop_pps", "TcpExt", "TCPBacklogDrop"),
    ("tcp_ofo_drop_pps", "TcpExt", "TCPOFODrop"),
    ("tcp_zero_window_drop_pps", "TcpExt", "TCPZeroWindowDrop"),
)
UDP_FIELDS: Final = (
    ("udp_in_pps", "Udp", "InDatagrams"),
    ("udp_out_pps", "Udp", "OutDatagrams"),
    ("udp_rcvbuf_error_pps", "Udp", "RcvbufErrors"),
    ("udp_sndbuf_error_pps", "Udp", "SndbufErrors"),
    ("udp_in_error_pps", "Udp", "InErrors"),
    ("udp_no_port_pps", "Udp", "NoPorts"),
)
PROC_METRICS: Final = ("proc_cpu_percent", "proc_thread_max_percent", "proc_thread_wait_percent")
DISK_METRICS: Final = (
    "disk_util_percent",
    "disk_queue_depth",
    "disk_read_iops",
    "disk_write_iops",
    "disk_read_bytes_per_s",
    "disk_write_bytes_per_s",
    "disk_read_merge_per_s",
    "disk_write_merge_per_s",
)
CONN_METRICS: Final = (
    "conn_count",
    "conn_cwnd_bytes",
    "conn_rtt_ms",
    "conn_delivery_bps",
    "conn_rwnd_limited_percent",
    "conn_sndbuf_limited_percent",
    "conn_snd_wnd_bytes",
    "conn_sndbuf_bytes",
    "conn_rcvbuf_bytes",
)
SOCK_METRICS: Final = ("sock_rcvbuf_bytes", "sock_rx_queue_bytes", "sock_drop_pps")
# A TCP connection moved data in an interval when its bytes grew by this much (iperf3's idle
# control connection does not).
DATA_BYTES: Final = 65536


def rate(before: float, after: float, dt: float) -> float:
    """(after − before) / dt, NaN when the counter went back or time did not advance."""
    if dt <= 0 or after < before or before < 0 or after < 0:
        return NAN
    return (after - before) / dt


# --- CPU --------------------------------------------------------------------------------------


def _cpu_shares(before: Sequence[int], after: Sequence[int]) -> tuple[float, ...]:
    """``CPU_METRICS`` of one /proc/stat line pair (user nice system idle iowait irq softirq
    steal ...): busy = user + nice + system + irq + softirq + steal."""
    d = [a - b for a, b in zip(after[:8], before[:8], strict=False)]
    d += [0] * (8 - len(d))
    user, nice, system, idle, iowait, irq, softirq, steal = d
    total = sum(d)
    if total <= 0 or min(d) < 0:
        return (NAN,) * len(CPU_METRICS)
    busy = user + nice + system + irq + softirq + steal
    return tuple(
        100.0 * x / total for x in (busy, user + nice, system, softirq, irq, steal, iowait, idle)
    )


def cpu_records(
    role: Role, t: float, before: Mapping[str, list[int]], after: Mapping[str, list[int]]
) -> list[Record]:
    """All cores (``ROLE:cpu``) and each of the first ``MAX_CORES`` (``ROLE:cpuN``)."""
    records = []
    for name, now in after.items():
        then = before.get(name)
        if then is None:
            continue
        if name != CPU:
            core = name[len(CPU) :]
            if not core.isdigit() or int(core) >= MAX_CORES:
                continue
        records.append(Record(stream_name(role, name), t, CPU_METRICS, _cpu_shares(then, now)))
    return records


# --- interface, TCP, UDP ---------------------------------------------------------------------


def net_record(role: Role, t: float, before: list[int], after: list[int], dt: float) -> Record:
    """``ROLE:net`` from /proc/net/dev fields (rx bytes packets errs drop fifo frame compressed
    multicast, tx bytes packets errs drop ...)."""

    def r(i: int) -> float:
        if i >= len(before) or i >= len(after):
            return NAN
        return rate(before[i], after[i], dt)

    values = (8 * r(0), 8 * r(8), r(1), r(9), r(3), r(11), r(2), r(10))
    return Record(stream_name(role, NET), t, NET_METRICS, values)


def snmp_records(
    role: Role,
    t: float,
    before: Mapping[tuple[str, str], int],
    after: Mapping[tuple[str, str], int],
    dt: float,
) -> list[Record]:
    """``ROLE:tcp`` and ``ROLE:udp`` from /proc/net/snmp and /proc/net/netstat fields."""
    records = []
    for part, fields in ((TCP, TCP_FIELDS), (UDP, UDP_FIELDS)):
        values = []
        for _metric, prefix, field in fields:
            key = (prefix, field)
            if key in before and key in after:
                values.append(rate(before[key], after[key], dt))
            else:
                values.append(NAN)
        metrics = tuple(metric for metric, _, _ in fields)
        records.append(Record(stream_name(role, part), t, metrics, tuple(values)))
    return records


# --- the tool's processes, the disk -----------------------------------------------------------


def proc_record(
    role: Role,
    t: float,
    before: Mapping[int, tuple[int, int]],
    after: Mapping[int, tuple[int, int]],
    dt: float,
) -> Record:
    """``ROLE:proc``: the tool's threads' CPU (% of one core), the busiest thread's share and
    how long that thread waited for a CPU (runnable, not running; -1 wait = not known)."""
    total = 0.0
    busiest, waited = NAN, NAN
    for tid, (run_ns, wait_ns) in after.items():
        then = before.get(tid)
        if then is None or dt <= 0:
            continue
        share = 100.0 * max(run_ns - then[0], 0) / (dt * 1e9)
        total += share
        if math.isnan(busiest) or share > busiest:
            busiest = share
            known = wait_ns >= 0 and then[1] >= 0
            waited = 100.0 * max(wait_ns - then[1], 0) / (dt * 1e9) if known else NAN
    if math.isnan(busiest):
        total = NAN
    return Record(stream_name(role, PROC), t, PROC_METRICS, (total, busiest, waited))


def disk_record(
    role: Role, t: float, before: Mapping[str, list[int]], after: Mapping[str, list[int]], dt: float
) -> Record | None:
    """``ROLE:disk`` from /proc/diskstats fields after the name (reads, reads merged, sectors
    read, ms reading, writes, writes merged, sectors written, ms writing, in flight, ms doing
    I/O, weighted ms): utilisation is the busiest device's, the rest summed."""
    util = NAN
    sums = [0.0] * (len(DISK_METRICS) - 1)
    seen = False
    for name, now in after.items():
        then = before.get(name)
        if then is None or len(now) < 11 or len(then) < 11:
            continue
        seen = True
        ms = dt * 1000.0
        busy = 100.0 * rate(then[9], now[9], ms)
        util = busy if math.isnan(util) else max(util, busy)
        parts = (
            rate(then[10], now[10], ms),
            rate(then[0], now[0], dt),
            rate(then[4], now[4], dt),
            512 * rate(then[2], now[2], dt),
            512 * rate(then[6], now[6], dt),
            rate(then[1], now[1], dt),
            rate(then[5], now[5], dt),
        )
        sums = [a + b for a, b in zip(sums, parts, strict=True)]
    if not seen:
        return None
    return Record(stream_name(role, DISK), t, DISK_METRICS, (min(util, 100.0), *sums))


# --- the tool's sockets (ss) -------------------------------------------------------------------


def _moved(then: Socket, now: Socket) -> float:
    keys = ("bytes_acked", "bytes_received")
    return sum(now.values.get(k, 0.0) - then.values.get(k, 0.0) for k in keys)


def conn_record(
    role: Role, t: float, before: Sequence[Socket], after: Sequence[Socket], dt: float
) -> Record:
    """``ROLE:conn``: the tool's TCP connections that moved data in the interval, summed
    (window, delivery rate, buffers: the largest) or averaged (RTT); the share of the
    senders' busy time they were limited by the peer's receive window or their send buffer."""
    earlier = {s.key: s for s in before if s.state == "ESTAB"}
    data = [
        (earlier[s.key], s)
        for s in after
        if s.state == "ESTAB" and s.key in earlier and _moved(earlier[s.key], s) >= DATA_BYTES
    ]
    if not data:
        return Record(stream_name(role, CONN), t, CONN_METRICS, (0.0,) + (NAN,) * 8)
    nows = [now.values for _, now in data]
    cwnd = sum(v.get("cwnd", 0.0) * v.get("mss", 0.0) for v in nows)
    rtts = [v["rtt"] for v in nows if "rtt" in v]
    busy = sum(now.values.get("busy", 0.0) - then.values.get("busy", 0.0) for then, now in data)

    def limited(key: str) -> float:
        if busy <= 0:
            return NAN
        spent = sum(now.values.get(key, 0.0) - then.values.get(key, 0.0) for then, now in data)
        return min(100.0, 100.0 * max(spent, 0.0) / busy)

    def total(key: str) -> float:
        found = [v[key] for v in nows if key in v]
        return sum(found) if found else NAN

    def largest(key: str) -> float:
        found = [v[key] for v in nows if key in v]
        return max(found) if found else NAN

    values = (
        float(len(data)),
        cwnd if cwnd > 0 else NAN,
        sum(rtts) / len(rtts) if rtts else NAN,
        total("delivery_rate"),
        limited("rwnd_limited"),
        limited("sndbuf_limited"),
        total("snd_wnd"),
        largest("skmem_tb"),
        largest("skmem_rb"),
    )
    return Record(stream_name(role, CONN), t, CONN_METRICS, values)


def sock_record(
    role: Role, t: float, before: Sequence[Socket], after: Sequence[Socket], dt: float
) -> Record | None:
    """``ROLE:sock``: the tool's UDP sockets: the largest receive buffer, the bytes queued,
    and the datagrams the kernel dropped on them (skmem ``d``) per second."""
    if not after:
        return None
    earlier = {s.key: s for s in before}
    drops = 0.0
    for s in after:
        then = earlier.get(s.key)
        if then is not None:
            d = rate(then.values.get("skmem_d", 0.0), s.values.get("skmem_d", 0.0), dt)
            drops += 0.0 if math.isnan(d) else d
    buffers = [s.values["skmem_rb"] for s in after if "skmem_rb" in s.values]
    queued = sum(s.values.get("skmem_r", 0.0) for s in after)
    values = (max(buffers) if buffers else NAN, queued, drops if before else NAN)
    return Record(stream_name(role, SOCK), t, SOCK_METRICS, values)
