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
