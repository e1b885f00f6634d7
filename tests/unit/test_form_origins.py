"""The run form's rules of origin (Qt-free): presets, the user's values, the kind of run."""

from __future__ import annotations

import pytest

from pairbench.tools.base import ParamError
from pairbench.tools.registry import TOOLS
from pairbench.ui.run.form_origins import (
    Origin,
    ToolChoices,
    after_edit,
    origins_from_json,
    origins_to_json,
    with_preset,
    without_preset,
)

IPERF3 = TOOLS["iperf3"]
UDP = {"udp": "true", "length": "1400", "bitrate": "1G", "duration": "10"}


@pytest.mark.parametrize("tool", list(TOOLS.values()), ids=list(TOOLS))
def test_every_tied_parameter_is_one_of_the_tools(tool) -> None:  # type: ignore[no-untyped-def]
    for mode, dependents in tool.tied.items():
        assert mode in tool.params
        assert dependents and set(dependents) <= set(tool.params) - {mode}


def test_a_preset_over_typed_values() -> None:
    typed = ToolChoices(
        {"streams": "4", "mss": "1400"}, dict.fromkeys(("streams", "mss"), Origin.USER)
    )
    chosen = with_preset(typed, IPERF3, UDP)
    # duration=10 is iperf3's default: not a value beyond it; mss is TCP's, gone with udp.
    assert chosen.values == {"streams": "4", "udp": "true", "length": "1400", "bitrate": "1G"}
    assert chosen.origin("streams") is Origin.USER and chosen.origin("udp") is Origin.PRESET
    assert without_preset(chosen).values == {"streams": "4"}


def test_a_tcp_preset_after_udp_typed_by_hand_clears_the_datagram_values() -> None:
    typed = ToolChoices(
        {"udp": "true", "length": "1400", "window": "256K"},
        dict.fromkeys(("udp", "length", "window"), Origin.USER),
    )
    chosen = with_preset(typed, IPERF3, {"streams": "2"})
    assert chosen.values == {"streams": "2", "window": "256K"}


def test_an_edit_of_the_kind_of_run_clears_what_it_tied() -> None:
    chosen = with_preset(ToolChoices(), IPERF3, UDP)
    edited, changed_kind = after_edit(chosen, IPERF3, "udp", "false")
    assert changed_kind and edited.values == {}
    edited, changed_kind = after_edit(chosen, IPERF3, "duration", "20")
    assert not changed_kind and edited.values["length"] == "1400"
    assert edited.origin("duration") is Origin.USER


@pytest.mark.parametrize(
    ("name", "value"), [("congestion", "bbr"), ("mss", "1400"), ("fq_rate", "1G")]
)
def test_udp_clears_what_iperf3_refuses_with_udp(name: str, value: str) -> None:
    """A TCP-only value iperf3's own checks refuse beside udp is gone when udp is switched on
    (the run would otherwise be refused, or carry a value of another kind of run)."""
    with pytest.raises(ParamError, match="cannot be combined with udp"):
        IPERF3.resolve({"udp": "true", name: value})
    IPERF3.resolve({name: value})  # a value TCP takes
    typed = ToolChoices({name: value}, {name: Origin.USER})
    edited, changed_kind = after_edit(typed, IPERF3, "udp", "true")
    assert changed_kind and edited.values == {"udp": "true"}


def test_origins_round_trip_through_the_settings() -> None:
    chosen = {
        "iperf3": with_preset(ToolChoices({"streams": "3"}, {"streams": Origin.USER}), IPERF3, UDP)
    }
    data = origins_to_json(chosen)
    assert origins_from_json(data, "iperf3") == dict.fromkeys(
        ("udp", "length", "bitrate"), Origin.PRESET
    )
    assert origins_from_json("junk", "iperf3") == {} and origins_from_json({}, "fio") == {}
