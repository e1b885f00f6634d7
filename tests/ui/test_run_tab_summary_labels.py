"""The run tab's summary rows name a ping run's figures as packets, not datagrams."""

from __future__ import annotations

from pairbench.ui.run.run_tab import summary_rows


def test_a_ping_summary_says_packets() -> None:
    summary = {"lost_packets": 2.0, "packets": 50.0, "rtt_avg_ms": 0.5}
    labels = [label for label, _ in summary_rows(summary, "ping")]
    assert labels == ["Lost packets", "Packets", "Mean RTT"]  # the vocabulary's order
    assert not any("atagram" in label for label in labels)
    udp = [label for label, _ in summary_rows(summary, "iperf3")]
    assert any("atagram" in label for label in udp)
