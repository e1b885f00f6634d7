"""Which plot a metric goes to, and how plots are grouped in rows (Qt-free).

A run's plots are decided from the metric names in its records as they arrive: iperf3 TCP
gives throughput plus retransmits and congestion window, UDP tools jitter and loss, ping the
round-trip time, uperf latency and operations per second, fio IOPS, bandwidth and latency per
direction. Metrics nobody planned for get a plot of their own at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

from pairbench.domain.metrics import METRICS, metric_unit


@dataclass(frozen=True, slots=True)
class PlotSpec:
    """One plot: its id, title, the unit of every metric on it, and the row it sits in."""

    id: str
    title: str
    unit: str
    row: str
    primary: str  # curves of this metric are named by stream alone; others add the metric
    # Metrics drawn against a right-hand axis of their own (lost datagrams beside the totals),
    # named there by ``secondary_label``.
    secondary: tuple[str, ...] = ()
    secondary_label: str = ""
    # The legend's name for the "sum" stream where it is no total but the tool's one
    # measurement (ping's round-trip times: "RTT", not "sum").
    sum_name: str = "sum"


@dataclass(frozen=True, slots=True)
class RowSpec:
    """A row of plots sharing a theme (TCP, UDP, fio reads...)."""

    id: str
    title: str
    stretch: int = 1


ROWS: tuple[RowSpec, ...] = (
    RowSpec("throughput", "Throughput", 2),
    RowSpec("tcp", "TCP"),
    RowSpec("udp", "UDP"),
    RowSpec("rtt", "Round-trip time", 2),
    RowSpec("uperf", "Transactions", 2),
    RowSpec("fio-read", "Reads", 2),
    RowSpec("fio-write", "Writes", 2),
    RowSpec("other", "Other"),
)
ROW_ORDER = {row.id: i for i, row in enumerate(ROWS)}

_PLOTS: tuple[tuple[PlotSpec, tuple[str, ...]], ...] = (
    (
        PlotSpec("throughput", "Throughput", "bit/s", "throughput", "throughput_bps"),
        ("throughput_bps", "throughput_reverse_bps", "sender_throughput_bps"),
    ),
    (PlotSpec("retransmits", "Retransmits", "count", "tcp", "retransmits"), ("retransmits",)),
    (PlotSpec("cwnd", "Congestion window", "B", "tcp", "cwnd_bytes"), ("cwnd_bytes",)),
    (PlotSpec("jitter", "Jitter", "ms", "udp", "jitter_ms"), ("jitter_ms",)),
    (PlotSpec("loss", "Loss", "%", "udp", "lost_percent"), ("lost_percent",)),
    (
        PlotSpec(
            "datagrams",
            "Datagrams (lost: right axis)",
            "count",
            "udp",
            "packets",
            secondary=("lost_packets",),
            secondary_label="lost",
        ),
        ("packets", "lost_packets"),
    ),
    (PlotSpec("rtt", "Round-trip time", "ms", "rtt", "rtt_ms", sum_name="RTT"), ("rtt_ms",)),
    (
        PlotSpec("latency", "Transaction latency", "µs", "uperf", "latency_avg_us"),
        ("latency_avg_us", "write_avg_us", "read_avg_us"),
    ),
    (PlotSpec("ops", "Operations", "op/s", "uperf", "ops_per_s"), ("ops_per_s",)),
    (PlotSpec("read-iops", "Read IOPS", "IO/s", "fio-read", "read_iops"), ("read_iops",)),
    (
        PlotSpec("read-bw", "Read bandwidth", "B/s", "fio-read", "read_bytes_per_s"),
        ("read_bytes_per_s",),
    ),
    (
        PlotSpec("read-lat", "Read latency", "µs", "fio-read", "read_lat_mean_us"),
        ("read_lat_mean_us", "read_lat_p50_us", "read_lat_p99_us", "read_lat_p999_us"),
    ),
    (PlotSpec("write-iops", "Write IOPS", "IO/s", "fio-write", "write_iops"), ("write_iops",)),
    (
        PlotSpec("write-bw", "Write bandwidth", "B/s", "fio-write", "write_bytes_per_s"),
        ("write_bytes_per_s",),
    ),
    (
        PlotSpec("write-lat", "Write latency", "µs", "fio-write", "write_lat_mean_us"),
        ("write_lat_mean_us", "write_lat_p50_us", "write_lat_p99_us", "write_lat_p999_us"),
    ),
)
PLOTS: dict[str, PlotSpec] = {spec.id: spec for spec, _ in _PLOTS}
_BY_METRIC: dict[str, PlotSpec] = {m: spec for spec, metrics in _PLOTS for m in metrics}
PLOT_ORDER = {spec.id: i for i, (spec, _) in enumerate(_PLOTS)}


def plot_for(metric: str) -> PlotSpec:
    """The plot a metric is drawn on (a plot of its own in the "other" row if unplanned)."""
    spec = _BY_METRIC.get(metric)
    if spec is not None:
        return spec
    known = METRICS.get(metric)
    title = known.label if known else metric
    return PlotSpec(f"metric:{metric}", title, metric_unit(metric), "other", metric)


def sort_key(spec: PlotSpec) -> tuple[int, int, str]:
    """Where a plot goes: rows in ROWS order, plots in table order, unplanned ones by name."""
    return (ROW_ORDER[spec.row], PLOT_ORDER.get(spec.id, len(PLOT_ORDER)), spec.id)


# Metrics sampled at an instant (one ping reply), not over an interval: their spacing says
# nothing about a "partial" sample, so a short last spacing is drawn as any other.
INSTANT_METRICS = frozenset({"rtt_ms"})


def stream_name(stream: str) -> str:
    """A stream as a legend names it: "sum", "stream 5"."""
    return stream if not stream.isdigit() else f"stream {stream}"


def curve_name(spec: PlotSpec, stream: str, metric: str) -> str:
    """A curve's legend name: the stream ("sum", "stream 5"), plus the metric if not primary."""
    name = spec.sum_name if stream == "sum" else stream_name(stream)
    if metric == spec.primary and metric not in _NAMED_PRIMARIES:
        return name
    known = METRICS.get(metric)
    what = _SHORT.get(metric) or (known.label if known else metric)
    return f"{what} · {name}"


# Primaries drawn beside other statistics of the same quantity: named, "mean · sum".
_NAMED_PRIMARIES = frozenset({"read_lat_mean_us", "write_lat_mean_us"})
_SHORT = {
    "read_lat_mean_us": "mean",
    "write_lat_mean_us": "mean",
    "throughput_reverse_bps": "reverse",
    "sender_throughput_bps": "sender",
    "lost_packets": "lost",
    "write_avg_us": "write",
    "read_avg_us": "read",
    "read_lat_p50_us": "p50",
    "read_lat_p99_us": "p99",
    "read_lat_p999_us": "p99.9",
    "write_lat_p50_us": "p50",
    "write_lat_p99_us": "p99",
    "write_lat_p999_us": "p99.9",
}
