"""``ethtool -S`` read from real NICs' outputs: counters, queues summed, the telling ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from pairbench.domain.telemetry import ALLOWANCE_COUNTERS, ethtool_counter, ethtool_metric
from pairbench.tools import ethtool_stats

DATA = Path(__file__).parent.parent / "data" / "ethtool"


def _read(name: str) -> dict[str, int]:
    return ethtool_stats.collapse(ethtool_stats.parse((DATA / name).read_text()))


def test_aws_ena_allowance_counters_come_first_with_their_values() -> None:
    counters = _read("ena-sliderule-518.txt")
    # The values the issue quotes.
    assert counters["bw_in_allowance_exceeded"] == 3241329
    assert counters["bw_out_allowance_exceeded"] == 530
    assert counters["pps_allowance_exceeded"] == 784
    assert counters["conntrack_allowance_available"] == 615471
    chosen = ethtool_stats.telling(counters)
    assert chosen[:6] == [*ALLOWANCE_COUNTERS, "conntrack_allowance_available"]
    assert "interface_up" not in chosen and "ena_admin_q_submitted_cmd" not in chosen
    assert "missing_tx_cmpl" in chosen and "tx_timeout" in chosen


def test_virtio_queues_are_summed_under_one_name() -> None:
    counters = _read("virtio-net-netdata-17015.txt")
    # 77805 + 341999 + 24064 + 156304, the four queues the issue shows.
    assert counters["rx_queue_packets"] == 600172
    assert counters["rx_queue_kicks"] == 2 + 6 + 1
    assert not any(ch.isdigit() for name in counters for ch in name)
    assert ethtool_stats.telling(counters) == ["rx_queue_drops", "rx_queue_xdp_drops"]


def test_a_device_wide_counter_wins_over_its_queues_sum() -> None:
    """virtio_net on kernel 6.18 prints ``rx_kicks`` and ``rx0_kicks``: summing the queue
    into it would count it twice."""
    counters = _read("virtio-net-vm.txt")
    raw = ethtool_stats.parse((DATA / "virtio-net-vm.txt").read_text())
    assert counters["rx_kicks"] == raw["rx_kicks"] == raw["rx0_kicks"]
    assert "rx0_drops" not in counters and "rx_drops" in counters


def test_bnx2x_bracketed_queues() -> None:
    counters = _read("bnx2x-ethq-6.txt")
    assert counters["rx_bytes"] == 209487403324 + 207561754146
    assert counters["tx_bcast_packets"] == 8249
    assert "rx_discards" in ethtool_stats.telling(counters)


def test_be2net_queue_prefixes() -> None:
    counters = _read("be2net-netutils-208.txt")
    assert counters["rxq_rx_drops_no_frags"] == 3885606854
    assert counters["rx_dropped_tcp_length"] == 1772495


def test_vmxnet3_queue_sections_and_names_with_spaces() -> None:
    counters = _read("vmxnet3-collectd-1059.txt")
    assert counters["txq_ring full"] == 7 + 840  # two Tx queues' "ring full"
    assert counters["rxq_ucast pkts rx"] == 61069323477
    assert "Tx Queue#" not in counters and "txq_Tx Queue#" not in counters
    assert ethtool_metric("txq_ring full") == "ethtool_txq_ring_full_pps"


def test_mlx5_and_veth_keep_their_drop_counters() -> None:
    mlx5 = ethtool_stats.telling(_read("mlx5-ethq-8.txt"))
    assert {"rx_xdp_drop", "tx_queue_stopped"} <= set(mlx5)
    assert "rx_packets" not in mlx5
    veth = _read("veth-netns.txt")
    assert "peer_ifindex" in veth  # not a counter, and not chosen
    assert ethtool_stats.telling(veth)[0] == "rx_queue_drops"


def test_gvnic_names_from_its_driver() -> None:
    """gve (gve_ethtool.c): device-wide counters, then ``name[queue]`` per queue."""
    text = "NIC statistics:\n" + "\n".join(
        [
            "     rx_bytes: 500",
            "     rx_dropped: 4",
            "     rx_bytes[0]: 200",
            "     rx_bytes[1]: 300",
            "     rx_no_buffers_posted[0]: 1",
            "     rx_no_buffers_posted[1]: 2",
            "     rx_drops_packet_over_mru[0]: 5",
        ]
    )
    counters = ethtool_stats.collapse(ethtool_stats.parse(text))
    assert counters == {
        "rx_bytes": 500,
        "rx_dropped": 4,
        "rx_no_buffers_posted": 3,
        "rx_drops_packet_over_mru": 5,
    }
    assert ethtool_stats.telling(counters) == [
        "rx_dropped",
        "rx_no_buffers_posted",
        "rx_drops_packet_over_mru",
    ]


@pytest.mark.parametrize(
    "text",
    ["", "no stats available", "Cannot get stats strings information: Operation not supported"],
)
def test_no_statistics_is_no_counter(text: str) -> None:
    assert ethtool_stats.parse(text) == {}
    assert ethtool_stats.telling({}) == []


def test_at_most_forty_counters_are_kept() -> None:
    names = [f"rx_drop_reason_{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(60)]
    assert len(ethtool_stats.telling(names)) == ethtool_stats.MAX_COUNTERS


def test_metric_names_round_trip_for_the_allowances() -> None:
    for counter in ALLOWANCE_COUNTERS:
        assert ethtool_counter(ethtool_metric(counter)) == counter
    assert ethtool_metric("conntrack_allowance_available") == (
        "ethtool_conntrack_allowance_available"
    )
