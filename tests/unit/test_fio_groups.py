"""fio job files of several groups (``stonewall``, ``new_group``): each group is stored as fio
reports it, and no figure adds groups together (issue 27 §2), in every output form.

The captures ``tests/data/captures/fio/groups_*`` ran fio-examples' ``tiobench-example.fio``
(capped, see their ``.cmd``): four stonewall groups of two jobs. Their summaries are checked
figure by figure in ``test_fio_forms.py``; here: what only several groups have.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from pairbench.cli.environment import Environment
from pairbench.domain import Record, RunSpec
from pairbench.tools.feed import feed_text
from pairbench.tools.fio_auto import FioAutoParser
from pairbench.tools.fio_groups import by_group, group_stream, group_values, stream_owners
from pairbench.tools.fio_histogram import fio_run_analyses
from pairbench.tools.fio_json import FioJsonParser, fio_percentile
from pairbench.tools.registry import TOOLS
from parser_checks import json_documents, series_of

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures" / "fio"
GROUPS = (
    "groups_json_si1_tiobench.out",
    "groups_jsonplus_tiobench.out",
    "groups_json_gr_tiobench.out",
    "groups_normal_si1_tiobench.out",
    "groups_terse_tiobench.out",
)
PERCENTILES = (("50.000000", "p50"), ("99.000000", "p99"), ("99.900000", "p999"))
# What each group of the capped tiobench-example.fio does.
DIRECTION = {0: "write", 1: "write", 2: "read", 3: "read"}


def capture(name: str) -> str:
    return (CAPTURES / name).read_text()


def last_document(text: str) -> dict[str, Any]:
    """fio's final JSON document of a capture."""
    return json_documents(text)[-1]


# --------------------------------------------------------------------------- the rule


def test_one_group_is_the_runs_headline_several_are_named_by_fios_group_number() -> None:
    assert group_values({0: {"read_iops": 5.0}}) == {"read_iops": 5.0}
    assert group_values({3: {"read_iops": 5.0}}) == {"read_iops": 5.0}
    assert group_values({0: {"write_iops": 1.0}, 1: {"read_iops": 2.0}}) == {
        "group0_write_iops": 1.0,
        "group1_read_iops": 2.0,
    }
    # A group the output lists without figures yet still makes the run one of several.
    assert group_values({0: {"write_iops": 1.0}}, known=[0, 1]) == {"group0_write_iops": 1.0}
    assert group_values({}) == {}


def test_streams_of_groups_and_of_their_jobs() -> None:
    assert group_stream(0, 1) == "sum" and group_stream(2, 1) == "sum"
    assert group_stream(2, 4) == "group2"
    groups = by_group([(1, "b"), (0, "a"), (1, "c")])
    assert list(groups.items()) == [(1, ["b", "c"]), (0, ["a"])]
    assert stream_owners(groups) == ["b", "c"]  # a group of one is its own aggregate


# --------------------------------------------------------------------------- the case


@pytest.mark.parametrize("name", GROUPS)
def test_no_figure_adds_the_groups_together(name: str) -> None:
    # Before: tiobench-example.fio gave read_iops = sequential + random reads (groups 2 + 3)
    # and write_iops = groups 0 + 1, figures fio never prints.
    _, summary = feed_text(TOOLS["fio"].file_parser(), capture(name))
    assert summary.values, name
    for key in summary.values:
        group, _, metric = key.partition("_")
        assert group in {"group0", "group1", "group2", "group3"}, key
        assert metric.startswith(DIRECTION[int(group[5:])]), key
    for headline in ("read_iops", "write_iops", "read_bytes_per_s", "write_bytes_per_s"):
        assert headline not in summary.values
    assert {k.partition("_")[0] for k in summary.values} == {f"group{g}" for g in range(4)}


def test_group_reporting_gives_each_group_fios_own_figures_exactly() -> None:
    # With --group_reporting each group is one jobs[] entry: fio's own figures for the group
    # ("Run status group N"), stored as they are.
    name = "groups_json_gr_tiobench.out"
    _, summary = feed_text(TOOLS["fio"].file_parser(), capture(name))
    doc = last_document(capture(name))
    expected: dict[str, float] = {}
    assert [entry["groupid"] for entry in doc["jobs"]] == [0, 1, 2, 3]
    for entry in doc["jobs"]:
        d = entry[DIRECTION[entry["groupid"]]]
        prefix = f"group{entry['groupid']}_{DIRECTION[entry['groupid']]}"
        expected[f"{prefix}_iops"] = d["iops"]
        expected[f"{prefix}_bytes_per_s"] = d["bw_bytes"]
        expected[f"{prefix}_lat_mean_us"] = d["lat_ns"]["mean"] / 1000
        for key, suffix in (*PERCENTILES, ("99.990000", "p9999")):
            expected[f"{prefix}_lat_{suffix}_us"] = d["clat_ns"]["percentile"][key] / 1000
    assert dict(summary.values) == expected


def test_jsonplus_percentiles_are_each_groups_merged_histogram() -> None:
    # Two jobs a group, json+: the percentiles fio's rule gives on the group's merged bins
    # (what fio prints for the group with --group_reporting), never bins of other groups.
    name = "groups_jsonplus_tiobench.out"
    parser = FioAutoParser()
    _, summary = feed_text(parser, capture(name))
    doc = last_document(capture(name))
    for groupid, entries in by_group((e["groupid"], e) for e in doc["jobs"]).items():
        direction = DIRECTION[groupid]
        merged: dict[int, float] = {}
        for entry in entries:
            for latency, count in entry[direction]["clat_ns"]["bins"].items():
                merged[int(latency)] = merged.get(int(latency), 0) + count
        for key, suffix in (*PERCENTILES, ("99.990000", "p9999")):
            value = summary.values[f"group{groupid}_{direction}_lat_{suffix}_us"]
            assert value == fio_percentile(merged, float(key)) / 1000
            own = sorted(e[direction]["clat_ns"]["percentile"][key] for e in entries)
            assert own[0] <= value * 1000 <= own[-1]
    # The stored histogram: one per group (and direction), each with the summary's figures.
    payload = fio_run_analyses(parser)["fio_histogram"]
    assert sorted(payload["directions"]) == [
        "group0 write",
        "group1 write",
        "group2 read",
        "group3 read",
    ]
    for label, part in payload["directions"].items():
        group, direction = label.split(" ")
        for suffix in ("p50", "p99", "p999", "p9999"):
            assert (
                part["percentiles_us"][suffix]
                == summary.values[f"{group}_{direction}_lat_{suffix}_us"]
            )


def test_concurrent_groups_new_group_are_not_added_either() -> None:
    # new_group without stonewall: two groups at the same time. Their sum is what the disk
    # did, but no figure of fio's: each group stays apart.
    def entry(name: str, group: int, ios: int) -> dict[str, Any]:
        read = {
            "runtime": 1000,
            "total_ios": ios,
            "io_bytes": ios * 4096,
            "iops": float(ios),
            "bw_bytes": ios * 4096,
            "lat_ns": {"N": ios, "mean": 100000.0},
        }
        return {"jobname": name, "groupid": group, "error": 0, "read": read}

    doc = {"timestamp_ms": 5000, "jobs": [entry("a", 0, 1000), entry("b", 1, 3000)]}
    records, summary = feed_text(FioJsonParser(), json.dumps(doc, indent=1))
    assert summary.values == {
        "group0_read_iops": 1000.0,
        "group0_read_bytes_per_s": 4096000.0,
        "group0_read_lat_mean_us": 100.0,
        "group1_read_iops": 3000.0,
        "group1_read_bytes_per_s": 12288000.0,
        "group1_read_lat_mean_us": 100.0,
    }
    assert [
        (r.stream, dict(zip(r.metrics, r.values, strict=True))["read_iops"]) for r in records
    ] == [
        ("group0", 1000.0),
        ("group1", 3000.0),
    ]


# --------------------------------------------------------------------------- series


def test_json_stream_series_per_group_one_group_after_another() -> None:
    records, _ = feed_text(TOOLS["fio"].file_parser(), capture("groups_json_si1_tiobench.out"))
    ser = series_of(records)
    firsts, lasts = [], []
    for group in range(4):
        metric = f"{DIRECTION[group]}_iops"
        points = ser[(f"group{group}", metric)]
        assert points and all(v > 0 for _, v in points)
        firsts.append(points[0][0])
        lasts.append(points[-1][0])
        # The group's stream is its two jobs' sum at each time.
        jobs = [s for s in {s for s, _ in ser} if s.startswith(f"f{group + 1}.")]
        assert len(jobs) == 2
        for t, v in points:
            parts = [v2 for job in jobs for t2, v2 in ser[(job, metric)] if t2 == t]
            assert v == pytest.approx(sum(parts), rel=1e-12)
    # stonewall: each group starts when the one before ended (fio's clock, timestamp_ms)
    assert firsts == sorted(firsts)
    assert all(lasts[g] <= firsts[g + 1] + 1.0 for g in range(3))


def test_text_stream_time_adds_the_groups_runtimes() -> None:
    # The normal text prints no clock: t is the sum of each group's largest runtime, so the
    # groups' series follow each other instead of all starting at 0.
    records, _ = feed_text(TOOLS["fio"].file_parser(), capture("groups_normal_si1_tiobench.out"))
    ser = series_of(records)
    assert "sum" not in {s for s, _ in ser}
    starts = [ser[(f"group{g}", f"{DIRECTION[g]}_iops")][0][0] for g in range(4)]
    assert starts == sorted(starts) and len(set(starts)) == 4
    # the last record: four groups of 1 s each (runtime=1, time_based)
    assert max(t for s, t in ((r.stream, r.t) for r in records)) == pytest.approx(4.0, abs=0.05)


def test_live_lines_of_a_run_of_several_groups_name_the_group() -> None:
    from pairbench.cli.cmd_run import _LiveObserver

    out, err = io.StringIO(), io.StringIO()
    observer = _LiveObserver(Environment(stdout=out, stderr=err, environ={}), to_stderr=False)
    observer.on_started(3, RunSpec("local", "fio"), 4.0)
    parser = FioAutoParser()
    for line in capture("groups_json_si1_tiobench.out").split("\n"):
        records: list[Record] = parser.feed(line)
        if records:
            observer.on_records(records)
    lines = out.getvalue().splitlines()[1:]
    shown = [line.split()[2] for line in lines]
    assert set(shown) == {"group0", "group1", "group2", "group3"}
    assert shown == sorted(shown)
