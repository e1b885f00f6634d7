"""A plan written as TOML reads back as the same plan (axes, zip groups, tag selectors,
schedules, policies), and the text is a plan file a person can read."""

from __future__ import annotations

import tomllib

import pytest

from pairbench.domain.campaign import (
    Order,
    PairSelector,
    Plan,
    RepeatPolicy,
    RetryPolicy,
    Schedule,
    TestPlan,
)
from pairbench.services.campaign_plan import parse_plan
from pairbench.services.campaign_plan_toml import plan_to_toml

IPERF = TestPlan("iperf3", "iperf3", {"duration": ("5",), "streams": ("1", "4")})
PING = TestPlan("rtt", "ping", {"count": ("2",), "interval": ("0.2",)}, metric="rtt_max_ms")

PLANS = {
    "the issue's example": Plan("zones", PairSelector(names=("lab1", "lab2")), (IPERF,)),
    "tags, repeats with a CV target, sequential, seed, pause": Plan(
        "by tag",
        PairSelector(tags={"zone": "a", "type": "r4.*"}),
        (IPERF, PING),
        repeats=RepeatPolicy(3, 10, 0.05),
        order=Order.SEQUENTIAL,
        seed=42,
        pause_s=2.5,
        outliers="mad:2.5",
        label="nightly",
    ),
    "zip groups and a filter": Plan(
        "udp sweep",
        PairSelector(names=("lab1",)),
        (
            TestPlan(
                "udp",
                "iperf3",
                {"udp": ("true",), "bitrate": ("100M", "200M"), "length": ("1200", "1400")},
                zip=(("bitrate", "length"),),
            ),
        ),
        filter="pair.zone != 'b' and length > 1000",
        retry=RetryPolicy(retries=2, delay_s=30.0, skip_pair_after=4),
        parallel=2,
    ),
    "every N minutes for D hours": Plan(
        "time of day",
        PairSelector(names=("lab1", "lab2", "lab3")),
        (PING,),
        repeats=RepeatPolicy(2, 2, None),
        schedule=Schedule("every", every_s=600.0, for_s=86_400.0),
        outliers="iqr:1.5",
    ),
    "odd seconds in a schedule": Plan(
        "odd",
        PairSelector(names=("lab1",)),
        (PING,),
        pause_s=0.25,
        schedule=Schedule("every", every_s=90.0, for_s=185.0),
        retry=RetryPolicy(retries=0, delay_s=1.5, skip_pair_after=0),
    ),
    "at times of day for days": Plan(
        "daily",
        PairSelector(names=("lab1",)),
        (PING,),
        schedule=Schedule("times", times=("08:00", "20:30"), days=7),
    ),
    "a burst probe and quoted text": Plan(
        'burst "credits"',
        PairSelector(tags={"instance type": "t3.*"}),
        (TestPlan("burst", "iperf3", {"duration": ("600",)}, probe="burst"),),
        label="back\\slash ü",
    ),
}


@pytest.mark.parametrize("plan", PLANS.values(), ids=list(PLANS))
def test_a_written_plan_reads_back_the_same(plan: Plan) -> None:
    text = plan_to_toml(plan)
    assert parse_plan(text) == plan, text


def test_an_axis_is_a_list_and_numbers_stay_numbers() -> None:
    data = tomllib.loads(plan_to_toml(PLANS["zip groups and a filter"]))
    params = data["tests"][0]["params"]
    assert params == {"udp": True, "bitrate": ["100M", "200M"], "length": [1200, 1400]}
    assert data["tests"][0]["zip"] == [["bitrate", "length"]]


def test_text_that_only_looks_like_a_number_stays_text() -> None:
    values = ("1e3", "007", "+5", "1.50", "nan")
    plan = Plan("t", PairSelector(names=("p",)), (TestPlan("x", "iperf3", {"bitrate": values}),))
    data = tomllib.loads(plan_to_toml(plan))
    assert data["tests"][0]["params"]["bitrate"] == list(values)


def test_whole_durations_are_written_in_words() -> None:
    data = tomllib.loads(plan_to_toml(PLANS["every N minutes for D hours"]))
    assert data["schedule"] == {"every": "10min", "for": "24h"}
    assert data["repeats"] == 2


def test_the_built_in_plans_read_back_the_same() -> None:
    from pairbench.services.campaign_plan import read_plan
    from pairbench.services.campaign_plans import builtin_plans

    for builtin in builtin_plans():
        plan, _text = read_plan(builtin.path)
        assert parse_plan(plan_to_toml(plan)) == plan, builtin.name
