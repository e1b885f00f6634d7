"""Metrics named in the vocabulary of the tool that measured them: ping counts packets,
iperf3 and nuttcp count datagrams; everything else keeps the shared label."""

from __future__ import annotations

from pairbench.domain.metrics import METRICS, metric_label, metric_order


def test_ping_speaks_of_packets_and_iperf3_of_datagrams() -> None:
    assert metric_label("lost_packets", "ping") == "Lost packets"
    assert metric_label("packets", "ping") == "Packets"
    assert metric_label("lost_packets", "iperf3") == METRICS["lost_packets"].label
    assert "datagram" in metric_label("lost_packets", "nuttcp").lower()
    assert metric_label("throughput_bps", "ping") == METRICS["throughput_bps"].label
    assert metric_label("made_up_metric", "ping") == "made up metric"


def test_metrics_sort_in_the_vocabulary_order_unknown_ones_last() -> None:
    names = ["zeta", "rtt_avg_ms", "throughput_bps", "alpha"]
    ordered = metric_order(names)
    known = list(METRICS)
    assert ordered[:2] == sorted(names[1:3], key=known.index)
    assert ordered[2:] == ["alpha", "zeta"]
