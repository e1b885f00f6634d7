"""iperf3's TCP and IP options (-C, -Z, -B, -M, --fq-rate, -S, --dscp, --cport): checked, put
on the client's command line once each, refused where iperf3 would refuse them."""

from __future__ import annotations

import pytest

from pairbench.tools import iperf3
from pairbench.tools.base import Capabilities, CommandContext, ParamError

CAPS = Capabilities("iperf 3.12", (3, 12))
CTX = CommandContext("10.0.0.2", 5201)

FLAGS = {
    "congestion": ("cubic", ["-C", "cubic"]),
    "zerocopy": ("true", ["-Z"]),
    "bind": ("10.0.0.1%data", ["-B", "10.0.0.1%data"]),
    "mss": ("1400", ["-M", "1400"]),
    "fq_rate": ("1G", ["--fq-rate", "1G"]),
    "tos": ("184", ["-S", "184"]),
    "dscp": ("AF41", ["--dscp", "AF41"]),
    "cport": ("40000", ["--cport", "40000"]),
}


def _client(**given: str) -> list[str]:
    return iperf3.commands(iperf3.resolve(given), CAPS, CTX).client


@pytest.mark.parametrize("name", sorted(FLAGS))
def test_each_flag_reaches_the_client_once_and_only_when_set(name: str) -> None:
    value, expected = FLAGS[name]
    plain = _client()
    client = _client(**{name: value})
    assert expected[0] not in plain
    added = client[len(plain) :] if client[: len(plain)] == plain else None
    assert added == expected, client
    server = iperf3.commands(iperf3.resolve({name: value}), CAPS, CTX).server
    assert expected[0] not in server  # client-side options only


def test_the_flags_together_keep_their_values_and_the_rest_of_the_line() -> None:
    given = {name: value for name, (value, _) in FLAGS.items() if name != "tos"}
    client = _client(**given, streams="2", window="4M")
    for name, (_, expected) in FLAGS.items():
        if name != "tos":
            at = client.index(expected[0])
            assert client[at : at + len(expected)] == expected
    assert client[client.index("-P") + 1] == "2" and client[client.index("-w") + 1] == "4M"


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({"tos": "16", "dscp": "EF"}, "tos and dscp"),
        ({"mss": "40"}, "at least 88"),
        ({"mss": "10000"}, "at most 9216"),
        ({"udp": "true", "congestion": "bbr"}, "congestion is for TCP"),
        ({"udp": "true", "fq_rate": "1G"}, "fq_rate is for TCP"),
        ({"dscp": "64"}, "dscp must be"),
        ({"dscp": "XX1"}, "dscp must be"),
        ({"congestion": "bbr; rm -rf /"}, "congestion must be"),
        ({"bind": "10.0.0.1 -c evil"}, "bind must be"),
        ({"tos": "256"}, "at most 255"),
        ({"cport": "70000"}, "at most 65535"),
    ],
)
def test_bad_values_are_refused_with_the_reason(given: dict[str, str], words: str) -> None:
    with pytest.raises(ParamError, match=words):
        iperf3.resolve(given)
