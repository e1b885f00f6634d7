"""Campaign plans: TOML read into a Plan with clear errors before anything runs, cells
expanded as pairs × tests × crossed/zipped axes and kept by the filter, stored and read back."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

from pairbench.analysis.campaign_cells import (
    PlanError,
    combinations_of,
    compile_filter,
    expand_cells,
    main_metric,
)
from pairbench.domain import Host, HostPair
from pairbench.domain.campaign import MAX_CELLS, Order, plan_from_json, plan_to_json
from pairbench.library import Library
from pairbench.library.hosts import add_host, add_pair
from pairbench.services.campaign_plan import parse_plan
from pairbench.services.campaigns import preview_plan, select_pairs


def _top(line: str) -> str:
    """BASE with a top-level key (before the first [[tests]] table, as TOML wants)."""
    return BASE.replace("repeats = 3", "repeats = 3\n" + line)


BASE = """
name = "zones"
pairs = ["a1", "b1"]
repeats = 3
[[tests]]
tool = "iperf3"
params = { duration = 5, streams = [1, 4] }
"""


def _pair(name: str, zone: str, ctype: str = "r4.large") -> HostPair:
    client = Host(name=f"{name}-c", address="10.0.0.1", tags={"zone": zone, "type": ctype})
    server = Host(name=f"{name}-s", address="10.0.0.2", tags={"zone": zone})
    return HostPair(name, client, server, tags={"zone": zone})


def test_the_issue_example_reads_into_a_plan_with_its_axis() -> None:
    plan = parse_plan(BASE)
    assert plan.name == "zones" and plan.pairs.names == ("a1", "b1")
    assert (plan.repeats.min, plan.repeats.max, plan.repeats.cv) == (3, 3, None)
    assert plan.order is Order.INTERLEAVED
    assert plan.tests[0].axes == {"duration": ("5",), "streams": ("1", "4")}
    assert plan_from_json(plan_to_json(plan)) == plan


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (BASE.replace("repeats = 3", "repeets = 3"), ["unknown key 'repeets'", "'repeats'"]),
        (BASE.replace('tool = "iperf3"', 'tool = "iprf3"'), ["unknown tool 'iprf3'", "iperf3"]),
        (BASE.replace("streams = [1, 4]", "streams = []"), ["streams", "empty list"]),
        (BASE.replace("repeats = 3", "repeats = { min = 5, max = 2 }"), ["max (2) is below min"]),
        (BASE.replace("repeats = 3", "repeats = { min = 2, max = 5, cv = 5 }"), ["cv"]),
        (BASE.replace("streams = [1, 4]", "streams = [1, -4]"), ["iperf3"]),
        (BASE.replace('name = "zones"', ""), ["needs a 'name'"]),
        (_top('filter = "streams >"'), ["filter", "not an expression"]),
        (_top("filter = \"__import__('os')\""), ["filter", "not allowed"]),
        (_top('schedule = { every = "1min" }'), ["schedule"]),
        (_top('schedule = { at = ["25:00"] }'), ["HH:MM"]),
        (_top('order = "random"'), ["interleaved", "sequential"]),
        ("name = 'x'\npairs = ['a1']\n", ["no test"]),
        ("name = 'x'\npairs = [", ["not valid TOML"]),
    ],
)
def test_a_bad_plan_is_refused_with_what_to_change(text: str, words: list[str]) -> None:
    with pytest.raises(PlanError) as caught:
        parse_plan(text)
    for word in words:
        assert word in str(caught.value), str(caught.value)


def test_axes_cross_and_zip() -> None:
    plan = parse_plan(
        BASE.replace(
            "params = { duration = 5, streams = [1, 4] }",
            'params = { duration = [5, 10], streams = [1, 2, 4], window = ["64k", "1M", "4M"] }\n'
            'zip = [["streams", "window"]]',
        )
    )
    combos = combinations_of(plan.tests[0])
    # duration (2) × zipped (streams, window) (3): 6, each pairing streams[i] with window[i]
    assert len(combos) == 2 * 3
    pairs_seen = {(c["streams"], c["window"]) for c in combos}
    assert pairs_seen == {("1", "64k"), ("2", "1M"), ("4", "4M")}
    unequal = BASE.replace(
        "params = { duration = 5, streams = [1, 4] }",
        'params = { streams = [1, 2], window = ["64k"] }\nzip = [["streams", "window"]]',
    )
    with pytest.raises(PlanError, match="equal lengths"):
        expand_cells(parse_plan(unequal), [_pair("a1", "a")])


def test_cells_are_pairs_times_tests_times_axis_values_in_plan_order() -> None:
    plan = parse_plan(
        BASE
        + """
[[tests]]
tool = "ping"
params = { count = [3, 5, 7] }
"""
    )
    pairs = [_pair("a1", "a"), _pair("b1", "b")]
    cells = expand_cells(plan, pairs)
    per_pair = 2 + 3
    assert len(cells) == len(pairs) * per_pair
    assert [c.index for c in cells] == list(range(len(cells)))
    assert [c.pair for c in cells] == ["a1"] * per_pair + ["b1"] * per_pair
    assert cells[0].column == "iperf3 streams=1" and cells[0].metric == "throughput_bps"
    assert cells[2].column == "ping count=3" and cells[2].metric == "rtt_avg_ms"
    assert cells[0].params == {"duration": "5", "streams": "1"}


def test_the_filter_keeps_cells_by_parameters_and_tags() -> None:
    plan = parse_plan(_top("filter = \"streams > 1 and pair.zone != 'b'\""))
    cells = expand_cells(plan, [_pair("a1", "a"), _pair("b1", "b")])
    assert [(c.pair, c.params["streams"]) for c in cells] == [("a1", "4")]
    keep = compile_filter("client.type in ('r4.large', 'r4.xlarge') and duration * 2 == 10")
    assert keep({"duration": "5", "client": _tags({"type": "r4.large"})})
    assert not keep({"duration": "6", "client": _tags({"type": "r4.large"})})
    everything_out = parse_plan(_top('filter = "streams > 100"'))
    with pytest.raises(PlanError, match="removes every cell"):
        expand_cells(everything_out, [_pair("a1", "a")])
    unknown = parse_plan(_top('filter = "stream > 1"'))
    with pytest.raises(PlanError, match="'stream'"):
        expand_cells(unknown, [_pair("a1", "a")])


def _tags(tags: dict[str, str]) -> object:
    from pairbench.analysis.campaign_cells import _Tags

    return _Tags(tags)


def test_too_many_cells_are_refused_before_anything_runs() -> None:
    side = math.ceil(math.sqrt(MAX_CELLS)) + 1  # side² > MAX_CELLS
    values = ", ".join(str(i + 1) for i in range(side))
    text = BASE.replace(
        "params = { duration = 5, streams = [1, 4] }",
        f"params = {{ duration = [{values}], streams = [{values}] }}",
    )
    with pytest.raises(PlanError, match="at most"):  # one test's sets: refused as read
        parse_plan(text.replace('pairs = ["a1", "b1"]', 'pairs = ["a1"]'))
    half = ", ".join(str(i + 1) for i in range(MAX_CELLS // 2 + 1))  # 2 pairs × that
    plan = parse_plan(BASE.replace("streams = [1, 4]", f"streams = 1, cport = [{half}]"))
    with pytest.raises(PlanError, match="at most"):
        expand_cells(plan, [_pair("a1", "a"), _pair("b1", "b")])


def test_main_metrics_follow_the_tool_and_profile() -> None:
    assert main_metric("uperf", {"profile": "latency"}) == "latency_avg_us"
    assert main_metric("uperf", {"profile": "throughput"}) == "throughput_bps"
    assert main_metric("fio", {"rw": "randwrite"}) == "write_iops"
    assert main_metric("fio", {"rw": "randread"}) == "read_iops"
    assert main_metric("nuttcp", {}) == "throughput_bps"


def test_pairs_by_name_or_tag_glob_against_the_library(library: Library) -> None:
    for name, zone, ctype in (
        ("a1", "a", "r4.large"),
        ("a2", "a", "m5.large"),
        ("b1", "b", "r4.xlarge"),
    ):
        pair = _pair(name, zone, ctype)
        add_host(library, pair.client)
        add_host(library, pair.server)
        add_pair(library, pair)
    by_tag = parse_plan(BASE.replace('pairs = ["a1", "b1"]', 'pairs = { type = "r4.*" }'))
    assert [p.name for p in select_pairs(library, by_tag)] == ["a1", "b1"]
    zone_a = parse_plan(BASE.replace('pairs = ["a1", "b1"]', 'pairs = { zone = "a" }'))
    assert [p.name for p in select_pairs(library, zone_a)] == ["a1", "a2"]
    nothing = parse_plan(BASE.replace('pairs = ["a1", "b1"]', 'pairs = { zone = "z" }'))
    with pytest.raises(PlanError, match="no pair has the tags zone=z"):
        preview_plan(library, nothing)
    unknown = parse_plan(BASE.replace('pairs = ["a1", "b1"]', 'pairs = ["a1", "nope"]'))
    with pytest.raises(PlanError, match=r"unknown pair.*nope"):
        preview_plan(library, unknown)
    preview = preview_plan(library, parse_plan(BASE))
    expected_cells = 2 * 2  # two named pairs × streams [1, 4]
    assert len(preview.cells) == expected_cells
    assert preview.runs_min == preview.runs_max == expected_cells * 3
    assert preview.seconds_min >= expected_cells * 3 * 5  # each run lasts its 5 s at least


def test_products_of_axes_match_itertools() -> None:
    axes = {"a": ("1", "2"), "b": ("x", "y", "z"), "c": ("k",)}
    from pairbench.domain.campaign import TestPlan

    combos = combinations_of(TestPlan("t", "iperf3", axes))
    expected = [dict(zip(axes, v, strict=True)) for v in itertools.product(*axes.values())]
    assert combos == expected


def test_every_built_in_plan_reads_and_previews_over_tagged_pairs(library: Library) -> None:
    from pairbench.services.campaign_plan import read_plan
    from pairbench.services.campaign_plans import builtin_plan_path, builtin_plans

    tags = {
        "config": "same-ad",
        "study": "udp",
        "type": "r4.large",
        "region": "us-east-1",
        "storage": "oci",
    }
    client = Host(name="c", address="10.0.0.1", tags=tags)
    server = Host(name="s", address="10.0.0.2")
    add_host(library, client)
    add_host(library, server)
    add_pair(library, HostPair("p1", client, server, tags=tags))
    plans = builtin_plans()
    assert {p.name for p in plans} >= {
        "uperf-pair-configs",
        "udp-buffer-sweep",
        "burst-per-type",
        "iperf-matrix",
        "storage-two-hosts",
    }
    for builtin in plans:
        assert builtin.title and builtin.source.split(" ")[0].endswith(".txt")
        plan, _ = read_plan(builtin_plan_path(builtin.name))
        preview = preview_plan(library, plan)
        assert preview.cells and all(c.pair == "p1" for c in preview.cells)
    with pytest.raises(PlanError, match="built-in"):
        builtin_plan_path("no-such-plan")


# --- issue 26: a plan that passes check runs; what check must catch -------------------------


def _library_pairs(library: Library) -> None:
    """Pairs a1 and b1 of BASE, stored."""
    for name, zone in (("a1", "a"), ("b1", "b")):
        pair = _pair(name, zone)
        add_host(library, pair.client)
        add_host(library, pair.server)
        add_pair(library, pair)


@pytest.mark.parametrize(
    "seed",
    [0, 2**63 - 1, 2**63, 2**64 + 5, 10**400],
    ids=["0", "2^63-1", "2^63", "2^64+5", "1e400"],
)
def test_a_seed_check_accepts_is_one_a_campaign_stores(library: Library, seed: int) -> None:
    """The reference is the store: whatever ``campaign check`` (``parse_plan`` and the
    preview) accepts, ``create_from_plan`` keeps and reads back exactly."""
    from pairbench.library.campaigns import get_campaign
    from pairbench.services.campaigns import create_from_plan

    _library_pairs(library)
    text = _top(f"seed = {seed}").replace('pairs = ["a1", "b1"]', 'pairs = ["a1"]')
    try:
        plan = parse_plan(text)
        preview_plan(library, plan)
    except PlanError as exc:
        assert seed >= 2**63 and "seed" in str(exc)
        return
    campaign_id = create_from_plan(library, plan, text)
    assert get_campaign(library, campaign_id).seed == seed


def test_a_plan_saved_with_a_utf8_bom_reads_as_without(tmp_path: Path) -> None:
    from pairbench.services.campaign_plan import read_plan

    path = tmp_path / "notepad.toml"
    path.write_bytes(b"\xef\xbb\xbf" + BASE.encode("utf-8"))
    assert read_plan(path)[0] == parse_plan(BASE)
    assert parse_plan("\ufeff" + BASE) == parse_plan(BASE)  # the window's text, too


def test_an_unknown_metric_is_refused_with_the_nearest_names() -> None:
    with pytest.raises(PlanError) as refused:
        parse_plan(BASE + 'metric = "throughput"\n')
    message = str(refused.value)
    assert "unknown metric 'throughput'" in message and "no run would count" in message
    assert "'throughput_bps'" in message.split("did you mean", 1)[1]
    with pytest.raises(PlanError, match="metrics: corrupted_packets, cwnd_bytes"):
        parse_plan(BASE + 'metric = "zzz"\n')  # nothing near: every name
    assert parse_plan(BASE + 'metric = "retransmits"\n').tests[0].metric == "retransmits"


def test_two_tests_of_one_name_are_refused() -> None:
    second = '[[tests]]\nname = "IPERF3"\ntool = "iperf3"\nparams = { duration = 3 }\n'
    with pytest.raises(PlanError, match=r"tests #1 and #2 are both named 'IPERF3'"):
        parse_plan(BASE + second)  # the first is named after its tool
    assert len(parse_plan(BASE + second.replace("IPERF3", "short")).tests) == 2


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("seed = " + "9" * 400, "'seed' must be from 0 to 9,223,372,036,854,775,807"),
        ("pause = " + "9" * 400, "'pause' must be at most 1 day(s), got a number of 400 digits"),
        ("pause = 90000", "'pause' must be at most 1 day(s)"),
        ('schedule = { at = ["08:00"], days = ' + "9" * 30 + " }", "from 1 to 366"),
        ('schedule = { every = "1min", for = "30d" }', "43,200 passes"),
        ("label = " + "[" * 2000 + "]" * 2000, "nested too deeply"),
        ('filter = "' + "-" * 1500 + '1"', "at most 500 parts, 50 levels deep"),
        ("filter = \"'x' * 100000000000 == 'x'\"", "arithmetic on 'x', which is not a number"),
    ],
)
def test_plan_bounds_are_said_in_one_line(line: str, said: str, library: Library) -> None:
    _library_pairs(library)
    with pytest.raises(PlanError) as refused:
        preview_plan(library, parse_plan(_top(line)))
    assert said in str(refused.value) and "\n" not in str(refused.value)
