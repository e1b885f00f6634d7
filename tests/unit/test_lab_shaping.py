"""The lab's shaping: user values validated into tc syntax, and the exact tc argv lists built."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pairbench.lab import LabError, Shaping, parse_shaping
from pairbench.lab.netns import in_netns, tc_in
from pairbench.lab.shaping import (
    client_qdisc_commands,
    forward_impairment,
    reverse_impairment,
    server_qdisc_commands,
    tc_delete_root,
)

HTB_ROOT = ["tc", "qdisc", "add", "dev", "data", "root", "handle", "1:", "stab", "overhead", "-66",
            "htb", "default", "10"]  # fmt: skip


def _htb_class(rate: str, burst: int) -> list[str]:
    return ["tc", "class", "add", "dev", "data", "parent", "1:", "classid", "1:10", "htb",
            "rate", rate, "ceil", rate, "burst", str(burst), "cburst", str(burst),
            "quantum", "65536"]  # fmt: skip


def _tbf(rate: str, burst: int, limit: int) -> list[str]:
    return ["tc", "qdisc", "add", "dev", "data", "parent", "1:10", "handle", "10:", "tbf",
            "rate", rate, "burst", str(burst), "limit", str(limit)]  # fmt: skip


# --- values -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "normal", "bps"),
    [
        ("200mbit", "200mbit", 200_000_000),
        ("1gbit", "1gbit", 1_000_000_000),
        ("50M", "50mbit", 50_000_000),
        ("1.5g", "1500mbit", 1_500_000_000),
        ("1500000", "1500kbit", 1_500_000),
        ("200MBIT", "200mbit", 200_000_000),
        ("8kbit", "8kbit", 8_000),
        ("100gbit", "100gbit", 100_000_000_000),
    ],
)
def test_rates_are_normalised_to_tc_units(given: str, normal: str, bps: int) -> None:
    shaping = Shaping(rate=given)
    assert shaping.rate == normal
    assert shaping.rate_bps == bps


@pytest.mark.parametrize(
    ("given", "normal", "us"),
    [("0.7ms", "700us", 700), ("5ms", "5ms", 5000), ("250us", "250us", 250),
     ("1s", "1000ms", 10**6), ("3", "3ms", 3000), ("2.5msec", "2500us", 2500)],
)  # fmt: skip
def test_times_are_normalised(given: str, normal: str, us: int) -> None:
    shaping = Shaping(delay=given)
    assert shaping.delay == normal
    assert shaping.delay_us == us


@pytest.mark.parametrize(
    ("given", "normal"), [("0.5%", "0.5%"), ("1", "1%"), ("0.50%", "0.5%"), ("100%", "100%")]
)
def test_loss_is_a_percentage(given: str, normal: str) -> None:
    assert Shaping(loss=given).loss == normal


@pytest.mark.parametrize(
    ("given", "normal", "size"),
    [("500MB", "500mb", 500 * 2**20), ("500mb", "500mb", 500 * 2**20), ("64k", "64kb", 2**16),
     ("1.5GB", "1536mb", 1536 * 2**20), ("2GiB", "2gb", 2 * 2**30), ("100000", "100000b", 100000)],
)  # fmt: skip
def test_bucket_sizes_are_bytes_in_powers_of_1024(given: str, normal: str, size: int) -> None:
    shaping = Shaping(rate="100mbit", burst_rate="1gbit", bucket=given)
    assert shaping.bucket == normal
    assert shaping.bucket_bytes == size


def test_zero_delay_and_zero_loss_mean_not_shaped() -> None:
    assert Shaping(delay="0ms", loss="0%") == Shaping()
    assert not Shaping().is_shaped


HOSTILE = [
    ";",
    "$(id)",
    "`id`",
    "200mbit; rm -rf /",
    "200mbit;reboot",
    "200 mbit",
    "2 00mbit",
    "-5",
    "-200mbit",
    "",
    " ",
    " 200mbit",
    "200mbit ",
    "\t5ms",
    "1e9",
    "nan",
    "inf",
    "0x10",
    "200mbit\n",
    "200mbit\0",
    "２００mbit",
    "1.2.3",
    "../../etc/passwd",
    "9" * 40,
]


@pytest.mark.parametrize("field", ["rate", "delay", "jitter", "loss", "burst_rate", "bucket"])
@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_values_are_refused_with_a_clear_error(field: str, value: str) -> None:
    base = {"rate": "100mbit", "delay": "5ms", "burst_rate": "1gbit", "bucket": "1MB"}
    with pytest.raises(LabError) as caught:
        parse_shaping(**{**base, field: value})
    assert "--" + field.replace("_", "-") in str(caught.value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rate": "200"}, "did you mean 200mbit"),
        ({"rate": "0"}, "below the minimum"),
        ({"rate": "101gbit"}, "above the maximum"),
        ({"rate": "200mbps"}, "ambiguous"),
        ({"rate": "200mb"}, "ambiguous"),
        ({"rate": "5ms"}, "unknown unit"),
        ({"delay": "11s"}, "above the maximum"),
        ({"delay": "5mbit"}, "unknown unit"),
        ({"delay": "0.0001ms"}, "finer than one microsecond"),
        ({"loss": "101%"}, "above 100%"),
        ({"loss": "5ms"}, "not a percentage"),
        ({"jitter": "1ms"}, "--jitter needs --delay"),
        ({"rate": "100mbit", "burst_rate": "1gbit"}, "go together"),
        ({"rate": "100mbit", "bucket": "1MB"}, "go together"),
        ({"burst_rate": "1gbit", "bucket": "1MB"}, "needs --rate"),
        ({"rate": "1gbit", "burst_rate": "1gbit", "bucket": "1MB"}, "must be above"),
        ({"rate": "8kbit", "burst_rate": "1gbit", "bucket": "500MB"}, "more than tbf can hold"),
        ({"rate": "100mbit", "burst_rate": "1gbit", "bucket": "4GB"}, "above the maximum"),
        ({"rate": "100mbit", "burst_rate": "1gbit", "bucket": "10kb"}, "below the minimum"),
        ({"rate": "100mbit", "burst_rate": "1gbit", "bucket": "500mbit"}, "not a size in bytes"),
    ],
)
def test_bad_values_and_combinations_say_what_is_wrong(
    kwargs: dict[str, str], message: str
) -> None:
    with pytest.raises(LabError, match=message):
        parse_shaping(**kwargs)


def test_shaping_round_trips_through_json_and_describes_itself() -> None:
    shaping = parse_shaping(rate="100mbit", delay="5ms", jitter="1ms", loss="0.5%",
                            burst_rate="400M", bucket="50MB")  # fmt: skip
    assert Shaping.from_json(shaping.to_json()) == shaping
    assert shaping.describe() == (
        "burst 400mbit until 50mb drained, then 100mbit, delay 5ms ± 1ms each way, loss 0.5%"
    )
    assert Shaping().describe() == "unshaped"
    with pytest.raises(LabError, match="must be text"):
        Shaping.from_json({"rate": 5})


def test_impairments_per_direction() -> None:
    shaping = Shaping(delay="5ms", jitter="1ms", loss="0.5%")
    forward = forward_impairment(shaping)
    reverse = reverse_impairment(shaping)
    assert forward is not None and reverse is not None
    assert (forward.delay_us, forward.jitter_us, forward.loss_percent) == (
        5000,
        1000,
        Decimal("0.5"),
    )
    assert (reverse.delay_us, reverse.jitter_us, reverse.loss_percent) == (5000, 1000, Decimal(0))
    loss_only = Shaping(loss="1%")
    assert forward_impairment(loss_only) is not None
    assert reverse_impairment(loss_only) is None
    assert forward_impairment(Shaping(rate="1gbit")) is None


# --- tc argv ------------------------------------------------------------------------------


def test_rate_only() -> None:
    shaping = Shaping(rate="200mbit")
    assert client_qdisc_commands(shaping) == [
        HTB_ROOT,
        _htb_class("200mbit", 131072),
        _tbf("200mbit", 131072, 1_250_000),
    ]
    assert server_qdisc_commands(shaping) == []


def test_rate_bucket_grows_with_the_rate() -> None:
    commands = client_qdisc_commands(Shaping(rate="10gbit"))
    assert commands[1] == _htb_class("10gbit", 5_000_000)
    assert commands[2] == _tbf("10gbit", 5_000_000, 62_500_000)


def test_delay_jitter_and_loss() -> None:
    shaping = Shaping(delay="5ms", jitter="1ms", loss="0.5%")
    root = ["tc", "qdisc", "add", "dev", "data", "root", "handle", "1:", "netem", "limit", "6000"]
    assert client_qdisc_commands(shaping) == [[*root, "delay", "5ms", "1ms", "loss", "0.5%"]]
    assert server_qdisc_commands(shaping) == [[*root, "delay", "5ms", "1ms"]]
    # Without netem the delay line does it all: no qdisc.
    assert client_qdisc_commands(shaping, netem=False) == []
    assert server_qdisc_commands(shaping, netem=False) == []


def test_rate_and_delay() -> None:
    shaping = Shaping(rate="100mbit", delay="10ms")
    netem = ["netem", "limit", "1084", "delay", "10ms"]
    assert client_qdisc_commands(shaping) == [
        HTB_ROOT,
        _htb_class("100mbit", 131072),
        _tbf("100mbit", 131072, 625_000),
        ["tc", "qdisc", "add", "dev", "data", "parent", "10:1", "handle", "20:", *netem],
    ]
    assert server_qdisc_commands(shaping) == [
        ["tc", "qdisc", "add", "dev", "data", "root", "handle", "1:", *netem]
    ]
    assert client_qdisc_commands(shaping, netem=False) == client_qdisc_commands(shaping)[:3]


def test_burst_emulation() -> None:
    shaping = Shaping(rate="100mbit", burst_rate="400mbit", bucket="50MB")
    assert client_qdisc_commands(shaping) == [
        HTB_ROOT,
        _htb_class("400mbit", 200_000),
        _tbf("100mbit", 50 * 2**20, 2_500_000),
    ]
    assert server_qdisc_commands(shaping) == []


def test_no_shaping_means_no_qdisc() -> None:
    assert client_qdisc_commands(Shaping()) == []
    assert server_qdisc_commands(Shaping()) == []
    assert tc_delete_root("data") == ["tc", "qdisc", "del", "dev", "data", "root"]


def test_commands_are_aimed_at_a_namespace_without_a_shell() -> None:
    argv = client_qdisc_commands(Shaping(rate="1gbit"))[0]
    assert tc_in("pbl-client", argv) == ["tc", "-n", "pbl-client", *argv[1:]]
    assert in_netns("pbl-server", ["ip", "-o", "addr"]) == [
        "ip", "netns", "exec", "pbl-server", "ip", "-o", "addr",
    ]  # fmt: skip
    with pytest.raises(ValueError):
        tc_in("pbl-client", ["ip", "link"])
