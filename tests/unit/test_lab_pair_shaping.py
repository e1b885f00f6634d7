"""Per-pair shaping of the multi-pair lab: one value for all or a comma list, one per pair."""

from __future__ import annotations

import io

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.lab import LabError, Shaping
from pairbench.lab.pair_shaping import (
    check_pair_count,
    parse_pair_shapings,
    shaping_tags,
    split_per_pair,
)
from pairbench.lab.topology import MAX_PAIRS


@pytest.mark.parametrize("count", [1, 2, 3, MAX_PAIRS])
def test_one_value_applies_to_every_pair(count: int) -> None:
    assert split_per_pair("--rate", "100mbit", count) == ["100mbit"] * count
    assert split_per_pair("--rate", None, count) == [None] * count


def test_a_list_gives_each_pair_its_own_value() -> None:
    values = ["100mbit", "200mbit", "300mbit"]
    assert split_per_pair("--rate", ",".join(values), len(values)) == values
    assert split_per_pair("--rate", " 1ms , 2ms ", 2) == ["1ms", "2ms"]


@pytest.mark.parametrize(("text", "count"), [("1ms,2ms", 3), ("1ms,2ms,3ms,4ms", 3), ("a,b", 1)])
def test_a_list_of_another_length_is_refused(text: str, count: int) -> None:
    given = len(text.split(","))
    with pytest.raises(LabError, match=rf"^--delay: {given} values for {count} pairs?: "):
        split_per_pair("--delay", text, count)


@pytest.mark.parametrize("text", ["1ms,,2ms", ",1ms", "1ms,"])
def test_an_empty_item_is_refused(text: str) -> None:
    with pytest.raises(LabError, match="has an empty item"):
        split_per_pair("--delay", text, len(text.split(",")))


def test_shapings_are_built_per_pair_and_normalised() -> None:
    rates, delays = ["50M", "100mbit", "0.2g"], ["1", "5ms", "10000us"]
    shapings = parse_pair_shapings(3, rate=",".join(rates), delay=",".join(delays), loss="0.5")
    assert shapings == tuple(
        Shaping(rate=rate, delay=delay, loss="0.5")
        for rate, delay in zip(rates, delays, strict=True)
    )
    assert [s.rate for s in shapings] == ["50mbit", "100mbit", "200mbit"]
    assert {s.loss for s in shapings} == {"0.5%"}


def test_burst_credits_per_pair() -> None:
    shapings = parse_pair_shapings(
        2, rate="100mbit", burst_rate="400mbit,800mbit", bucket="50MB,100MB"
    )
    assert [(s.burst_rate, s.bucket) for s in shapings] == [
        ("400mbit", "50mb"),
        ("800mbit", "100mb"),
    ]


def test_a_bad_value_names_its_pair() -> None:
    with pytest.raises(LabError, match=r"^pair 2: --rate: '1;id' is not a valid value"):
        parse_pair_shapings(3, rate="100mbit,1;id,300mbit")
    with pytest.raises(LabError, match=r"^pair 1: --jitter needs --delay"):
        parse_pair_shapings(2, delay="0ms,5ms", jitter="1ms")
    with pytest.raises(LabError, match=r"^--rate: '1;id' is not a valid value"):
        parse_pair_shapings(1, rate="1;id")  # the single lab's message is unchanged


@pytest.mark.parametrize("count", [0, -1, MAX_PAIRS + 1])
def test_pair_count_is_bounded(count: int) -> None:
    with pytest.raises(LabError, match=rf"^--pairs: {count} is not a number of pairs"):
        check_pair_count(count)
    assert check_pair_count(MAX_PAIRS) == MAX_PAIRS


def test_shaping_tags_name_each_aspect_set() -> None:
    assert shaping_tags(Shaping()) == {}
    shaping = Shaping(rate="100mbit", delay="5ms", jitter="1ms", loss="1%")
    assert shaping_tags(shaping) == {
        "rate": shaping.rate,
        "delay": shaping.delay,
        "jitter": shaping.jitter,
        "loss": shaping.loss,
    }
    burst = Shaping(rate="100mbit", burst_rate="1gbit", bucket="500MB")
    assert shaping_tags(burst) == {"rate": "100mbit", "burst_rate": "1gbit", "bucket": "500mb"}


@pytest.mark.parametrize(
    "argv",
    [
        ["lab", "up", "--pairs", "3", "--rate", "1mbit,2mbit"],
        ["lab", "up", "--pairs", str(MAX_PAIRS + 1)],
        ["lab", "up", "--rate", "1mbit,2mbit"],
        ["lab", "up", "--pairs", "2", "--delay", "1ms,2ms", "--loss", "1%,2%,3%"],
        ["lab", "shape", "--pairs", "2", "--rate", "1mbit,2mbit,3mbit"],
    ],
)
def test_the_cli_refuses_bad_lists_before_anything_is_made(argv: list[str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run_cli(argv, Environment(stdout=out, stderr=err)) == 1
    assert err.getvalue().startswith("pairbench: --")
    assert err.getvalue().count("\n") == 1
    assert out.getvalue() == ""
