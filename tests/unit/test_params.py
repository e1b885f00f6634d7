"""Parameter validation: every --set value is checked before anything runs."""

from __future__ import annotations

import pytest

from pairbench.tools import iperf3
from pairbench.tools.base import Capabilities, CommandContext, ParamError
from pairbench.tools.registry import get_tool

CAPS = Capabilities(version="iperf 3.12", version_tuple=(3, 12))


def test_defaults_are_filled_in() -> None:
    params = iperf3.resolve({})
    assert params["duration"] == "10"
    assert params["streams"] == "1"


@pytest.mark.parametrize(
    ("name", "value", "needle"),
    [
        ("duration", "abc", "whole number"),
        ("duration", "0", "at least 1"),
        ("duration", "-5", "whole number"),
        ("streams", "1000", "at most 128"),
        ("reverse", "maybe", "true or false"),
        ("bitrate", "50M; rm -rf /", "rate"),
        ("bitrate", "$(id)", "rate"),
        ("length", "`id`", "size"),
        ("window", "-w", "size"),
        ("colour", "red", "unknown parameter"),
    ],
)
def test_bad_values_are_refused(name: str, value: str, needle: str) -> None:
    with pytest.raises(ParamError, match=needle):
        iperf3.resolve({name: value})


def test_reverse_and_bidir_exclude_each_other() -> None:
    with pytest.raises(ParamError, match="cannot be combined"):
        iperf3.resolve({"reverse": "true", "bidir": "yes"})


def test_commands_map_parameters_to_argv() -> None:
    params = iperf3.resolve(
        {"duration": "5", "streams": "2", "udp": "true", "bitrate": "50M", "length": "1400"}
    )
    cmds = iperf3.commands(params, CAPS, CommandContext("10.0.0.2", 5202))
    assert cmds.server == ["iperf3", "-s", "-1", "-p", "5202", "--forceflush"]
    assert cmds.client[:9] == ["iperf3", "-c", "10.0.0.2", "-p", "5202", "-t", "5", "-i", "1"]
    assert "--forceflush" in cmds.client
    for flag in (["-P", "2"], ["-b", "50M"], ["-l", "1400"]):
        index = cmds.client.index(flag[0])
        assert cmds.client[index : index + 2] == flag
    assert "-u" in cmds.client and "-R" not in cmds.client


def test_capabilities_read_the_version() -> None:
    caps = iperf3.capabilities("iperf 3.12 (cJSON 1.7.15)\nLinux host 6.1 ...\n")
    assert caps.version == "iperf 3.12 (cJSON 1.7.15)"
    assert caps.version_tuple == (3, 12)


def test_unknown_tool_names_the_known_ones() -> None:
    with pytest.raises(ParamError, match=r"known: .*iperf3"):
        get_tool("netperf")


def test_iperf3_picks_json_stream_from_3_17() -> None:
    params = iperf3.resolve({"duration": "2"})
    new = Capabilities(version="iperf 3.17.1", version_tuple=(3, 17, 1))
    assert "--json-stream" in iperf3.commands(params, new, CommandContext("h", 1)).client
    assert "--forceflush" in iperf3.commands(params, CAPS, CommandContext("h", 1)).client
    assert type(iperf3.parser(params, new)).__name__ == "Iperf3JsonParser"
    assert type(iperf3.parser(params, CAPS)).__name__ == "Iperf3TextParser"
