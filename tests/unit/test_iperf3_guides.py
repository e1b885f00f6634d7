"""iperf3 command lines as guides write them: each one's options as Pairbench parameters
(named after iperf3's long options), and the client line Pairbench builds from them carries
the same options with iperf3's meaning (``-b 0`` unlimited, ``-n``/``-k`` instead of ``-t``,
sub-second ``-i``, ``-p``, ``-4``/``-6``); what cannot be said is refused in one line."""

from __future__ import annotations

import pytest

from pairbench.tools import iperf3
from pairbench.tools.base import Capabilities, CommandContext, ParamError
from pairbench.tools.params import count_value

CAPS = Capabilities("iperf 3.12", (3, 12))
CTX = CommandContext("10.0.0.2", 5201)

# A guide's options → the parameters that say them → the client options iperf3 then gets.
GUIDES: list[tuple[str, dict[str, str], list[list[str]]]] = [
    ("-u -b 0", {"udp": "true", "bitrate": "0"}, [["-u"], ["-b", "0"]]),
    ("-u -b 100M -l 1400", {"udp": "true", "bitrate": "100M", "length": "1400"}, [["-b", "100M"]]),
    ("-b 0 -P 4", {"bitrate": "0", "streams": "4"}, [["-b", "0"], ["-P", "4"]]),
    ("-i 0.5", {"interval": "0.5"}, [["-i", "0.5"], ["-t", "10"]]),
    ("-i 0.1 -t 3", {"interval": "0.1", "duration": "3"}, [["-i", "0.1"], ["-t", "3"]]),
    ("-n 1G", {"bytes": "1G"}, [["-n", "1G"]]),
    ("-n 500M -R", {"bytes": "500M", "reverse": "true"}, [["-n", "500M"], ["-R"]]),
    ("-k 10000", {"blockcount": "10000"}, [["-k", "10000"]]),
    ("-k 1k -l 64K", {"blockcount": "1k", "length": "64K"}, [["-k", "1k"], ["-l", "64K"]]),
    ("-p 5202", {"port": "5202"}, []),  # the port travels in CommandContext: see below
    ("-4", {"version4": "true"}, [["-4"]]),
    ("-6", {"version6": "true"}, [["-6"]]),
    ("-t 30 -P 8 -w 4M", {"duration": "30", "streams": "8", "window": "4M"}, [["-t", "30"]]),
]


def _client(params: dict[str, str]) -> list[str]:
    return iperf3.commands(iperf3.resolve(params), CAPS, CTX).client


def _has(argv: list[str], part: list[str]) -> bool:
    return any(argv[i : i + len(part)] == part for i in range(len(argv)))


@pytest.mark.parametrize(("line", "params", "parts"), GUIDES, ids=[g[0] for g in GUIDES])
def test_a_guide_line_reaches_iperf3_with_its_meaning(
    line: str, params: dict[str, str], parts: list[list[str]]
) -> None:
    client = _client(params)
    for part in parts:
        assert _has(client, part), (line, client)
        assert client.count(part[0]) == 1, client
    ends = [flag for flag in ("-t", "-n", "-k") if flag in client]
    assert len(ends) == 1, client  # iperf3 refuses two of -t, -n, -k


def test_bitrate_zero_is_unlimited_and_empty_is_iperf3s_default() -> None:
    assert _has(_client({"udp": "true", "bitrate": "0"}), ["-b", "0"])
    assert "-b" not in _client({"udp": "true"})  # iperf3's own 1 Mbit/s for UDP
    assert "-b" not in _client({})  # and unlimited TCP
    assert iperf3.resolve({})["bitrate"] == ""


def test_a_run_by_bytes_or_blocks_has_no_duration_and_no_expected_end() -> None:
    for params in ({"bytes": "1G"}, {"blockcount": "100"}):
        resolved = iperf3.resolve(params)
        assert "duration" not in resolved
        assert iperf3.resolve(resolved) == resolved  # idempotent: stored params run again
        assert iperf3.expected_seconds(resolved) == 0.0
        assert "-t" not in _client(params)
    assert iperf3.expected_seconds(iperf3.resolve({"duration": "4", "omit": "1"})) == 5.0


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"bytes": "1G", "duration": "10"}, "duration and bytes cannot be combined"),
        ({"bytes": "1G", "blockcount": "5"}, "bytes and blockcount cannot be combined"),
        ({"bytes": "0"}, "bytes must be more than 0"),
        ({"bytes": "1.5G"}, "bytes must be empty, or a number"),
        ({"bytes": "1G;id"}, "bytes must be empty, or a number"),
        ({"blockcount": "-3"}, "blockcount must be empty, or a number"),
        ({"interval": "0.05"}, "between 0.1 and 60"),
        ({"interval": "61"}, "between 0.1 and 60"),
        ({"interval": "0"}, "between 0.1 and 60"),
        ({"interval": "fast"}, "number of seconds"),
        ({"port": "70000"}, "at most 65535"),
        ({"version4": "true", "version6": "true"}, "version4 and version6"),
        ({"bitrate": "-b 0"}, "bitrate must be"),
        ({"json": "true"}, "Pairbench chooses iperf3's output form"),
        ({"json_stream": "true"}, "--json-stream"),
        ({"format": "m"}, "-f"),
        ({"timestamps": "true"}, "--timestamps"),
        ({"logfile": "/tmp/x"}, "--logfile"),
    ],
)
def test_what_iperf3_would_refuse_or_pairbench_chooses_is_refused_in_one_line(
    params: dict[str, str], words: str
) -> None:
    with pytest.raises(ParamError, match=words) as caught:
        iperf3.resolve(params)
    assert "\n" not in str(caught.value)


def test_intervals_are_read_in_seconds_or_milliseconds() -> None:
    assert iperf3.resolve({"interval": "0.10"})["interval"] == "0.1"
    assert iperf3.resolve({"interval": "100ms"})["interval"] == "0.1"
    assert iperf3.resolve({"interval": "2s"})["interval"] == "2"


@pytest.mark.parametrize(
    ("text", "number"),
    [("1000", 1000), ("1k", 1024), ("1K", 1024), ("3m", 3 * 2**20), ("1G", 2**30), ("2t", 2**41)],
)
def test_counts_are_1024_based_as_iperf3s_unit_atoi_reads_them(text: str, number: int) -> None:
    assert count_value(iperf3.resolve({"bytes": text})["bytes"]) == number


def test_the_chosen_port_is_the_servers_and_the_clients() -> None:
    params = iperf3.resolve({"port": "5202"})
    assert iperf3.TOOL.chosen_port(params) == 5202
    assert iperf3.TOOL.chosen_port(iperf3.resolve({})) == 0  # Pairbench picks a free one
    cmds = iperf3.commands(params, CAPS, CommandContext("10.0.0.2", 5202))
    assert cmds.server is not None and _has(cmds.server, ["-p", "5202"])
    assert _has(cmds.client, ["-p", "5202"])
    assert "-4" not in cmds.server  # the server listens on both families
