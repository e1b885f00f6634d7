"""The rate a run was told to keep, per tool, as its parameters say it (iperf3's own rule: an
empty bitrate is 1 Mbit/s for UDP and unlimited for TCP, 0 is unlimited)."""

from __future__ import annotations

import pytest

from pairbench.domain.diagnosis import Target
from pairbench.tools.targets import data_sender, run_target, socket_proto


@pytest.mark.parametrize(
    ("tool", "params", "expected"),
    [
        ("iperf3", {"udp": "true"}, (1e6, "bitrate unset (iperf3's UDP default, 1M)")),
        ("iperf3", {"udp": "true", "bitrate": "0"}, None),
        ("iperf3", {"udp": "false"}, None),
        ("iperf3", {"bitrate": "0"}, None),
        ("iperf3", {"bitrate": "50M", "streams": "2"}, (100e6, "bitrate=50M")),  # -b per stream
        ("iperf3", {"bitrate": "1.5G", "bidir": "true"}, None),  # two directions, two targets
        ("nuttcp", {"udp": "true", "rate": "2G"}, (2e9, "rate=2G")),
        ("nuttcp", {"udp": "false", "rate": "2G"}, None),  # TCP: nuttcp's rate is UDP's
        ("fio", {"jobfile_text": "[a]\nrate_iops=500\nnumjobs=4\n"}, (2000.0, "rate_iops=500")),
        ("fio", {"rw": "randread"}, None),
        ("uperf", {"profile": "throughput"}, None),
    ],
)
def test_run_targets(tool: str, params: dict[str, str], expected: tuple[float, str] | None) -> None:
    target = run_target(tool, params)
    if expected is None:
        assert target is None
    else:
        assert isinstance(target, Target)
        assert target.value == pytest.approx(expected[0])
        assert target.setting == expected[1]


def test_who_sends_and_over_what() -> None:
    assert data_sender("iperf3", {}) == "client"
    assert data_sender("iperf3", {"reverse": "true"}) == "server"
    assert data_sender("iperf3", {"bidir": "true"}) is None
    assert data_sender("ping", {}) is None
    assert socket_proto("iperf3", {"udp": "true"}) == "udp"
    assert socket_proto("uperf", {"protocol": "udp"}) == "udp"
    assert socket_proto("fio", {}) == ""
