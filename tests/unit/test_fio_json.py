"""Tests of the fio JSON / json+ parser against the real captures in tests/data/fixtures."""

from __future__ import annotations

import copy
import functools
import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairbench.domain import Record, Summary, expand
from pairbench.tools.base import ParseError
from pairbench.tools.fio_json import (
    MAX_DOCUMENT_CHARS,
    FioJsonParser,
    fio_error_message,
    parse_json_output,
)
from parser_checks import (
    assert_records_well_formed,
    feed_all,
    feed_garbage,
    fixture_names,
    fixture_path,
    fixture_text,
    json_documents,
    series_of,
    split_lines,
)

FUZZ = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

STREAM = "randread4k_qd32_j2_status1_json_stream.out"
JSONPLUS = "randread4k_qd32_j2_jsonplus.out"
GROUP = "randrw70_4k_qd32_j2_group_json.out"
ALL_FIXTURES = [
    *fixture_names("fio", "*.out"),
    *fixture_names("fio", "*.stdout"),
    *fixture_names("fio", "*.stderr"),
]
JSON_FIXTURES = [STREAM, JSONPLUS, GROUP, "err_parent_not_a_directory_json.out"]

Doc = dict[str, Any]


# --------------------------------------------------------------------------- helpers


def documents(text: str) -> list[Doc]:
    """The JSON documents in a fixture, found independently of the parser."""
    return json_documents(text)


def parse(name: str) -> tuple[list[Record], Summary]:
    records, summary = parse_json_output(fixture_text("fio", name))
    assert_records_well_formed(records)
    return records, summary


def of_stream(records: list[Record], stream: str) -> list[Record]:
    return [r for r in records if r.stream == stream]


def value(record: Record, metric: str) -> float:
    return record.values[record.metrics.index(metric)]


# The completion-latency percentiles the summary reports (fio prints them by default).
PERCENTILES = (
    ("50.000000", "p50"),
    ("99.000000", "p99"),
    ("99.900000", "p999"),
    ("99.990000", "p9999"),
)


def fio_percentile(bins: dict[int, float], percent: float) -> int:
    """fio's rule, written out independently: the first bin reaching percent% of the count."""
    total = sum(bins.values())
    seen = 0.0
    for latency in sorted(bins):
        seen += bins[latency]
        if seen >= percent / 100.0 * total:
            return latency
    raise AssertionError("empty histogram")


def pretty(doc: Doc) -> list[str]:
    """A document as fio prints it: '{' line, indented body, '}' line."""
    return json.dumps(doc, indent=2, separators=(",", " : ")).split("\n")


def direction(
    runtime: float,
    ios: float,
    *,
    io_bytes: float | None = None,
    lat_mean: float = 100_000.0,
    lat_n: float | None = None,
    bins: dict[str, int] | None = None,
) -> Doc:
    """A jobs[i].read/write object with the fields the parser reads."""
    n = ios if lat_n is None else lat_n
    out: Doc = {
        "io_bytes": ios * 4096 if io_bytes is None else io_bytes,
        "bw_bytes": int(ios * 4096 * 1000 / runtime) if runtime else 0,
        "iops": ios * 1000 / runtime if runtime else 0.0,
        "runtime": runtime,
        "total_ios": ios,
        "lat_ns": {"min": 0, "max": 0, "mean": lat_mean if n else 0.0, "stddev": 0.0, "N": n},
        "clat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": n},
    }
    if bins is not None:
        out["clat_ns"]["bins"] = bins
    return out


IDLE = direction(0, 0)


def job(
    read: Doc = IDLE, write: Doc = IDLE, *, name: str = "pairbench", elapsed: int = 1, **opts: str
) -> Doc:
    return {
        "jobname": name,
        "groupid": 0,
        "error": 0,
        "eta": 2147483647,
        "elapsed": elapsed,
        "job options": {"name": name, **opts},
        "read": read,
        "write": write,
    }


def document(ts: int, *jobs: Doc) -> Doc:
    return {"fio version": "fio-3.33", "timestamp_ms": ts, "jobs": list(jobs)}


def feed_docs(docs: list[Doc]) -> tuple[list[Record], Summary]:
    return feed_all(FioJsonParser(), [line for doc in docs for line in pretty(doc)])


# --------------------------------------------------------------------------- golden: the stream


def test_stream_fixture_has_nine_documents() -> None:
    docs = documents(fixture_text("fio", STREAM))
    assert len(docs) == 9
    assert [len(d["jobs"]) for d in docs] == [2] * 9


def test_stream_gives_one_interval_per_document() -> None:
    records, summary = parse(STREAM)
    docs = documents(fixture_text("fio", STREAM))
    total = of_stream(records, "sum")
    assert len(total) == 9  # 8 periodic documents and the final one
    assert len(of_stream(records, "randread4k.0")) == len(of_stream(records, "randread4k.1")) == 9
    assert {r.stream for r in records} == {"sum", "randread4k.0", "randread4k.1"}
    # t: seconds since the start, anchored by the first document's runtime on fio's clock.
    start = docs[0]["timestamp_ms"] - max(j["read"]["runtime"] for j in docs[0]["jobs"])
    assert [r.t for r in total] == [(d["timestamp_ms"] - start) / 1000 for d in docs]
    assert [r.t for r in total][:3] == [0.891, 1.89, 2.891]
    assert total[-1].t == 8.052  # the final document, 161 ms after the last periodic one
    # Read only: no write metrics anywhere.
    assert all(m.startswith("read_") for r in records for m in r.metrics)
    assert summary.complete is True
    assert summary.error is None


def test_stream_interval_values_are_differences_of_consecutive_documents() -> None:
    records, _ = parse(STREAM)
    total = of_stream(records, "sum")
    # Documents 1 and 2, by hand: job 0 ran 1890-891 ms and issued 68749-32180 I/Os,
    # job 1 1889-890 ms and 68731-32178.
    second = total[1]
    assert value(second, "read_iops") == pytest.approx(
        (68749 - 32180) * 1000 / 999 + (68731 - 32178) * 1000 / 999, rel=1e-12
    )
    assert value(second, "read_bytes_per_s") == pytest.approx(
        (281333760 - 131653632) * 1000 / 999 + (281260032 - 131538944) * 1000 / 999, rel=1e-12
    )
    job0 = of_stream(records, "randread4k.0")
    assert value(job0[1], "read_iops") == pytest.approx(36569 * 1000 / 999, rel=1e-12)
    # The first interval starts at zero: job 0's own figure.
    assert value(job0[0], "read_iops") == pytest.approx(32180 * 1000 / 891, rel=1e-12)
    assert value(job0[0], "read_iops") == pytest.approx(36116.722783, rel=1e-9)  # fio's iops
    # The last interval: 7891 -> 8001 ms (110 ms, kept) and 287916 -> 292080 I/Os.
    assert value(of_stream(records, "randread4k.0")[-1], "read_iops") == pytest.approx(
        (292080 - 287916) * 1000 / 110, rel=1e-12
    )


def test_stream_interval_values_match_every_pair_of_documents() -> None:
    records, _ = parse(STREAM)
    docs = documents(fixture_text("fio", STREAM))
    total = of_stream(records, "sum")
    for k, rec in enumerate(total):
        prev = docs[k - 1]["jobs"] if k else None
        iops = bps = lat_sum = lat_n = 0.0
        for j, entry in enumerate(docs[k]["jobs"]):
            cur = entry["read"]
            base = prev[j]["read"] if prev else {"runtime": 0, "total_ios": 0, "io_bytes": 0}
            base_lat = prev[j]["read"]["lat_ns"] if prev else {"mean": 0.0, "N": 0}
            dt = (cur["runtime"] - base["runtime"]) / 1000
            iops += (cur["total_ios"] - base["total_ios"]) / dt
            bps += (cur["io_bytes"] - base["io_bytes"]) / dt
            lat_sum += cur["lat_ns"]["mean"] * cur["lat_ns"]["N"]
            lat_sum -= base_lat["mean"] * base_lat["N"]
            lat_n += cur["lat_ns"]["N"] - base_lat["N"]
        assert value(rec, "read_iops") == pytest.approx(iops, rel=1e-12)
        assert value(rec, "read_bytes_per_s") == pytest.approx(bps, rel=1e-12)
        assert value(rec, "read_lat_mean_us") == pytest.approx(lat_sum / lat_n / 1000, rel=1e-9)
        assert "read_lat_p99_us" not in rec.metrics  # plain json: no histograms


def test_stream_intervals_average_to_fios_own_iops() -> None:
    # Weighted by their runtime, a job's intervals give back fio's cumulative iops.
    records, _ = parse(STREAM)
    docs = documents(fixture_text("fio", STREAM))
    runtimes = [0] + [d["jobs"][0]["read"]["runtime"] for d in docs]
    job0 = of_stream(records, "randread4k.0")
    weighted = sum(
        value(r, "read_iops") * (runtimes[k + 1] - runtimes[k]) for k, r in enumerate(job0)
    )
    final = docs[-1]["jobs"][0]["read"]
    assert weighted / final["runtime"] == pytest.approx(final["iops"], rel=1e-9)


def test_stream_summary_is_the_final_document() -> None:
    _, summary = parse(STREAM)
    final = documents(fixture_text("fio", STREAM))[-1]["jobs"]
    r0, r1 = final[0]["read"], final[1]["read"]
    assert summary.values["read_iops"] == r0["iops"] + r1["iops"]
    assert summary.values["read_bytes_per_s"] == r0["bw_bytes"] + r1["bw_bytes"]
    lat = r0["lat_ns"]["mean"] * r0["lat_ns"]["N"] + r1["lat_ns"]["mean"] * r1["lat_ns"]["N"]
    assert summary.values["read_lat_mean_us"] == pytest.approx(
        lat / (r0["lat_ns"]["N"] + r1["lat_ns"]["N"]) / 1000, rel=1e-15
    )
    # Plain json has no histograms: a percentile over two jobs is the larger of theirs.
    for key, name in PERCENTILES:
        expected = max(r0["clat_ns"]["percentile"][key], r1["clat_ns"]["percentile"][key])
        assert summary.values[f"read_lat_{name}_us"] == expected / 1000
    assert set(summary.values) == {
        "read_iops",
        "read_bytes_per_s",
        "read_lat_mean_us",
        "read_lat_p50_us",
        "read_lat_p99_us",
        "read_lat_p999_us",
        "read_lat_p9999_us",
    }


# --------------------------------------------------------------------------- golden: json+ / json


def test_jsonplus_final_document() -> None:
    records, summary = parse(JSONPLUS)
    [doc] = documents(fixture_text("fio", JSONPLUS))
    r0, r1 = doc["jobs"][0]["read"], doc["jobs"][1]["read"]
    assert summary.complete is True and summary.error is None
    assert summary.values["read_iops"] == r0["iops"] + r1["iops"]
    assert summary.values["read_bytes_per_s"] == r0["bw_bytes"] + r1["bw_bytes"]
    # json+ histograms: percentiles over both jobs from the merged bins (what fio reports
    # with --group_reporting), between the two jobs' own.
    merged: dict[int, float] = {}
    for r in (r0, r1):
        for latency, count in r["clat_ns"]["bins"].items():
            merged[int(latency)] = merged.get(int(latency), 0) + count
    for key, name in PERCENTILES:
        expected = fio_percentile(merged, float(key))
        assert summary.values[f"read_lat_{name}_us"] == expected / 1000
        own = sorted((r0["clat_ns"]["percentile"][key], r1["clat_ns"]["percentile"][key]))
        assert own[0] <= expected <= own[1]
    assert summary.values["read_lat_p99_us"] == 3391.488
    # One document, one interval from the start to its end: 8001 ms of runtime.
    assert [r.stream for r in records] == ["sum", "randread4k.0", "randread4k.1"]
    assert {r.t for r in records} == {8.001}
    job0 = of_stream(records, "randread4k.0")[0]
    assert value(job0, "read_iops") == pytest.approx(r0["iops"], rel=1e-9)
    assert value(job0, "read_bytes_per_s") == pytest.approx(r0["bw_bytes"], rel=1e-8)
    assert value(job0, "read_lat_mean_us") == pytest.approx(r0["lat_ns"]["mean"] / 1000, rel=1e-12)
    assert value(job0, "read_lat_p99_us") == r0["clat_ns"]["percentile"]["99.000000"] / 1000


def test_fios_percentile_rule_reproduces_every_printed_percentile() -> None:
    # The rule the parser applies to merged and differenced histograms, checked against
    # each json+ job's own percentiles: all 17 of each agree exactly.
    [doc] = documents(fixture_text("fio", JSONPLUS))
    checked = 0
    for entry in doc["jobs"]:
        clat = entry["read"]["clat_ns"]
        bins = {int(k): v for k, v in clat["bins"].items()}
        for key, latency in clat["percentile"].items():
            assert fio_percentile(bins, float(key)) == latency
            checked += 1
    assert checked == 34


def test_group_json_reports_read_and_write_exactly() -> None:
    records, summary = parse(GROUP)
    [doc] = documents(fixture_text("fio", GROUP))
    [entry] = doc["jobs"]  # --group_reporting: one entry for both jobs
    expected: dict[str, float] = {}
    for name in ("read", "write"):
        d = entry[name]
        expected[f"{name}_iops"] = d["iops"]
        expected[f"{name}_bytes_per_s"] = d["bw_bytes"]
        expected[f"{name}_lat_mean_us"] = d["lat_ns"]["mean"] / 1000
        for key, suffix in PERCENTILES:
            expected[f"{name}_lat_{suffix}_us"] = d["clat_ns"]["percentile"][key] / 1000
    assert dict(summary.values) == expected
    assert summary.values["read_iops"] == 55663.417073
    assert summary.values["write_iops"] == 23931.508561
    assert summary.values["write_lat_p99_us"] == 1990.656
    assert summary.complete is True and summary.error is None
    # One entry: only the "sum" stream, read and write in one record.
    [record] = records
    assert record.stream == "sum" and record.t == 8.001
    assert record.metrics == (
        "read_iops",
        "read_bytes_per_s",
        "read_lat_mean_us",
        "write_iops",
        "write_bytes_per_s",
        "write_lat_mean_us",
    )
    assert value(record, "write_iops") == pytest.approx(191476 * 1000 / 8001, rel=1e-12)


# --------------------------------------------------------------------------- golden: errors


@pytest.mark.parametrize(
    ("name", "error", "complete"),
    [
        (
            "err_directory_option_missing.out",
            "/tmp/does-not-exist-dir is not a directory; "
            "failed parsing directory=/tmp/does-not-exist-dir; "
            "file:options.c:1457, func=lstat, error=No such file or directory",
            False,
        ),
        (
            "err_directory_option_missing_json.out",
            "/tmp/does-not-exist-dir is not a directory; "
            "failed parsing directory=/tmp/does-not-exist-dir; "
            "file:options.c:1457, func=lstat, error=No such file or directory",
            False,
        ),
        ("err_invalid_option.out", "unrecognized option '--iodepthh=32'", False),
        ("err_invalid_value.out", "failed parsing rw=randreed", False),
        (
            "err_parent_not_a_directory.out",
            "failed to create dir (/etc/hostname/sub): Not a directory",
            False,
        ),
        (
            "err_parent_not_a_directory_json.out",
            "failed to create dir (/etc/hostname/sub): Not a directory",
            True,  # the JSON document is printed, all zeros, "error" : 0
        ),
        (
            "err_parent_not_a_directory_json_split.stderr",
            "failed to create dir (/etc/hostname/sub): Not a directory",
            False,
        ),
    ],
)
def test_errors_come_from_fios_words(name: str, error: str, complete: bool) -> None:
    records, summary = parse(name)
    assert records == []
    assert summary.error == error
    assert summary.complete is complete
    assert dict(summary.values) == {}


def test_failed_job_json_alone_says_nothing_went_wrong() -> None:
    # The quirk: stdout alone (the JSON) has "error" : 0 for the failed job.
    records, summary = parse("err_parent_not_a_directory_json_split.stdout")
    assert records == [] and dict(summary.values) == {}
    assert summary.error is None and summary.complete is True


def test_stderr_anywhere_inside_a_document_is_read_as_stderr() -> None:
    stdout = fixture_text("fio", "err_parent_not_a_directory_json_split.stdout").split("\n")
    stderr = fixture_text("fio", "err_parent_not_a_directory_json_split.stderr").split("\n")[0]
    for where in (0, 1, 5, 100, len(stdout) - 2, len(stdout)):
        records, summary = feed_all(FioJsonParser(), [*stdout[:where], stderr, *stdout[where:]])
        assert records == []
        assert summary.error == "failed to create dir (/etc/hostname/sub): Not a directory"
        assert summary.complete is True


def test_a_signal_message_between_or_inside_documents() -> None:
    lines = fixture_text("fio", STREAM).split("\n")
    expected, _ = feed_all(FioJsonParser(), lines)
    for where in (525, 1200, 4200, 4700):  # after a document, inside, before the final one
        got, summary = feed_all(
            FioJsonParser(), [*lines[:where], "", "fio: terminating on signal 2", *lines[where:]]
        )
        assert got == expected
        assert summary.error == "terminating on signal 2"


@pytest.mark.parametrize(
    "line",
    [
        "fio: native_fallocate call failed: Operation not supported",
        "fio: posix_fallocate fails: Operation not supported",
        "fio: Switching to tausworthe64. Use the random_generator= option to get rid of this.",
        "fio: this platform does not support process shared mutexes, forcing use of threads.",
        "fio: file hash not empty on exit",
        "fio: cache invalidation of /dev/sdb failed: Operation not permitted",
        "fio:",
        "fio: ",
        "note: both iodepth >= 1 and synchronous I/O engine are selected",
        "Did you mean iodepth?",
    ],
)
def test_warnings_and_chatter_are_not_errors(line: str) -> None:
    assert fio_error_message(line) is None
    parser = FioJsonParser()
    assert parser.feed(line) == []
    assert parser.close().error is None


def test_error_messages_are_deduplicated_bounded_and_joined() -> None:
    parser = FioJsonParser()
    for line in ["fio: unrecognized option '--x'"] * 2 + [f"fio: e{i}" for i in range(10)]:
        parser.feed(line)
    parser.feed("fio: " + "y" * 5000)
    error = parser.close().error
    assert error == "unrecognized option '--x'; e0; e1; e2; e3"


def test_a_job_error_in_the_json_is_reported_without_stderr() -> None:
    doc = document(1000, job(direction(1000, 500)))
    doc["jobs"][0]["error"] = 5
    _, summary = feed_docs([doc])
    assert summary.error == "job pairbench.0: error 5"
    doc["jobs"][0]["error"] = 0
    assert feed_docs([doc])[1].error is None


# --------------------------------------------------------------------------- synthetic streams


def test_ramp_time_gives_no_records_and_its_reset_is_detected() -> None:
    # Real figures of `--ramp_time=1 --status-interval=1` (fio 3.33): during the ramp fio
    # counts I/Os but no latency; at its end it resets, and the counters after the reset
    # (39256 I/Os in 999 ms) exceed those before it (31888 in 875 ms).
    ramp = {"ramp_time": "1"}
    docs = [
        document(77182, job(IDLE, direction(875, 31888, lat_n=0), elapsed=1, **ramp)),
        document(78306, job(IDLE, direction(999, 39256, lat_n=39255), elapsed=3, **ramp)),
        document(79307, job(IDLE, direction(2000, 64791), elapsed=4, **ramp)),
    ]
    records, summary = feed_docs(docs)
    assert [r.t for r in records] == [1.999, 3.0]  # t counts from the ramp's start
    assert value(records[0], "write_iops") == pytest.approx(39256 * 1000 / 999, rel=1e-12)
    assert value(records[1], "write_iops") == pytest.approx((64791 - 39256) * 1000 / 1001)
    assert summary.values["write_iops"] == pytest.approx(64791 * 1000 / 2000)


def test_a_counter_that_goes_down_restarts_the_interval() -> None:
    docs = [
        document(1000, job(direction(1000, 5000))),
        document(2000, job(direction(2000, 10000))),
        document(3000, job(direction(500, 400))),  # statistics were reset
    ]
    records, _ = feed_docs(docs)
    assert [value(r, "read_iops") for r in records] == [5000.0, 5000.0, 800.0]


def test_without_a_ramp_option_latency_less_io_still_counts() -> None:
    docs = [
        document(1000, job(direction(1000, 5000, lat_n=0))),
        document(2000, job(direction(2000, 9000, lat_n=0))),
    ]
    records, _ = feed_docs(docs)
    assert [r.metrics for r in records] == [("read_iops", "read_bytes_per_s")] * 2
    assert [value(r, "read_iops") for r in records] == [5000.0, 4000.0]


def test_a_short_interval_is_merged_into_the_next_or_left_to_the_summary() -> None:
    docs = [
        document(1000, job(direction(1000, 5000))),
        document(1050, job(direction(1050, 5300))),  # 50 ms: merged into the next
        document(2000, job(direction(2000, 10000))),
        document(2054, job(direction(2005, 10000, io_bytes=10008 * 4096))),  # drain: final
    ]
    records, summary = feed_docs(docs)
    assert [r.t for r in records] == [1.0, 2.0]
    assert value(records[1], "read_iops") == 5000.0
    assert summary.values["read_iops"] == pytest.approx(10000 * 1000 / 2005)
    assert summary.complete is True


def test_documents_before_any_io_anchor_nothing() -> None:
    docs = [
        document(1000, job(IDLE)),  # laying out the file
        document(2000, job(direction(400, 2000))),
        document(3000, job(direction(1400, 7000))),
    ]
    records, _ = feed_docs(docs)
    assert [r.t for r in records] == [0.4, 1.4]


def test_time_never_goes_back() -> None:
    docs = [
        document(5000, job(direction(1000, 5000))),
        document(4000, job(direction(2000, 10000))),  # the clock stepped back
        document(6000, job(direction(3000, 15000))),
    ]
    records, _ = feed_docs(docs)
    assert [r.t for r in records] == [1.0, 2.0]
    assert value(records[1], "read_iops") == 5000.0


def test_no_timestamp_falls_back_to_runtime() -> None:
    doc = document(0, job(direction(1500, 3000)))
    del doc["timestamp_ms"]
    records, _ = feed_docs([doc])
    assert [r.t for r in records] == [1.5]
    doc["timestamp"] = 100
    assert [r.t for r in feed_docs([doc])[0]] == [1.5]


def test_per_job_streams_only_with_several_entries() -> None:
    two = document(1000, job(direction(1000, 100)), job(direction(1000, 300), name="other"))
    records, _ = feed_docs([two])
    assert [r.stream for r in records] == ["sum", "pairbench.0", "other.1"]
    assert [value(r, "read_iops") for r in records] == [400.0, 100.0, 300.0]
    one = document(1000, job(direction(1000, 100)))
    assert [r.stream for r in feed_docs([one])[0]] == ["sum"]


def test_a_finished_job_adds_nothing_to_the_sum() -> None:
    docs = [
        document(1000, job(direction(1000, 100)), job(direction(1000, 300))),
        document(2000, job(direction(1200, 120)), job(direction(2000, 600))),  # job 0 ended
        document(3000, job(direction(1200, 120)), job(direction(3000, 900))),
    ]
    records, _ = feed_docs(docs)
    total = of_stream(records, "sum")
    assert [value(r, "read_iops") for r in total] == [400.0, 100.0 + 300.0, 300.0]
    assert [r.t for r in of_stream(records, "pairbench.0")] == [1.0, 2.0]


def test_interval_latency_mean_and_p99_from_histogram_differences() -> None:
    first = direction(1000, 100, lat_mean=200_000.0, bins={"100000": 50, "300000": 50})
    second = direction(
        2000, 300, lat_mean=400_000.0, bins={"100000": 50, "300000": 50, "600000": 200}
    )
    records, summary = feed_docs([document(1000, job(first)), document(2000, job(second))])
    a, b = records
    assert value(a, "read_lat_mean_us") == 200.0
    assert value(a, "read_lat_p99_us") == 300.0
    # Interval 2: 200 I/Os, mean (400*300 - 200*100)/200 = 500 µs, all in the 600 µs bin.
    assert value(b, "read_lat_mean_us") == 500.0
    assert value(b, "read_lat_p99_us") == 600.0
    assert b.metrics == ("read_iops", "read_bytes_per_s", "read_lat_mean_us", "read_lat_p99_us")
    assert summary.values["read_lat_mean_us"] == 400.0


def test_metrics_tuples_are_shared_between_records() -> None:
    records, _ = parse(STREAM)
    assert len({id(r.metrics) for r in records}) == 1


def test_a_compact_one_line_document_reads_like_a_pretty_one() -> None:
    docs = documents(fixture_text("fio", STREAM))
    compact = [json.dumps(d) for d in docs]
    assert feed_all(FioJsonParser(), compact) == parse(STREAM)


# --------------------------------------------------------------------------- malformed input


def test_a_document_that_is_not_fios_is_a_parse_error_and_parsing_goes_on() -> None:
    parser = FioJsonParser()
    assert parser.feed("{") == [] and parser.feed('  "hello" : 1') == []
    with pytest.raises(ParseError, match="jobs"):
        parser.feed("}")
    records = [r for line in fixture_text("fio", GROUP).split("\n") for r in parser.feed(line)]
    assert len(records) == 1
    assert parser.close().values["read_iops"] == 55663.417073


@pytest.mark.parametrize(
    "body",
    [
        '  "jobs" : 3',
        '  "jobs" : [1]',
        '  "jobs" : [{"read" : {"runtime" : "x", "total_ios" : 1, "io_bytes" : 1}}]',
        '  "jobs" : [{"read" : {"runtime" : -1, "total_ios" : 1, "io_bytes" : 1}}]',
        '  "jobs" : [{"read" : {"runtime" : 1e999, "total_ios" : 1, "io_bytes" : 1}}]',
        '  "jobs" : [{"read" : {"runtime" : true, "total_ios" : 1, "io_bytes" : 1}}]',
        '  "jobs" : [{"read" : {"runtime" : NaN, "total_ios" : 1, "io_bytes" : 1}}]',
        '  "jobs" : [{"read" : {"runtime" : 1' + "0" * 400 + ', "total_ios" : 1, "io_bytes" : 1}}]',
        '  "jobs" : [{"read" : {"total_ios" : 1, "io_bytes" : 1}}]',
        '  "jobs" : [{"jobname" : 7, "read" : {"runtime" : 1, "total_ios" : 1, "io_bytes" : 1}}]',
        '  "jobs" : [{"read" : 5}]',
        '  "jobs" : [{"read" : {"runtime" : 1, "total_ios" : 1, "io_bytes" : 1, '
        '"clat_ns" : {"bins" : {"x" : 1}}}}]',
        '  "jobs" : [], "timestamp_ms" : "now"',
        '  "jobs" : [' + "[" * 100_000 + "]" * 100_000 + "]",
        '  "jobs" : [}',
        '  "a" : "unterminated',
    ],
)
def test_malformed_documents_raise_parse_error(body: str) -> None:
    parser = FioJsonParser()
    parser.feed("{")
    parser.feed(body)
    with pytest.raises(ParseError) as info:
        parser.feed("}")
    assert len(str(info.value)) < 400
    assert not parser.in_document
    assert parser.close().complete is False


def test_a_document_cut_short_by_the_next_one() -> None:
    lines = fixture_text("fio", GROUP).split("\n")
    parser = FioJsonParser()
    for line in lines[:50]:
        parser.feed(line)
    with pytest.raises(ParseError, match="ended before"):
        parser.feed("{")
    records = [r for line in lines[1:] for r in parser.feed(line)]
    assert len(records) == 1
    assert parser.close().complete is True


def test_documents_are_bounded() -> None:
    parser = FioJsonParser(max_document_chars=20_000)
    parser.feed("{")
    parser.feed("  " + "x" * 10_000)
    with pytest.raises(ParseError, match="longer than 20000"):
        parser.feed("  " + "x" * 10_000)
    assert not parser.in_document
    # The rest of the oversized document is ignored, and the next one reads fine.
    assert parser.feed("  more") == [] and parser.feed("}") == []
    assert len(feed_all(parser, fixture_text("fio", GROUP).split("\n"))[0]) == 1


def test_the_default_bound_is_16_mb() -> None:
    assert MAX_DOCUMENT_CHARS == 16 * 1024 * 1024
    parser = FioJsonParser()
    parser.feed("{")
    parser.feed("  " + "x" * (8 * 1024 * 1024))
    with pytest.raises(ParseError):
        parser.feed("  " + "x" * (8 * 1024 * 1024))
    with pytest.raises(ParseError):
        parser.feed("{" + "x" * MAX_DOCUMENT_CHARS + "}")


def test_a_truncated_stream_keeps_the_complete_documents() -> None:
    lines = fixture_text("fio", STREAM).split("\n")
    full, _ = feed_all(FioJsonParser(), lines)
    # Cut inside the fifth document (lines 2101-2625).
    records, summary = feed_all(FioJsonParser(), lines[:2400])
    assert records == full[: 4 * 3]
    assert summary.complete is False
    # fio's own figures up to the fourth document.
    doc4 = documents("\n".join(lines[:2100]))[-1]
    assert summary.values["read_iops"] == sum(j["read"]["iops"] for j in doc4["jobs"])


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_every_fixture_parses_without_exceptions(name: str) -> None:
    records, summary = parse(name)
    assert isinstance(summary, Summary)
    assert all(r.t > 0 for r in records)
    for points in series_of(records).values():
        ts = [t for t, _ in points]
        assert ts == sorted(set(ts))  # strictly increasing
        assert all(math.isfinite(v) and v >= 0 for _, v in points)


def test_crlf_and_a_missing_final_newline() -> None:
    text = fixture_text("fio", GROUP)
    expected = parse(GROUP)
    assert feed_all(FioJsonParser(), text.replace("\n", "\r\n").split("\n")) == expected
    assert feed_all(FioJsonParser(), text.rstrip("\n").split("\n")) == expected


# --------------------------------------------------------------------------- fuzzing


_SOUP = st.sampled_from(
    ["{", "}", " {", " }", "  {", "  }", "[", "]", "  [", "  ]", '  "jobs" : [', '  "jobs" : {',
     '  "read" : {', '    "runtime" : 5,', '    "total_ios" : 1,', '    "io_bytes" : 9', "  },",
     "  ],", '"', '  "', "  1e999", "  NaN", "  -1", "  true", "  null", ",", "  ,", ":", "",
     "fio: boom", "{}", '{"jobs": []}', '{"jobs": [{}]}', "\x00", "\udcff", "}{", "  }{"]
)  # fmt: skip


@FUZZ
@given(st.lists(_SOUP, max_size=60))
def test_fuzz_brace_soup(lines: list[str]) -> None:
    feed_garbage(FioJsonParser, lines)


@FUZZ
@given(
    st.lists(st.sampled_from(["{", "}", "  " + "x" * 100_000, "x" * 100_000, "  ["]), max_size=8)
)
def test_fuzz_very_long_lines(lines: list[str]) -> None:
    # Only records or ParseError here; the time they take is bench/parser_worst.py's.
    feed_garbage(lambda: FioJsonParser(max_document_chars=150_000), lines)


def _number_edits() -> st.SearchStrategy[object]:
    return st.one_of(
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=5),
        st.none(),
        st.booleans(),
        st.just({}),
        st.just([]),
    )


def _leaves(obj: object, path: tuple[object, ...] = ()) -> Iterator[tuple[object, ...]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, (*path, i))
    else:
        yield path


_TEMPLATE = documents(fixture_text("fio", GROUP))[0]
_TEMPLATE["jobs"][0]["read"]["clat_ns"]["bins"] = {"1000": 3, "2000": 4}
_PATHS = [
    p
    for p in _leaves(_TEMPLATE)
    if any(k in p for k in ("read", "write", "timestamp_ms", "jobname", "error", "elapsed"))
]


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(_PATHS), _number_edits()), min_size=1, max_size=4))
def test_fuzz_mutated_fio_documents(edits: list[tuple[tuple[object, ...], object]]) -> None:
    doc = copy.deepcopy(_TEMPLATE)
    for path, new in edits:
        target: Any = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = new
    try:
        text = json.dumps(doc, indent=2)
    except ValueError:
        return
    samples = feed_garbage(FioJsonParser, text.split("\n"))
    for s in samples:
        assert isinstance(s.value, float)


@functools.cache
def _full_stream() -> list[Record]:
    return feed_all(FioJsonParser(), fixture_text("fio", STREAM).split("\n"))[0]


@FUZZ
@given(st.integers(0, 400_000))
def test_fuzz_truncated_prefixes(cut: int) -> None:
    data = fixture_path("fio", STREAM).read_bytes()
    cut = cut % (len(data) + 1)
    lines, rest = split_lines(data[:cut])
    full = _full_stream()
    records, summary = feed_all(FioJsonParser(), lines)
    assert records == full[: len(records)]
    inside = lines and lines[-1] != "}" and any(line == "{" for line in lines)
    if inside:
        assert summary.complete is False
    if rest is not None:
        feed_garbage(FioJsonParser, [*lines, rest])


# --------------------------------------------------------------------------- speed


def synthetic_stream(template: Doc, count: int) -> list[str]:
    """``count`` documents made from ``template`` with counters growing by its own figures
    each second (the long run of a status stream)."""
    lines: list[str] = []
    for k in range(1, count + 1):
        doc = copy.deepcopy(template)
        doc["timestamp_ms"] = template["timestamp_ms"] + 1000 * k
        for entry in doc["jobs"]:
            for name in ("read", "write"):
                d = entry[name]
                for key in ("total_ios", "io_bytes", "runtime"):
                    d[key] = d[key] * k
                d["lat_ns"]["N"] = d["lat_ns"]["N"] * k
                bins = d["clat_ns"].get("bins")
                if bins:
                    d["clat_ns"]["bins"] = {b: c * k for b, c in bins.items()}
        lines += pretty(doc)
    return lines


@pytest.mark.parametrize("name", [STREAM, JSONPLUS])
def test_a_long_stream(name: str) -> None:
    # Its rate (documents/s) is measured by bench/parsers.py, against a baseline.
    template = documents(fixture_text("fio", name))[0]
    lines = synthetic_stream(template, 300)
    parser = FioJsonParser()
    records = [r for line in lines for r in parser.feed(line)]
    assert parser.documents == 300 and len(of_stream(records, "sum")) == 300
    assert expand(records)
