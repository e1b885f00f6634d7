"""Tests of the iperf3 JSON parser (-J and --json-stream) and the text-or-JSON auto parser."""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairbench.domain import Record, Summary
from pairbench.tools import iperf3_metrics as m
from pairbench.tools.base import ParseError, Parser
from pairbench.tools.iperf3_auto import Iperf3AutoParser, output_kind
from pairbench.tools.iperf3_json import Iperf3JsonParser
from pairbench.tools.iperf3_json import parse_json_output as _parse_json_output
from pairbench.tools.iperf3_text import Iperf3TextParser
from parser_checks import (
    assert_records_well_formed,
    feed_garbage,
    fixture_names,
    fixture_path,
    fixture_text,
    series_of,
    split_lines,
)
from parser_checks import feed_all as _feed_all

TOOL = "iperf3"


# The summaries compared here leave out the output form ("json" for -J, "json-stream" for
# events): a document and its events give the same figures; test_iperf3_forms.py checks forms.
def feed_all(parser: Parser, lines: Iterable[str]) -> tuple[list[Record], Summary]:
    records, summary = _feed_all(parser, lines)
    return records, replace(summary, form="")


def parse_json_output(text: str) -> tuple[list[Record], Summary]:
    records, summary = _parse_json_output(text)
    return records, replace(summary, form="")


# Every -J capture: the combined stdout+stderr ones and the stdout-only one of the split run.
JSON_FIXTURES = [*fixture_names(TOOL, "*_json.out"), "udp_b2G_l8000_loss_json_split.stdout"]
ALL_FIXTURES = [*fixture_names(TOOL, "*.out"), "udp_b2G_l8000_loss_json_split.stdout"]
KINDS = {m.TCP_SEND, m.TCP_SUM_SEND, m.UDP_SEND, m.UDP_RECV, m.TCP_RECV}

FUZZ = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
FUZZ_SMALL = settings(FUZZ, max_examples=60)

Doc = dict[str, Any]
Points = list[tuple[float, float]]


# --------------------------------------------------------------------------- helpers


def parse(name: str) -> tuple[list[Record], Summary]:
    records, summary = parse_json_output(fixture_text(TOOL, name))
    check_records(records)
    return records, summary


def check_records(records: list[Record]) -> None:
    """Well-formed records whose metrics tuple is one of the shared constants (by identity)."""
    assert_records_well_formed(records)
    for r in records:
        assert r.metrics in KINDS
        assert any(r.metrics is kind for kind in KINDS)


def document(name: str) -> Doc:
    """The fixture's JSON document, decoded by the test (lines before the lone "{" skipped)."""
    text = fixture_text(TOOL, name)
    start = 0 if text.startswith("{") else text.index("\n{\n") + 1
    doc = json.loads(text[start:])
    assert isinstance(doc, dict)
    return doc


def stream_points(doc: Doc, socket: int, field: str) -> Points:
    """(end, value) of one stream's entries over the intervals, as the JSON has them."""
    out: Points = []
    for interval in doc["intervals"]:
        for entry in interval["streams"]:
            if entry["socket"] == socket:
                out.append((entry["end"], float(entry[field])))
    return out


def sum_points(doc: Doc, key: str, field: str) -> Points:
    return [(iv[key]["end"], float(iv[key][field])) for iv in doc["intervals"]]


def to_json_stream(doc: Doc, *, compact: bool = True) -> list[str]:
    """The --json-stream lines iperf3 >= 3.17 would print for the run of a -J document.

    No 3.17 capture exists (Debian 12 ships 3.12), so the tests build them: one event per line,
    start, the intervals, then error (if any) and end, as iperf_json_finish emits them.
    """
    separators = (",", ":") if compact else (", ", ": ")

    def event(name: str, data: object) -> str:
        return json.dumps({"event": name, "data": data}, separators=separators)

    lines = [event("start", doc["start"])]
    lines += [event("interval", interval) for interval in doc["intervals"]]
    if "error" in doc:
        lines.append(event("error", doc["error"]))
    lines.append(event("end", doc["end"]))
    return lines


def feed_json(lines: list[str]) -> tuple[list[Record], Summary]:
    return feed_all(Iperf3JsonParser(), lines)


def feed_or_parse_error(parser: Parser, line: str) -> list[Record]:
    """Feed a line: the only exception allowed is ParseError; anything else fails the test."""
    try:
        records = parser.feed(line)
    except ParseError as exc:
        assert str(exc)
        return []
    assert isinstance(records, list)
    check_records(records)
    return records


def close_or_parse_error(parser: Parser) -> Summary | None:
    try:
        summary = parser.close()
    except ParseError as exc:
        assert str(exc)
        return None
    assert isinstance(summary, Summary)
    assert all(isinstance(v, float) for v in summary.values.values())
    return replace(summary, form="")  # (see feed_all)


def test_fixtures_are_there() -> None:
    assert len(JSON_FIXTURES) == 9, JSON_FIXTURES
    assert fixture_path(TOOL, "udp_b2G_l8000_loss_json_split.stdout").is_file()


def test_is_a_parser() -> None:
    parser: Parser = Iperf3JsonParser()
    assert parser.feed("iperf Done.") == []
    assert parser.close() == Summary(values={}, complete=False, error=None)


# --------------------------------------------------------------------------- golden: TCP


def test_tcp_t5_json() -> None:
    records, summary = parse("tcp_t5_json.out")
    doc = document("tcp_t5_json.out")
    ser = series_of(records)
    assert set(ser) == {(stream, metric) for stream in ("5", "sum") for metric in m.TCP_SEND}
    assert all(len(points) == 5 for points in ser.values())
    assert ser[("5", "throughput_bps")] == stream_points(doc, 5, "bits_per_second")
    assert ser[("5", "retransmits")] == stream_points(doc, 5, "retransmits")
    assert ser[("5", "cwnd_bytes")] == stream_points(doc, 5, "snd_cwnd")
    # -P 1: "sum" is a copy of stream 5 (as in the text, which prints no [SUM] line), cwnd too.
    for metric in m.TCP_SEND:
        assert ser[("sum", metric)] == ser[("5", metric)]
    # The times are iperf3's exact ones, not the text's 2-decimal rounding.
    assert [t for t, _ in ser[("5", "throughput_bps")]] == [
        1.0009, 2.000251, 3.000756, 4.000057, 5.001326,
    ]  # fmt: skip
    assert ser[("5", "throughput_bps")][0] == (1.0009, 16380791130.329407)
    assert ser[("5", "cwnd_bytes")][0] == (1.0009, 341728.0)
    assert summary == Summary(
        values={
            "throughput_bps": 13116114790.484695,  # end.sum_received
            "sender_throughput_bps": 13117562425.64472,  # end.sum_sent
            "retransmits": 2746,
        },
        complete=True,
        error=None,
    )
    assert summary.values["throughput_bps"] == doc["end"]["sum_received"]["bits_per_second"]


def test_tcp_t5_p2_json() -> None:
    records, summary = parse("tcp_t5_P2_json.out")
    doc = document("tcp_t5_P2_json.out")
    ser = series_of(records)
    assert set(ser) == {
        *((s, metric) for s in ("5", "7") for metric in m.TCP_SEND),
        ("sum", "throughput_bps"),
        ("sum", "retransmits"),  # iperf3's sum: no cwnd, as the text's [SUM]
    }
    assert all(len(points) == 5 for points in ser.values())
    for socket in (5, 7):
        fields = ("bits_per_second", "retransmits", "snd_cwnd")
        for metric, field in zip(m.TCP_SEND, fields, strict=True):
            assert ser[(str(socket), metric)] == stream_points(doc, socket, field)
    assert ser[("sum", "throughput_bps")] == sum_points(doc, "sum", "bits_per_second")
    assert ser[("sum", "retransmits")] == sum_points(doc, "sum", "retransmits")
    assert ser[("sum", "throughput_bps")][0] == (1.003872, 12733883947.04506)
    assert ser[("7", "throughput_bps")][0] == (1.003881, 6366363007.579208)  # its own clock
    # One record per stream per interval, in the text's order: the streams, then the sum.
    assert [r.stream for r in records[:6]] == ["5", "7", "sum", "5", "7", "sum"]
    assert summary == Summary(
        values={
            "throughput_bps": 14417925235.571142,
            "sender_throughput_bps": 14435750335.023561,
            "retransmits": 2541,
        }
    )


def test_tcp_t5_bidir_json() -> None:
    records, summary = parse("tcp_t5_bidir_json.out")
    doc = document("tcp_t5_bidir_json.out")
    ser = series_of(records)
    assert set(ser) == {
        ("5", "throughput_bps"),
        ("5", "retransmits"),
        ("5", "cwnd_bytes"),
        ("7", "throughput_bps"),
        ("sum", "throughput_bps"),
        ("sum", "retransmits"),
        ("sum", "cwnd_bytes"),
        ("sum-reverse", "throughput_bps"),
    }
    assert all(len(points) == 5 for points in ser.values())
    # Stream 5 sends (client -> server: "sum"), stream 7 receives ("sum-reverse").
    assert ser[("5", "throughput_bps")] == stream_points(doc, 5, "bits_per_second")
    assert ser[("5", "cwnd_bytes")] == stream_points(doc, 5, "snd_cwnd")
    assert ser[("7", "throughput_bps")] == stream_points(doc, 7, "bits_per_second")
    # One stream per direction: the aggregates are copies of the streams (text semantics), so
    # "sum-reverse" is stream 7 at its own times, not sum_bidir_reverse (timed by stream 5).
    assert ser[("sum", "throughput_bps")] == ser[("5", "throughput_bps")]
    assert ser[("sum-reverse", "throughput_bps")] == ser[("7", "throughput_bps")]
    assert ser[("sum-reverse", "throughput_bps")][0] == (1.000108, 533895233.38405156)
    assert sum_points(doc, "sum_bidir_reverse", "bits_per_second")[0] == (
        1.000103,
        533897906.21016055,
    )
    assert [r.stream for r in records[:4]] == ["5", "sum", "7", "sum-reverse"]
    assert summary == Summary(
        values={
            "throughput_bps": 1568839064.267529,  # sum_received
            "sender_throughput_bps": 1572198379.3975978,  # sum_sent
            "retransmits": 0,
            "throughput_reverse_bps": 258639110.09207693,  # sum_received_bidir_reverse
        }
    )


def test_tcp_interrupted_sigint_json() -> None:
    records, summary = parse("tcp_interrupted_sigint_json.out")
    doc = document("tcp_interrupted_sigint_json.out")
    ser = series_of(records)
    assert [t for t, _ in ser[("sum", "throughput_bps")]] == [
        1.000665,
        2.000129,
        3.000343,
        3.494272,
    ]
    assert ser[("5", "throughput_bps")] == stream_points(doc, 5, "bits_per_second")
    assert ser[("5", "retransmits")] == stream_points(doc, 5, "retransmits")
    assert summary.error == "interrupt - the client has terminated"
    # end.sum_received is all zeros (the server's figures never came): incomplete, and the
    # throughput is the time-weighted mean of the intervals; the sender figures are real.
    assert doc["end"]["sum_received"]["bits_per_second"] == 0
    assert summary.complete is False
    entries = [iv["streams"][0] for iv in doc["intervals"]]
    expected = sum(e["bits_per_second"] * (e["end"] - e["start"]) for e in entries) / sum(
        e["end"] - e["start"] for e in entries
    )
    assert summary.values["throughput_bps"] == pytest.approx(expected, rel=1e-12)
    assert summary.values["sender_throughput_bps"] == 15092137294.40639
    assert summary.values["retransmits"] == 4192
    assert set(summary.values) == {"throughput_bps", "sender_throughput_bps", "retransmits"}


# --------------------------------------------------------------------------- golden: UDP


@pytest.mark.parametrize(
    ("name", "intervals"),
    [
        ("udp_b50M_l1400_json.out", 5),
        ("udp_b2G_l8000_loss_json.out", 5),
        ("udp_b2G_l8000_loss_json_split.stdout", 3),
    ],
)
def test_udp_client_intervals(name: str, intervals: int) -> None:
    records, _ = parse(name)
    doc = document(name)
    ser = series_of(records)
    # The client sends: throughput and datagrams, per stream and copied to "sum".
    assert set(ser) == {(s, metric) for s in ("5", "sum") for metric in m.UDP_SEND}
    assert all(len(points) == intervals for points in ser.values())
    assert ser[("5", "throughput_bps")] == stream_points(doc, 5, "bits_per_second")
    assert ser[("5", "packets")] == stream_points(doc, 5, "packets")
    assert ser[("sum", "packets")] == ser[("5", "packets")]


def test_udp_b50m_l1400_json_summary() -> None:
    records, summary = parse("udp_b50M_l1400_json.out")
    assert series_of(records)[("5", "packets")][0] == (1.000089, 4461.0)
    assert summary == Summary(
        values={
            "throughput_bps": 49989580.5709847,
            "sender_throughput_bps": 49991310.17553446,
            "jitter_ms": 0.005584010679454682,
            "lost_packets": 0,
            "packets": 22318,
            "lost_percent": 0,
        }
    )


def test_udp_b2g_l8000_loss_json_summary() -> None:
    _, summary = parse("udp_b2G_l8000_loss_json.out")
    doc = document("udp_b2G_l8000_loss_json.out")
    received, total = doc["end"]["sum_received"], doc["end"]["sum"]
    assert summary.complete is True
    assert summary.error is None  # the stderr warning before the document is not an error
    assert summary.values == {
        "throughput_bps": received["bits_per_second"],
        "sender_throughput_bps": doc["end"]["sum_sent"]["bits_per_second"],
        "jitter_ms": received["jitter_ms"],
        "lost_packets": received["lost_packets"],
        "packets": received["packets"],
        "lost_percent": received["lost_percent"],
    }
    assert summary.values["throughput_bps"] == 1749543676.3755054
    assert summary.values["lost_packets"] == 19512
    assert summary.values["lost_percent"] == 12.488079618547793
    # The receiver's datagram count, as the text's "Lost/Total" shows; end.sum has the same
    # jitter and loss but the sender's count.
    assert summary.values["packets"] == 156203
    assert total["packets"] == 156245
    assert (total["jitter_ms"], total["lost_packets"], total["lost_percent"]) == (
        received["jitter_ms"],
        received["lost_packets"],
        received["lost_percent"],
    )


def test_udp_split_stdout_and_stderr() -> None:
    stdout = fixture_text(TOOL, "udp_b2G_l8000_loss_json_split.stdout")
    stderr = fixture_text(TOOL, "udp_b2G_l8000_loss_json_split.stderr")
    assert stderr.startswith("warning: UDP block size 8000")
    records, summary = parse_json_output(stdout)
    assert summary.values["throughput_bps"] == 1944187953.42163
    assert summary.values["packets"] == 93726
    # The stderr line merged in before or after the document changes nothing.
    assert parse_json_output(stderr + stdout) == (records, summary)
    assert parse_json_output(stdout + stderr) == (records, summary)


def test_udp_server_document_uses_sum_received() -> None:
    # A server's -J for a UDP test: it receives; end.sum.bytes is 0 there (fixture README), so
    # the throughput comes from sum_received; its intervals are the receiver's (5 metrics).
    doc = udp_server_document()
    records, summary = feed_json(json.dumps(doc, indent="\t").split("\n"))
    ser = series_of(records)
    assert set(ser) == {(s, metric) for s in ("5", "sum") for metric in m.UDP_RECV}
    assert ser[("5", "lost_percent")] == [(1.0001, 11.0), (2.0002, 10.0)]
    assert summary == Summary(
        values={
            "throughput_bps": 1.75e9,
            "sender_throughput_bps": 2.0e9,
            "jitter_ms": 0.031,
            "lost_packets": 18707,
            "packets": 156179,
            "lost_percent": 12.0,
        }
    )


def udp_server_document() -> Doc:
    def entry(end: float, lost: int, pct: float) -> Doc:
        return {
            "socket": 5,
            "start": end - 1.0,
            "end": end,
            "seconds": 1.0,
            "bytes": 1,
            "bits_per_second": 1.7e9,
            "jitter_ms": 0.02,
            "lost_packets": lost,
            "packets": 31230,
            "lost_percent": pct,
            "omitted": False,
            "sender": False,
        }

    return {
        "start": {"accepted_connection": {"host": "10.0.0.2", "port": 1}},
        "intervals": [
            {"streams": [entry(1.0001, 3407, 11.0)], "sum": entry(1.0001, 3407, 11.0)},
            {"streams": [entry(2.0002, 3100, 10.0)], "sum": entry(2.0002, 3100, 10.0)},
        ],
        "end": {
            "sum": {"bytes": 0, "bits_per_second": 0, "jitter_ms": 0.031, "packets": 156179},
            "sum_sent": {"bits_per_second": 2.0e9, "packets": 156223},
            "sum_received": {
                "bits_per_second": 1.75e9,
                "jitter_ms": 0.031,
                "lost_packets": 18707,
                "packets": 156179,
                "lost_percent": 12.0,
            },
        },
    }


# --------------------------------------------------------------------------- golden: errors


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("err_conn_refused_json.out", "unable to connect to server: Connection refused"),
        ("err_server_busy_json.out", "the server is busy running a test. try again later"),
        # 3.12 given --json-stream: text (usage) output; the "iperf3: ..." line is read alike.
        ("err_unknown_option_json_stream.out", "unrecognized option '--json-stream'"),
    ],
)
def test_errors(name: str, error: str) -> None:
    records, summary = parse(name)
    assert records == []
    assert summary == Summary(values={}, complete=False, error=error)


def test_error_line_outside_a_document() -> None:
    lines = ["iperf3: error - unable to connect to server: Connection refused", ""]
    assert feed_json(lines) == ([], Summary({}, complete=False, error=lines[0][16:]))


# --------------------------------------------------------------------------- text vs JSON kinds

# The text and JSON captures of a kind are separate runs: only their shapes are compared.
TWINS = [
    ("tcp_t5.out", "tcp_t5_json.out"),
    ("tcp_t5_P2.out", "tcp_t5_P2_json.out"),
    ("tcp_t5_bidir.out", "tcp_t5_bidir_json.out"),
    ("tcp_interrupted_sigint.out", "tcp_interrupted_sigint_json.out"),
    ("udp_b50M_l1400.out", "udp_b50M_l1400_json.out"),
    ("udp_b2G_l8000_loss.out", "udp_b2G_l8000_loss_json.out"),
    ("err_conn_refused.out", "err_conn_refused_json.out"),
    ("err_server_busy.out", "err_server_busy_json.out"),
]


@pytest.mark.parametrize(("text_name", "json_name"), TWINS)
def test_same_shape_as_the_text_parser(text_name: str, json_name: str) -> None:
    text_records, text_summary = feed_all(
        Iperf3TextParser(), fixture_text(TOOL, text_name).split("\n")
    )
    json_records, json_summary = parse(json_name)
    text_series, json_series = series_of(text_records), series_of(json_records)
    assert {k: len(v) for k, v in json_series.items()} == {
        k: len(v) for k, v in text_series.items()
    }
    assert [(r.stream, r.metrics) for r in json_records] == [
        (r.stream, r.metrics) for r in text_records
    ]
    assert set(json_summary.values) == set(text_summary.values)
    assert json_summary.complete == text_summary.complete
    assert json_summary.error == text_summary.error


# --------------------------------------------------------------------------- --json-stream


@pytest.mark.parametrize("name", JSON_FIXTURES)
@pytest.mark.parametrize("compact", [True, False])
def test_json_stream_gives_what_the_document_gives(name: str, compact: bool) -> None:
    expected = parse(name)
    lines = to_json_stream(document(name), compact=compact)
    assert feed_json(lines) == expected


@pytest.mark.parametrize("name", JSON_FIXTURES)
def test_json_stream_records_come_per_interval_event(name: str) -> None:
    doc = document(name)
    lines = to_json_stream(doc)
    parser = Iperf3JsonParser()
    per_line = [parser.feed(line) for line in lines]
    # start: nothing; each interval event: its own records at once (live); the rest: nothing.
    assert per_line[0] == []
    intervals = per_line[1 : 1 + len(doc["intervals"])]
    assert all(intervals)
    assert all(not records for records in per_line[1 + len(doc["intervals"]) :])
    for records, interval in zip(intervals, doc["intervals"], strict=True):
        ends = {e["end"] for e in interval["streams"]}
        assert {r.t for r in records} <= ends | {interval["sum"]["end"]}
    assert [r for records in intervals for r in records] == parse(name)[0]


def test_json_stream_error_event() -> None:
    lines = [
        '{"event":"error","data":"unable to connect to server: Connection refused"}',
        '{"event":"end","data":{}}',
    ]
    assert feed_json(lines) == (
        [],
        Summary({}, complete=False, error="unable to connect to server: Connection refused"),
    )


def test_json_stream_unknown_events_are_ignored() -> None:
    lines = [
        '{"event":"server_output_text","data":"Accepted connection from ..."}',
        '{"event":"something new","data":[1,2,3]}',
        '{"event":"end","data":{"sum_received":{"bits_per_second":5}}}',
    ]
    assert feed_json(lines) == ([], Summary({"throughput_bps": 5.0}))


def test_json_stream_new_start_event_begins_a_new_test() -> None:
    doc = document("tcp_t5_json.out")
    first = to_json_stream(document("tcp_interrupted_sigint_json.out"))
    records, summary = feed_json([*first, *to_json_stream(doc)])
    assert summary == parse("tcp_t5_json.out")[1]  # the last test's summary
    assert len(records) == 8 + 10  # every test's records (times restart with each test)


@pytest.mark.parametrize(
    "line",
    [
        '{"event":"interval","data":{"streams":[{"socket":5}]}}',
        '{"event":"interval","data":{"streams":[{"socket":"5","start":0,"end":1,'
        '"bits_per_second":1}]}}',
        '{"event":"interval","data":{"streams":[{"socket":5,"start":0,"end":1,'
        '"bits_per_second":"fast"}]}}',
        '{"event":"interval","data":{"streams":{}}}',
        '{"event":"interval","data":[]}',
        '{"event":"interval","data":{"streams":[{"socket":5,"start":0,"end":1,'
        '"bits_per_second":1e999999999}]}}',
        '{"event":"interval","data":{"streams":[{"socket":5,"start":0,"end":1,'
        '"bits_per_second":' + "9" * 400 + "}]}}",
        '{"event":"error","data":{"x":1}}',
        '{"event":"end","data":{"sum_received":[]}}',
        '{"event":"end","data":{"sum_sent":{"bits_per_second":"x"}}}',
        '{"event":"start","data":[1]}',
        '{"event":"interval","data":{"streams":[]}} trailing',
        '{"event":"interval","data":{"streams":[',
        '{"event"',
        '{"event":' + "[" * 100_000,
    ],
)
def test_malformed_events_raise_parse_error(line: str) -> None:
    parser = Iperf3JsonParser()
    with pytest.raises(ParseError) as info:
        parser.feed(line)
    assert len(str(info.value)) < 500
    # The parser goes on afterwards.
    good = to_json_stream(document("tcp_t5_json.out"))
    assert feed_all(parser, good) == parse("tcp_t5_json.out")


# --------------------------------------------------------------------------- -J details


def test_null_figure_skips_the_entry() -> None:
    doc = document("tcp_t5_json.out")
    broken = copy.deepcopy(doc)
    broken["intervals"][1]["streams"][0]["snd_cwnd"] = None  # cJSON prints NaN as null
    records, _ = feed_json(json.dumps(broken, indent="\t").split("\n"))
    assert [r.t for r in records if r.stream == "5"] == [1.0009, 3.000756, 4.000057, 5.001326]


def test_compact_document_on_one_line() -> None:
    doc = document("tcp_t5_P2_json.out")
    assert feed_json(["warning: x", json.dumps(doc), ""]) == parse("tcp_t5_P2_json.out")


def test_several_documents_server_style() -> None:
    # A server prints one document per test; the summary is about the last one.
    text = fixture_text(TOOL, "tcp_t5_bidir_json.out") + fixture_text(TOOL, "tcp_t5_json.out")
    records, summary = parse_json_output(text)
    assert summary == parse("tcp_t5_json.out")[1]
    assert records == parse("tcp_t5_bidir_json.out")[0] + parse("tcp_t5_json.out")[0]
    # An error of the first test does not stick to the second.
    text = fixture_text(TOOL, "err_server_busy_json.out") + fixture_text(TOOL, "tcp_t5_json.out")
    assert parse_json_output(text)[1].error is None


def test_braces_and_quotes_inside_strings() -> None:
    doc = document("tcp_t5_json.out")
    doc["start"]["system_info"] = 'Linux {{{ "quoted \\" }}} \\\\'
    doc["start"]["cookie"] = "}"
    doc["start"]["extra"] = ["{", "}}", '"{'] * 3
    text = json.dumps(doc, indent="\t")
    assert sum(line.count("{") for line in text.split("\n")) != sum(
        line.count("}") for line in text.split("\n")
    )  # the raw braces do not balance: only counting outside strings finds the end
    assert parse_json_output(text + "\ntrailing chatter\n") == parse("tcp_t5_json.out")


def test_omitted_zero_length_and_repeated_intervals_are_skipped() -> None:
    doc = document("tcp_t5_P2_json.out")
    intervals = doc["intervals"]
    omitted = copy.deepcopy(intervals[:2])
    for interval in omitted:
        for entry in [*interval["streams"], interval["sum"]]:
            entry["omitted"] = True
    zero = copy.deepcopy(intervals[-1])  # a trailing "5.00-5.00" interval, as on a server
    for entry in [*zero["streams"], zero["sum"]]:
        entry["start"], entry["end"] = 5.001887, 5.003999
    repeated = copy.deepcopy(intervals[-1])
    doc["intervals"] = [*omitted, *intervals, zero, repeated]
    parser = Iperf3JsonParser()
    records, summary = feed_all(parser, json.dumps(doc, indent="\t").split("\n"))
    assert parser.omitted_intervals == 2
    assert (records, summary) == parse("tcp_t5_P2_json.out")


def test_zero_length_rule_matches_the_texts_rounding() -> None:
    def one(start: float, end: float) -> list[Record]:
        entry = {"socket": 5, "start": start, "end": end, "bits_per_second": 1.0}
        line = json.dumps({"event": "interval", "data": {"streams": [entry]}})
        return Iperf3JsonParser().feed(line)

    assert one(5.0, 5.004) == []  # "5.00-5.00"
    assert one(4.996, 5.004) == []  # "5.00-5.00" too
    assert len(one(4.994, 5.004)) == 2  # "4.99-5.00": a record and its "sum" copy
    assert len(one(5.004, 5.006)) == 2  # "5.00-5.01"


def test_reverse_client_receives_and_bidir_p2_aggregates() -> None:
    def entry(sock: int, sender: bool, **extra: float) -> Doc:
        base = {"socket": sock, "start": 0, "end": 1.001, "bits_per_second": 1.0e9}
        return {**base, **extra, "omitted": False, "sender": sender}

    interval = {
        "streams": [
            entry(5, True, retransmits=1, snd_cwnd=1000),
            entry(7, True, retransmits=2, snd_cwnd=2000),
            entry(9, False),
            entry(11, False),
        ],
        "sum": entry(0, True, retransmits=3, bits_per_second=2e9),
        "sum_bidir_reverse": entry(0, False, bits_per_second=3e9),
    }
    [line] = to_json_stream({"start": {}, "intervals": [interval], "end": {}})[1:2]
    records = Iperf3JsonParser().feed(line)
    assert [(r.stream, r.metrics, r.values) for r in records] == [
        ("5", m.TCP_SEND, (1e9, 1.0, 1000.0)),
        ("7", m.TCP_SEND, (1e9, 2.0, 2000.0)),
        ("sum", m.TCP_SUM_SEND, (2e9, 3.0)),
        ("9", m.TCP_RECV, (1e9,)),
        ("11", m.TCP_RECV, (1e9,)),
        ("sum-reverse", m.TCP_RECV, (3e9,)),
    ]


def test_server_sending_uses_its_own_figure() -> None:
    # A server whose client used -R: the server sends; a receiver figure of 0 is "not known".
    end = {
        "sum_sent": {"bits_per_second": 9e9, "retransmits": 4},
        "sum_received": {"bits_per_second": 0},
    }
    doc = {"start": {"accepted_connection": {}}, "intervals": [], "end": end}
    summary = parse_json_output(json.dumps(doc))[1]
    assert summary == Summary(
        {"throughput_bps": 9e9, "sender_throughput_bps": 9e9, "retransmits": 4}
    )


def test_client_terminated_on_server_distrusts_the_figures() -> None:
    doc = udp_server_document()
    doc["error"] = "the client has terminated"
    summary = parse_json_output(json.dumps(doc))[1]
    assert summary.complete is False
    assert summary.error == "the client has terminated"
    assert summary.values["throughput_bps"] == pytest.approx(1.7e9)
    assert summary.values["lost_packets"] == 3407 + 3100
    assert summary.values["packets"] == 2 * 31230
    assert summary.values["jitter_ms"] == 0.02


def test_document_size_is_bounded() -> None:
    text = fixture_text(TOOL, "tcp_t5_json.out")
    parser = Iperf3JsonParser(max_document_chars=len(text) // 2)
    with pytest.raises(ParseError, match="exceeds"):
        for line in text.split("\n"):
            parser.feed(line)
    # Lines without braces are counted too (every 1024 lines).
    parser = Iperf3JsonParser(max_document_chars=100_000)
    parser.feed("{")
    with pytest.raises(ParseError, match="exceeds"):
        for _ in range(10_000):
            parser.feed('"x": 12345678901234567890,')
    # After the error the parser reads the next document.
    assert feed_all(parser, text.split("\n")) == parse("tcp_t5_json.out")
    # A single line over the bound.
    with pytest.raises(ParseError, match="exceeds"):
        Iperf3JsonParser(max_document_chars=1000).feed("{" + " " * 1000 + "}")


def test_output_ending_inside_a_document() -> None:
    lines = fixture_text(TOOL, "tcp_t5_json.out").split("\n")
    parser = Iperf3JsonParser()
    assert [r for line in lines[:100] for r in parser.feed(line)] == []
    with pytest.raises(ParseError, match="ended inside the document that began at line 1"):
        parser.close()


def test_invalid_document_raises_and_forgets_it() -> None:
    text = fixture_text(TOOL, "tcp_t5_json.out")
    bad = text.replace('"bits_per_second":\t16380791130.329407', '"bits_per_second":\t"x"')
    assert bad != text
    parser = Iperf3JsonParser()
    with pytest.raises(ParseError, match="a number was expected"):
        for line in bad.split("\n"):
            parser.feed(line)
    assert parser.close() == Summary({}, complete=False, form="json")
    with pytest.raises(ParseError, match="invalid JSON document"):
        feed_json(["{", '  "start": ,', "}"])


@pytest.mark.parametrize(
    "line",
    [
        "",
        "\r",
        "iperf Done.",
        "warning: UDP block size 8000 exceeds TCP MSS 1448, may result in fragmentation / drops",
        "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  1698    458 KBytes       ",
        "}",
        "]",
        "x" * 100_000,
        "\x00\x01\x02\xff\ufffd",
    ],
)
def test_chatter_is_ignored(line: str) -> None:
    assert feed_json([line]) == ([], Summary({}, complete=False))


def test_trailing_cr_and_lf_are_tolerated() -> None:
    lines = fixture_text(TOOL, "tcp_t5_bidir_json.out").split("\n")
    expected = parse("tcp_t5_bidir_json.out")
    assert feed_json([line + "\r" for line in lines]) == expected
    assert feed_json([line + "\r\n" for line in lines]) == expected


# --------------------------------------------------------------------------- truncation


def check_truncated(name: str, cut: int) -> None:
    data = fixture_path(TOOL, name).read_bytes()
    full_records, full_summary = parse(name)
    lines, rest = split_lines(data[:cut])
    parser = Iperf3JsonParser()
    records: list[Record] = []
    for line in lines:
        records += feed_or_parse_error(parser, line)
    # A -J document gives all its records at its last line, or none.
    assert records in ([], full_records)
    if rest is not None:
        records += feed_or_parse_error(parser, rest)
    summary = close_or_parse_error(parser)
    if records == full_records and summary is not None and cut == len(data):
        assert summary == full_summary


@pytest.mark.parametrize("name", JSON_FIXTURES)
def test_truncated_at_every_line_end(name: str) -> None:
    data = fixture_path(TOOL, name).read_bytes()
    for cut in [0] + [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]:
        check_truncated(name, cut)


@FUZZ
@given(st.sampled_from(JSON_FIXTURES), st.floats(min_value=0.0, max_value=1.0))
def test_fuzz_truncated_json_stream(name: str, where: float) -> None:
    data = "\n".join(to_json_stream(document(name))).encode()
    full_records = parse(name)[0]
    lines, rest = split_lines(data[: int(len(data) * where)])
    parser = Iperf3JsonParser()
    records = [r for line in lines for r in parser.feed(line)]  # complete events: no error
    assert records == full_records[: len(records)]
    if rest is not None:
        feed_or_parse_error(parser, rest)  # a cut event line: ParseError or nothing
    summary = close_or_parse_error(parser)
    # A cut event opens no document, unless it is cut to a lone "{" (how -J begins one).
    assert summary is not None or rest == "{"


# --------------------------------------------------------------------------- fuzzing


@FUZZ
@given(st.lists(st.text(max_size=300), max_size=30))
def test_fuzz_arbitrary_text_inside_a_document(lines: list[str]) -> None:
    # Arbitrary text on its own: the parser contract's (test_parser_contract.py).
    feed_garbage(Iperf3JsonParser, ["{", *lines])


@FUZZ
@given(st.lists(st.binary(max_size=300), max_size=30))
def test_fuzz_binary_inside_a_document(blobs: list[bytes]) -> None:
    # Random bytes on their own: the parser contract's (test_parser_contract.py).
    for lines in (
        [blob.decode("utf-8", "surrogateescape") for blob in blobs],
        [blob.decode("latin-1") for blob in blobs],
    ):
        feed_garbage(Iperf3JsonParser, ["{", *lines, "}"])


_SOUP = st.text(alphabet='{}[]"\\:, \t1x', max_size=80)


@FUZZ
@given(st.lists(_SOUP, max_size=40))
def test_fuzz_brace_soup(lines: list[str]) -> None:
    feed_garbage(Iperf3JsonParser, lines)
    feed_garbage(Iperf3JsonParser, ["{", *lines])
    feed_garbage(Iperf3JsonParser, ['{"event":' + line for line in lines])


@FUZZ
@given(st.lists(st.tuples(_SOUP, st.booleans()), max_size=30))
def test_fuzz_unterminated_strings_with_braces(parts: list[tuple[str, bool]]) -> None:
    # Lines with an odd number of quotes (an unterminated string) holding braces: the braces
    # after the open quote do not count; the document then fails to decode or never ends.
    lines = ["{"] + [f'"k": "{text}{{' if odd else f'"k": "{text}",' for text, odd in parts]
    feed_garbage(Iperf3JsonParser, [*lines, "}"])
    feed_garbage(Iperf3JsonParser, lines)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def _paths(obj: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every path (keys and indexes) inside a decoded JSON value."""
    out = [prefix]
    if isinstance(obj, dict):
        for key, value in obj.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            out += _paths(value, (*prefix, i))
    return out


def _replace(obj: Any, path: tuple[object, ...], value: object) -> Any:
    if not path:
        return value
    target = obj
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return obj


_DOCS = {name: document(name) for name in JSON_FIXTURES}
_SHORT = ["tcp_t5_json.out", "tcp_t5_bidir_json.out", "udp_b2G_l8000_loss_json.out"]


@FUZZ
@given(st.sampled_from(_SHORT), st.data())
def test_fuzz_mutated_documents(name: str, data: st.DataObject) -> None:
    # Any value anywhere replaced by any JSON value: records or ParseError, as -J and events.
    doc = copy.deepcopy(_DOCS[name])
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(doc)))
        doc = _replace(doc, path, data.draw(_JSON_VALUES))
    text = json.dumps(doc, indent="\t") if isinstance(doc, dict) else json.dumps(doc)
    feed_garbage(Iperf3JsonParser, text.split("\n"))
    if isinstance(doc, dict):
        events = [json.dumps({"event": k, "data": v}) for k, v in doc.items()]
        feed_garbage(Iperf3JsonParser, events)
        feed_garbage(Iperf3JsonParser, to_json_stream_loose(doc))


def to_json_stream_loose(doc: Doc) -> list[str]:
    intervals = doc.get("intervals")
    items = intervals if isinstance(intervals, list) else [intervals]
    return [json.dumps({"event": "interval", "data": item}) for item in items]


@FUZZ_SMALL
@given(st.sampled_from(_SHORT), st.lists(st.tuples(st.integers(0), st.text(max_size=3))))
def test_fuzz_character_edits(name: str, edits: list[tuple[int, str]]) -> None:
    text = list(fixture_text(TOOL, name))
    for where, replacement in edits:
        i = where % len(text)
        text[i : i + 1] = list(replacement)
    feed_garbage(Iperf3JsonParser, "".join(text).split("\n"))
    feed_garbage(Iperf3AutoParser, "".join(text).split("\n"))


def test_long_and_deep_lines_do_not_hang() -> None:
    nasty = [
        "{" * 200_000,
        "}" * 200_000,
        '"' * 200_000,
        '{"a": "' + "\\" * 200_001,
        "[" * 200_000,
        '{"event":"interval","data":' + "[" * 200_000 + "]" * 200_000 + "}",
        '{"event":"interval","data":' + '{"a":' * 50_000 + "1" + "}" * 50_000 + "}",
        "{" + ' "x": "{",' * 50_000,
    ]
    # Only records or ParseError here; the time they take is bench/parser_worst.py's.
    for line in nasty:
        feed_garbage(Iperf3JsonParser, [line])
        feed_garbage(Iperf3JsonParser, [line, "}"])
        feed_garbage(Iperf3JsonParser, ["{", line, "}"])
        feed_garbage(Iperf3AutoParser, [line])


def test_client_whose_server_was_stopped_first_stores_no_zero() -> None:
    """iperf3 3.12 -J whose server was stopped first (checked by hand on 2026-11-24: "error":
    "the server has terminated", end.sum_sent over the wrong span, end.sum_received all 0),
    as tcp_t5_json.out would end so."""
    doc = document("tcp_t5_json.out")
    doc["error"] = "the server has terminated"
    for key in ("sum_received", *(k for k in doc["end"] if k.startswith("sum_received"))):
        if key in doc["end"]:
            doc["end"][key].update(bytes=0, bits_per_second=0)
    _, summary = parse_json_output(json.dumps(doc, indent=2))
    assert summary.error == "the server has terminated"
    assert summary.complete is False
    assert m.SENDER_THROUGHPUT not in summary.values  # over the wrong span
    assert summary.values[m.RETRANSMITS] >= 0  # summed from the intervals
    assert summary.values[m.THROUGHPUT] > 0


def test_zero_received_without_any_message_is_not_stored() -> None:
    doc = document("tcp_t5_json.out")
    doc["end"]["sum_received"].update(bytes=0, bits_per_second=0)
    _, summary = parse_json_output(json.dumps(doc, indent=2))
    assert summary.complete is False
    assert summary.values[m.THROUGHPUT] > 0
    assert summary.values[m.SENDER_THROUGHPUT] == doc["end"]["sum_sent"]["bits_per_second"]


# --------------------------------------------------------------------------- auto parser


def direct_parser(name: str) -> Parser:
    return (
        Iperf3JsonParser() if "_json" in name and "json_stream" not in name else Iperf3TextParser()
    )


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_auto_parser_picks_the_right_parser(name: str) -> None:
    lines = fixture_text(TOOL, name).split("\n")
    auto = Iperf3AutoParser()
    got = feed_all(auto, lines)
    expected = feed_all(direct_parser(name), lines)
    assert got == expected
    assert auto.kind == ("json" if isinstance(direct_parser(name), Iperf3JsonParser) else "text")
    # Blank lines first change nothing.
    assert feed_all(Iperf3AutoParser(), ["", "  ", *lines]) == expected


@pytest.mark.parametrize("name", JSON_FIXTURES)
def test_auto_parser_reads_the_json_stream(name: str) -> None:
    lines = ["", *to_json_stream(document(name))]
    auto = Iperf3AutoParser()
    assert feed_all(auto, lines) == parse(name)
    assert auto.kind == "json"


def test_auto_parser_holds_lines_until_one_tells() -> None:
    auto = Iperf3AutoParser()
    assert auto.kind is None
    assert auto.feed("warning: UDP block size 8000 exceeds TCP MSS 1448") == []
    assert auto.feed("iperf3: error - something") == []
    assert auto.kind is None and auto.parser is None
    assert auto.feed("iperf Done.") == []
    assert auto.kind == "text"
    assert isinstance(auto.parser, Iperf3TextParser)
    # The held-back line reached the text parser.
    assert auto.close() == Summary({}, complete=False, error="something", form="text")
    # Held lines before a JSON document go to the JSON parser.
    auto = Iperf3AutoParser()
    lines = ["", "iperf3: error - x", *fixture_text(TOOL, "err_conn_refused_json.out").split("\n")]
    assert feed_all(auto, lines) == ([], Summary({}, complete=False, error="x"))
    assert auto.kind == "json"


def test_auto_parser_gives_up_waiting() -> None:
    auto = Iperf3AutoParser()
    for _ in range(1001):
        auto.feed("some chatter")
    assert auto.kind == "text"


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("{", "json"),
        ('{"event":"start","data":{}}', "json"),
        ("  {", "json"),
        ("[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec", "text"),
        ("Connecting to host 10.0.0.1, port 5201", "text"),
        ("Server listening on 5201 (test #1)", "text"),
        ("-----------------------------------------------------------", "text"),
        ("", None),
        ("warning: UDP block size 8000 exceeds TCP MSS 1448", None),
        ("iperf3: error - unable to connect to server: Connection refused", None),
        ("iperf3: unrecognized option '--json-stream'", None),
    ],
)
def test_output_kind(line: str, kind: str | None) -> None:
    assert output_kind(line) == kind


# --------------------------------------------------------------------------- long runs


def long_document(intervals: int, streams: int) -> str:
    """A made-up -J document in iperf3's layout (tabs), ``streams`` TCP senders."""
    rng = random.Random(streams)
    out = []
    for k in range(intervals):
        entries = [
            {"socket": 5 + 2 * i, "start": k + 1e-4 * i, "end": k + 1 + 1e-4 * i,
             "seconds": 1.0, "bytes": rng.randint(1, 1 << 30),
             "bits_per_second": rng.uniform(1e9, 1e10), "retransmits": rng.choice((0, 7, 1234)),
             "snd_cwnd": rng.randint(10_000, 3_000_000), "snd_wnd": 123456, "rtt": 100,
             "rttvar": 10, "pmtu": 1500, "omitted": False, "sender": True}
            for i in range(streams)
        ]  # fmt: skip
        total = {"start": k, "end": k + 1.0, "seconds": 1.0, "bytes": 1,
                 "bits_per_second": rng.uniform(1e9, 1e10), "retransmits": 3,
                 "omitted": False, "sender": True}  # fmt: skip
        out.append({"streams": entries, "sum": total})
    doc = {
        "start": {"connected": [], "version": "iperf 3.12"},
        "intervals": out,
        "end": {"sum_sent": {"bits_per_second": 1.0, "retransmits": 1},
                "sum_received": {"bits_per_second": 2.0}},
    }  # fmt: skip
    return json.dumps(doc, indent="\t", separators=(",", ":\t"))


@pytest.mark.parametrize("streams", [1, 4])
def test_long_synthetic_runs(streams: int) -> None:
    text = long_document(2000, streams)
    records, summary = parse_json_output(text)
    per_interval = streams + 1
    assert len(records) == 2000 * per_interval
    assert summary == Summary({"throughput_bps": 2.0, "sender_throughput_bps": 1.0,
                               "retransmits": 1})  # fmt: skip
    doc = json.loads(text)
    assert feed_json(to_json_stream(doc)) == (records, summary)
    assert [r.t for r in records if r.stream == "sum"] == [float(k + 1) for k in range(2000)]
    assert all(a < b for a, b in itertools.pairwise(r.t for r in records if r.stream == "5"))
