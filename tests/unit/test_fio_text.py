"""Tests of the fio normal-text parser and the any-format file parser against real captures."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairbench.domain import Summary
from pairbench.tools.feed import feed_text
from pairbench.tools.fio import FioFileParser, file_parser
from pairbench.tools.fio_json import parse_json_output
from pairbench.tools.fio_terse import parse_terse_output
from pairbench.tools.fio_text import FioTextParser, parse_text_output
from parser_checks import (
    feed_all,
    feed_garbage,
    fixture_names,
    fixture_text,
)

FUZZ = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

MiB = 2.0**20
NORMAL = "randread4k_qd32_j2_normal.out"
GROUP_NORMAL = "randrw70_4k_qd32_j2_group_normal.out"
TEXT_FIXTURES = [
    NORMAL,
    GROUP_NORMAL,
    "randread4k_qd32_j2_logs.out",
    "nonexistent_dir_autocreated.out",
    "err_parent_not_a_directory.out",
    "err_invalid_option.out",
    "err_invalid_value.out",
    "err_directory_option_missing.out",
]


def parse(name: str) -> Summary:
    records, summary = parse_text_output(fixture_text("fio", name))
    assert records == []  # the text has no intervals
    return summary


# --------------------------------------------------------------------------- golden


def test_two_jobs_are_summed() -> None:
    summary = parse(NORMAL)
    assert summary.complete is True and summary.error is None
    values = dict(summary.values)
    # "read: IOPS=36.4k" twice; bandwidth from "READ: bw=285MiB/s" of the group line.
    assert values.pop("read_iops") == 72800.0
    assert values.pop("read_bytes_per_s") == 285 * MiB
    # Mean latency weighted by the "issued rwts" counts (291494 and 291310 reads).
    assert values.pop("read_lat_mean_us") == pytest.approx(
        (877.96 * 291494 + 878.49 * 291310) / (291494 + 291310), rel=1e-12
    )
    # Percentiles: the larger of the two jobs' (the text has no histograms).
    assert values == {
        "read_lat_p50_us": 816.0,
        "read_lat_p99_us": 3949.0,
        "read_lat_p999_us": 6456.0,
    }


def test_group_reporting_read_and_write() -> None:
    summary = parse(GROUP_NORMAL)
    assert summary.complete is True and summary.error is None
    assert dict(summary.values) == {
        "read_iops": 50500.0,
        "read_bytes_per_s": 197 * MiB,
        "read_lat_mean_us": 858.72,
        "read_lat_p50_us": 807.0,
        "read_lat_p99_us": 3818.0,
        "read_lat_p999_us": 4948.0,
        "write_iops": 21700.0,
        "write_bytes_per_s": 84.8 * MiB,
        "write_lat_mean_us": 947.24,
        "write_lat_p50_us": 889.0,
        "write_lat_p99_us": 3884.0,
        "write_lat_p999_us": 5014.0,
    }


def test_units_chosen_by_fio_are_read() -> None:
    # "clat (nsec): ... max=4364.8k", "lat (usec)", "clat percentiles (usec)", 245 msec run.
    summary = parse("nonexistent_dir_autocreated.out")
    assert dict(summary.values) == {
        "read_iops": 16700.0,
        "read_bytes_per_s": 65.3 * MiB,
        "read_lat_mean_us": 59.39,
        "read_lat_p50_us": 39.0,
        "read_lat_p99_us": 145.0,
        "read_lat_p999_us": 766.0,
    }


def test_text_and_json_of_similar_runs_agree_roughly() -> None:
    text = parse(NORMAL).values
    json_values = parse_json_output(fixture_text("fio", "randread4k_qd32_j2_jsonplus.out"))[1]
    for key in ("read_iops", "read_bytes_per_s", "read_lat_mean_us"):
        assert text[key] == pytest.approx(json_values.values[key], rel=0.05)


@pytest.mark.parametrize(
    ("name", "error", "complete"),
    [
        ("err_invalid_option.out", "unrecognized option '--iodepthh=32'", False),
        ("err_invalid_value.out", "failed parsing rw=randreed", False),
        (
            "err_parent_not_a_directory.out",
            "failed to create dir (/etc/hostname/sub): Not a directory",
            True,  # an empty "Run status group 0 (all jobs):" follows
        ),
    ],
)
def test_errors(name: str, error: str, complete: bool) -> None:
    summary = parse(name)
    assert summary.error == error
    assert summary.complete is complete
    assert dict(summary.values) == {}


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (  # kb_base=1000: the decimal figure comes first; the binary one is still used
            ["j: (groupid=0, jobs=1): err= 0: pid=1: Sat Nov 21 22:34:36 2026",
             "  read: IOPS=36.4k, BW=149MB/s (142MiB/s)(1139MiB/8001msec)"],
            {"read_iops": 36400.0, "read_bytes_per_s": 142 * MiB},
        ),
        (  # no binary figure at all
            ["j: (groupid=0, jobs=1): err= 0: pid=1: x",
             "  write: IOPS=512, BW=512kB/s (512kB/s)(1MiB/2000msec); 0 zone resets"],
            {"write_iops": 512.0, "write_bytes_per_s": 512e3},
        ),
        (  # millions of IOPS, latency in nsec with a k suffix
            ["j: (groupid=0, jobs=1): err= 0: pid=1: x",
             "  read: IOPS=1.2M, BW=4.6GiB/s (4.9GB/s)(46GiB/10001msec)",
             "     lat (nsec): min=200, max=90.1k, avg=1.5k, stdev=20.00"],
            {"read_iops": 1.2e6, "read_bytes_per_s": 4.6 * 2.0**30, "read_lat_mean_us": 1.5},
        ),
    ],
)  # fmt: skip
def test_synthetic_lines(lines: list[str], expected: dict[str, float]) -> None:
    summary = feed_all(FioTextParser(), lines)[1]
    assert dict(summary.values) == expected
    assert summary.complete is False  # no "Run status group" line


def test_a_failed_job_header_is_an_error() -> None:
    lines = [
        "j: (groupid=0, jobs=1): err= 5 (file:io_u.c:1889, func=io_u error, "
        "error=Input/output error): pid=7: Sat Nov 21 22:34:36 2026",
        "  read: IOPS=10, BW=40.0KiB/s (41.0kB/s)(80.0KiB/2000msec)",
        "Run status group 0 (all jobs):",
    ]
    summary = feed_all(FioTextParser(), lines)[1]
    assert summary.error == (
        "j: err=5 (file:io_u.c:1889, func=io_u error, error=Input/output error)"
    )
    assert summary.values["read_iops"] == 10.0


def test_a_later_dump_replaces_the_earlier_one() -> None:
    lines = fixture_text("fio", NORMAL).split("\n")
    once = feed_all(FioTextParser(), lines)[1]
    twice = feed_all(FioTextParser(), [*lines, *lines])[1]
    assert twice == once


def test_warnings_are_not_errors() -> None:
    lines = ["fio: native_fallocate call failed: Operation not supported"]
    lines += fixture_text("fio", NORMAL).split("\n")
    assert feed_all(FioTextParser(), lines)[1] == parse(NORMAL)


# --------------------------------------------------------------------------- any-format parser


@pytest.mark.parametrize("name", fixture_names("fio", "*.out"))
def test_the_file_parser_picks_the_format(name: str) -> None:
    text = fixture_text("fio", name)
    records, summary = feed_all(file_parser(), text.split("\n"))
    if "{" in text.split("\n"):  # a JSON output
        expected_records, expected = parse_json_output(text)
    elif name.endswith("_terse.out"):
        expected_records, expected = parse_terse_output(text)
    else:
        expected_records, expected = feed_text(FioTextParser(intervals=True), text)
    assert records == expected_records
    # The same reading, plus the form's name and why a form cannot carry every metric.
    assert summary.complete == (expected.complete and summary.reason is None)
    assert replace(summary, complete=expected.complete, form="", reason=None) == expected


def test_the_file_parser_on_a_truncated_json_file() -> None:
    lines = fixture_text("fio", "randrw70_4k_qd32_j2_group_json.out").split("\n")[:100]
    records, summary = feed_all(FioFileParser(), lines)
    assert records == [] and summary.complete is False and dict(summary.values) == {}


# --------------------------------------------------------------------------- fuzzing


_LINES = fixture_text("fio", GROUP_NORMAL).split("\n") + fixture_text("fio", NORMAL).split("\n")
_EDITS = st.sampled_from([*"0123456789.kMGiB ,=()[]|:/", "", "x", "\t", "  ", "1.2.3", "٣"])


@st.composite
def _mutated_line(draw: st.DrawFn) -> str:
    line = list(draw(st.sampled_from([x for x in _LINES if x])))
    for _ in range(draw(st.integers(0, 4))):
        line[draw(st.integers(0, len(line) - 1))] = draw(_EDITS)
    return "".join(line)


@FUZZ
@given(st.lists(_mutated_line(), max_size=40))
def test_fuzz_mutated_fio_lines(lines: list[str]) -> None:
    feed_garbage(FioTextParser, lines)


def test_long_lines_are_skipped() -> None:
    parser = FioTextParser()
    assert parser.feed("  read: IOPS=1, BW=1B/s (1B/s)" + " " * 10_000) == []
    assert parser.feed("fio: " + "x" * 10_000) == []
    assert parser.close() == Summary(values={}, complete=False, error=None)
