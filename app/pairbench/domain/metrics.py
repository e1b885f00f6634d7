"""Metric names with their units (DESIGN §4): the vocabulary every parser and view shares."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Metric:
    """A measured quantity: its stable name (which carries the unit) and the unit's symbol."""

    name: str
    unit: str
    label: str
    # The finest step the tools print it in (base unit), where that is coarser than 3
    # significant digits: iperf3's jitter and ping's times are printed to the µs
    # ("0.003 ms"), so "0.00300 ms" would claim digits no tool measured.
    resolution: float | None = None


# Host telemetry (``tools/host_sampler.py``; streams named ``ROLE:PART``, see
# ``domain/telemetry.py``): per interval, as percentages, rates or levels. ethtool's counters
# are named at run time (``ethtool_<counter>_pps``, unit from the suffix).
TELEMETRY_METRICS: tuple[Metric, ...] = (
    Metric("cpu_busy_percent", "%", "CPU busy"),
    Metric("cpu_user_percent", "%", "CPU user"),
    Metric("cpu_system_percent", "%", "CPU system"),
    Metric("cpu_softirq_percent", "%", "CPU softirq"),
    Metric("cpu_irq_percent", "%", "CPU irq"),
    Metric("cpu_steal_percent", "%", "CPU steal"),
    Metric("cpu_iowait_percent", "%", "CPU I/O wait"),
    Metric("cpu_idle_percent", "%", "CPU idle"),
    Metric("nic_rx_bps", "bit/s", "NIC received"),
    Metric("nic_tx_bps", "bit/s", "NIC sent"),
    Metric("nic_rx_pps", "pkt/s", "NIC packets received"),
    Metric("nic_tx_pps", "pkt/s", "NIC packets sent"),
    Metric("nic_rx_drop_pps", "pkt/s", "NIC receive drops"),
    Metric("nic_tx_drop_pps", "pkt/s", "NIC send drops"),
    Metric("nic_rx_error_pps", "pkt/s", "NIC receive errors"),
    Metric("nic_tx_error_pps", "pkt/s", "NIC send errors"),
    Metric("tcp_out_pps", "pkt/s", "TCP segments sent"),
    Metric("tcp_retrans_pps", "pkt/s", "TCP retransmitted segments"),
    Metric("tcp_in_error_pps", "pkt/s", "TCP receive errors"),
    Metric("tcp_timeouts_per_s", "op/s", "TCP timeouts"),
    Metric("tcp_rcvq_drop_pps", "pkt/s", "TCP receive-queue drops"),
    Metric("tcp_backlog_drop_pps", "pkt/s", "TCP backlog drops"),
    Metric("tcp_ofo_drop_pps", "pkt/s", "TCP out-of-order drops"),
    Metric("tcp_zero_window_drop_pps", "pkt/s", "TCP zero-window drops"),
    Metric("udp_in_pps", "pkt/s", "UDP datagrams received"),
    Metric("udp_out_pps", "pkt/s", "UDP datagrams sent"),
    Metric("udp_rcvbuf_error_pps", "pkt/s", "UDP receive-buffer errors"),
    Metric("udp_sndbuf_error_pps", "pkt/s", "UDP send-buffer errors"),
    Metric("udp_in_error_pps", "pkt/s", "UDP receive errors"),
    Metric("udp_no_port_pps", "pkt/s", "UDP datagrams to no port"),
    Metric("conn_count", "count", "Connections moving data"),
    Metric("conn_cwnd_bytes", "B", "Congestion window (ss)"),
    Metric("conn_rtt_ms", "ms", "Connection RTT (ss)"),
    Metric("conn_delivery_bps", "bit/s", "Delivery rate (ss)"),
    Metric("conn_rwnd_limited_percent", "%", "Receive-window limited"),
    Metric("conn_sndbuf_limited_percent", "%", "Send-buffer limited"),
    Metric("conn_snd_wnd_bytes", "B", "Peer's receive window"),
    Metric("conn_sndbuf_bytes", "B", "Send buffer"),
    Metric("conn_rcvbuf_bytes", "B", "Receive buffer"),
    Metric("sock_rcvbuf_bytes", "B", "Socket receive buffer"),
    Metric("sock_rx_queue_bytes", "B", "Socket receive queue"),
    Metric("sock_drop_pps", "pkt/s", "Socket drops"),
    Metric("proc_cpu_percent", "%", "Tool CPU (of one core)"),
    Metric("proc_thread_max_percent", "%", "Tool's busiest thread"),
    Metric("proc_thread_wait_percent", "%", "Busiest thread waiting for a CPU"),
    Metric("disk_util_percent", "%", "Disk utilisation"),
    Metric("disk_queue_depth", "count", "Disk queue (mean in flight)"),
    Metric("disk_read_iops", "IO/s", "Disk reads"),
    Metric("disk_write_iops", "IO/s", "Disk writes"),
    Metric("disk_read_bytes_per_s", "B/s", "Disk read bandwidth"),
    Metric("disk_write_bytes_per_s", "B/s", "Disk write bandwidth"),
    Metric("disk_read_merge_per_s", "op/s", "Disk read merges"),
    Metric("disk_write_merge_per_s", "op/s", "Disk write merges"),
    Metric("ethtool_conntrack_allowance_available", "count", "Conntrack allowance available"),
)

TELEMETRY_METRIC_NAMES = frozenset(m.name for m in TELEMETRY_METRICS)


def is_telemetry_metric(name: str) -> bool:
    """True for a host telemetry metric (never a value of a run's summary)."""
    return name in TELEMETRY_METRIC_NAMES or name.startswith("ethtool_")


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("throughput_bps", "bit/s", "Throughput"),
        Metric("throughput_reverse_bps", "bit/s", "Reverse throughput"),
        Metric("retransmits", "count", "Retransmits"),
        Metric("cwnd_bytes", "B", "Congestion window"),
        Metric("jitter_ms", "ms", "Jitter", 0.001),
        Metric("one_way_delay_ms", "ms", "One-way delay"),
        Metric("induced_delay_ms", "ms", "Induced delay"),
        Metric("lost_packets", "count", "Lost datagrams"),
        Metric("packets", "count", "Datagrams"),
        Metric("lost_percent", "%", "Loss"),
        Metric("ops_per_s", "op/s", "Operations"),
        Metric("latency_avg_us", "µs", "Mean latency"),
        Metric("rtt_ms", "ms", "Round-trip time", 0.001),
        Metric("rtt_min_ms", "ms", "Minimum RTT", 0.001),
        Metric("rtt_avg_ms", "ms", "Mean RTT", 0.001),
        Metric("rtt_max_ms", "ms", "Maximum RTT", 0.001),
        Metric("rtt_mdev_ms", "ms", "RTT deviation", 0.001),
        Metric("duplicate_packets", "count", "Duplicate replies"),
        Metric("corrupted_packets", "count", "Corrupted replies"),
        Metric("icmp_errors", "count", "ICMP errors"),
        Metric("sender_throughput_bps", "bit/s", "Sender throughput"),
        Metric("total_throughput_bps", "bit/s", "Total throughput (whole run)"),
        Metric("write_avg_us", "µs", "Mean write time"),
        Metric("read_avg_us", "µs", "Mean read time"),
        Metric("read_iops", "IO/s", "Read IOPS"),
        Metric("write_iops", "IO/s", "Write IOPS"),
        Metric("read_bytes_per_s", "B/s", "Read bandwidth"),
        Metric("write_bytes_per_s", "B/s", "Write bandwidth"),
        Metric("read_lat_mean_us", "µs", "Read mean latency"),
        Metric("read_lat_p99_us", "µs", "Read p99 latency"),
        Metric("write_lat_mean_us", "µs", "Write mean latency"),
        Metric("write_lat_p99_us", "µs", "Write p99 latency"),
        Metric("read_lat_p50_us", "µs", "Read median latency"),
        Metric("read_lat_p999_us", "µs", "Read p99.9 latency"),
        Metric("write_lat_p50_us", "µs", "Write median latency"),
        Metric("write_lat_p999_us", "µs", "Write p99.9 latency"),
        Metric("read_lat_p9999_us", "µs", "Read p99.99 latency"),
        Metric("write_lat_p9999_us", "µs", "Write p99.99 latency"),
        Metric("tx_cpu_percent", "%", "Sender CPU"),
        Metric("rx_cpu_percent", "%", "Receiver CPU"),
        *TELEMETRY_METRICS,
    )
}


# Where a tool names a quantity its own way: ping counts packets, iperf3 and nuttcp datagrams.
_TOOL_LABELS: dict[tuple[str, str], str] = {
    ("ping", "lost_packets"): "Lost packets",
    ("ping", "packets"): "Packets",
    ("ping", "lost_percent"): "Packet loss",
    ("fio", "lost_percent"): "Errors",
}


def metric_label(name: str, tool: str = "") -> str:
    """How a metric is named to a reader, in the vocabulary of the tool that measured it."""
    label = _TOOL_LABELS.get((tool, name))
    if label is not None:
        return label
    known = METRICS.get(name)
    return known.label if known is not None else name.replace("_", " ")


def metric_order(names: Iterable[str]) -> list[str]:
    """Metric names in the vocabulary's order (unknown ones last, by name)."""
    order = {name: i for i, name in enumerate(METRICS)}
    return sorted(names, key=lambda n: (order.get(n, len(order)), n))


# The unit a metric name ends in (DESIGN §4: names carry their unit), longest suffix first.
_SUFFIX_UNITS: tuple[tuple[str, str], ...] = (
    ("_time_s", "s"),
    ("_count", "count"),
    ("_bytes_per_s", "B/s"),
    ("_pps", "pkt/s"),
    ("_per_s", "op/s"),
    ("_bps", "bit/s"),
    ("_bytes", "B"),
    ("_iops", "IO/s"),
    ("_percent", "%"),
    ("_ms", "ms"),
    ("_us", "µs"),
)


# A storage suite's report column (CloudHarmony's names, e.g. ``iops_4k_100_0``,
# ``latency_4k_0_100_mean``, ``throughput_1024k_100_0``) as a campaign cell's metric, whose
# value is kept in the suite tables' own units.
_COLUMN_UNITS: tuple[tuple[str, str], ...] = (
    ("iops_", "IO/s"),
    ("latency_", "µs"),
    ("throughput_", "B/s"),
)


def metric_resolution(name: str) -> float | None:
    """The finest step the tools print ``name`` in (its base unit), or None (3 significant
    digits say it all)."""
    metric = METRICS.get(name)
    return metric.resolution if metric is not None else None


def metric_unit(name: str) -> str:
    """The unit of a metric name: from ``METRICS``, else from the name's suffix
    (``foo_bps`` → bit/s), else a storage report column's, else an empty unit rather than
    an error."""
    metric = METRICS.get(name)
    if metric is not None:
        return metric.unit
    found = next((unit for suffix, unit in _SUFFIX_UNITS if name.endswith(suffix)), None)
    if found is not None:
        return found
    return next((unit for prefix, unit in _COLUMN_UNITS if name.startswith(prefix)), "")
