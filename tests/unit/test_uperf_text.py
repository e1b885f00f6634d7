"""Tests of the uperf 1.0.8 output parser against the real captures in tests/data/fixtures."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairbench.domain import Record, Summary
from pairbench.tools.base import ParseError, Parser
from pairbench.tools.uperf import parser as uperf_parser
from pairbench.tools.uperf import resolve
from pairbench.tools.uperf_text import UperfTextParser, parse_text_output
from parser_checks import (
    assert_records_well_formed,
    feed_all,
    feed_garbage,
    fixture_names,
    fixture_path,
    series_of,
)
from uperf_final_lines import HEADLINE, assert_figures_are_uperfs

OUT_FIXTURES = fixture_names("uperf", "*.out")
KB = 1024.0
MB = 1024.0**2
GB = 1024.0**3

FUZZ = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

METRIC_KINDS = {
    ("throughput_bps", "ops_per_s"),
    ("throughput_bps", "ops_per_s", "latency_avg_us"),
}


# --------------------------------------------------------------------------- helpers


def fixture_text(tool: str, name: str) -> str:
    """A fixture's exact text, "\r"s included (``Path.read_text`` would turn them into "\n")."""
    text: str = fixture_path(tool, name).read_bytes().decode("utf-8", "replace")
    return text


def kwargs_for(name: str) -> dict[str, int | bool]:
    """What the adapter would tell the parser for the profile a fixture ran (see its .cmd)."""
    return {
        "ops_per_iteration": 10 if name.startswith("iperf") else 2,  # count=10 / write+read
        "udp": "_udp_" in name,
    }


def make_parser_for(name: str) -> UperfTextParser:
    return UperfTextParser(**kwargs_for(name))  # type: ignore[arg-type]


def parse(name: str) -> tuple[list[Record], Summary]:
    records, summary = parse_text_output(fixture_text("uperf", name), **kwargs_for(name))  # type: ignore[arg-type]
    assert_records_well_formed(records)
    for r in records:
        assert r.metrics in METRIC_KINDS
    return records, summary


def values(records: Iterable[Record], stream: str, metric: str) -> list[float]:
    return [v for (t, v) in series_of(records).get((stream, metric), [])]


def times(records: Iterable[Record], stream: str, metric: str = "throughput_bps") -> list[float]:
    return [t for (t, v) in series_of(records).get((stream, metric), [])]


def progress_pieces(name: str, prefix: str = "Txn2") -> list[str]:
    """The progress pieces of one transaction, as printed (split on \\r and \\n)."""
    text = fixture_text("uperf", name)
    return [p for p in re.split(r"[\r\n]", text) if p.startswith(prefix) and "(s)" in p]


# --------------------------------------------------------------------------- the fixture set


def test_every_fixture_has_a_golden_test() -> None:
    assert set(OUT_FIXTURES) == set(GOLDEN) | set(ERRORS) | set(NO_DATA)


# Per fixture: intervals of the main transaction ("sum" == "txn2") and the exact summary.
GOLDEN: dict[str, tuple[int, dict[str, float]]] = {
    "netperf_tcp_aep.out": (
        10,
        {
            "throughput_bps": 79.81e6,  # "Txn2      97.14MB /  10.21(s) =    79.81Mb/s ..."
            "ops_per_s": 110841.0,
            "latency_avg_us": 17.65,  # "Txn1  565860  17.65us ..." (0-based table row)
            "write_avg_us": 8.87,
            "read_avg_us": 8.70,
            "total_throughput_bps": 66.17e6,
        },
    ),
    "netperf_tcp_aep_i1.out": (
        10,
        {
            "throughput_bps": 26.32e6,
            "ops_per_s": 36557.0,
            "latency_avg_us": 53.59,
            "write_avg_us": 13.27,
            "read_avg_us": 40.23,
            "total_throughput_bps": 21.83e6,
        },
    ),
    "netperf_udp_aep.out": (
        10,
        {
            "throughput_bps": 66.11e6,
            "ops_per_s": 91825.0,
            "latency_avg_us": 21.31,
            "write_avg_us": 8.66,
            "read_avg_us": 12.55,
            "total_throughput_bps": 54.82e6,
            "lost_percent": 0.0,  # "Difference(%) -0.00% -0.00% ..."
        },
    ),
    "netperf_tcp_a_raw.out": (
        10,
        {
            # -R: from the first and last raw lines of Txn2 (checked by hand below).
            "throughput_bps": 8 * 58549590 / (1795299870871.6938 - 1795299860661.0103) * 1e3,
            "ops_per_s": 650551 / (1795299870871.6938 - 1795299860661.0103) * 1e3,
            "latency_avg_us": 30.74,
            "write_avg_us": 10.00,
            "read_avg_us": 20.66,
            "total_throughput_bps": 38.04e6,  # Run Statistics master row (raw Total has no time)
        },
    ),
    "netperf_iter500_X.out": (
        1,
        {
            "throughput_bps": 719.10e3,
            "ops_per_s": 999.0,
            "latency_avg_us": 15.01,
            "write_avg_us": 7.75,
            "read_avg_us": 7.12,
            "total_throughput_bps": 231.80e3,
        },
    ),
    "iperf_tcp_nthr1_aep.out": (
        10,
        {
            "throughput_bps": 9.94e9,
            "ops_per_s": 151669.0,
            "latency_avg_us": 64.60,
            "write_avg_us": 6.45,
            "total_throughput_bps": 8.24e9,
        },
    ),
    "iperf_tcp_nthr1_default.out": (
        10,
        {
            "throughput_bps": 9.77e9,
            "ops_per_s": 149007.0,
            # No Txn table without -t/-a: threads * duration * count / ops, from the pieces
            # "Txn2 0 / 0.00(s)" and "Txn2 11.61GB / 10.21(s) = 9.77Gb/s 149007op/s".
            "latency_avg_us": 1 * 10.21 * 10 / (149007 * 10.21) * 1e6,
            "total_throughput_bps": 8.16e9,
        },
    ),
    "iperf_tcp_nthr2_a_raw.out": (
        10,
        {
            "throughput_bps": 8
            * (19684474867 - 1310720)
            / (1795299913960.2644 - 1795299903749.7168)
            * 1e3,
            "ops_per_s": (2402903 - 160) / (1795299913960.2644 - 1795299903749.7168) * 1e3,
            "latency_avg_us": 83.22,
            "write_avg_us": 8.32,
            "total_throughput_bps": 12.89e9,
        },
    ),
    "iperf_tcp_nthr2_aep_i1.out": (
        10,
        {
            "throughput_bps": 15.79e9,
            "ops_per_s": 240929.0,
            "latency_avg_us": 81.34,
            "write_avg_us": 8.13,
            "total_throughput_bps": 13.20e9,
        },
    ),
    "iperf_udp_nthr1_aep.out": (
        10,
        {
            "throughput_bps": 3.71e9,
            "ops_per_s": 56630.0,
            "latency_avg_us": 173.08,
            "write_avg_us": 17.30,
            "total_throughput_bps": 3.08e9,
            "lost_percent": 8.79,  # "Difference(%) -0.00% 8.79% ..."
        },
    ),
}

ERRORS: dict[str, str] = {
    "err_env_unset.out": "Error 1: Env variable remotehost = $h not set; Error parsing netperf.xml",
    "err_env_uppercase_names.out": (
        "Error 1: Env variable remotehost = $h not set; "
        "Error 2: Env variable protocol = $proto not set; Error parsing netperf-upper.xml"
    ),
    "err_no_slave.out": (
        "Error connecting to 10.200.0.1; TCP: Cannot connect to 10.200.0.1:20999 Connection refused"
    ),
    "err_unknown_option.out": "uperf: invalid option -- 'x'",  # uperf exited 0 here
    # The slave's own log (not what Pairbench parses, but it must not crash the parser).
    "slave_session.out": "Error during reading command: connection closed; Error in get command",
}

NO_DATA = {"iperf_tcp_nthr1_nostats.out", "version.out"}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden(name: str) -> None:
    records, summary = parse(name)
    n, expected = GOLDEN[name]
    ser = series_of(records)
    for metric in ("throughput_bps", "ops_per_s", "latency_avg_us"):
        assert len(ser[("sum", metric)]) == n
        assert ser[("sum", metric)] == ser[("txn2", metric)]
    assert set(s for s, _ in ser) <= {"sum", "txn1", "txn2", "txn3"}
    assert summary.complete is True
    assert summary.error is None
    assert {k for k in summary.values if k in HEADLINE} == expected.keys() & HEADLINE
    for key, value in expected.items():
        # Raw timestamps have 17 digits: a double keeps ~16, hence 1e-9 rather than 1e-12.
        assert summary.values[key] == pytest.approx(value, rel=1e-9), key
    # Every other figure is one of uperf's final lines, and every one of those is stored.
    assert_figures_are_uperfs(summary.values, fixture_text("uperf", name))


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_fixtures(name: str) -> None:
    records, summary = parse(name)
    assert records == []
    assert summary.error == ERRORS[name]
    assert summary.values == {}
    assert summary.complete is False


def test_no_statistics_run_gives_nothing() -> None:
    # -n: only "Starting 1 threads ..." and warnings. Not an error, but no summary either:
    # the form says so (incomplete, with the reason).
    records, summary = parse("iperf_tcp_nthr1_nostats.out")
    assert records == []
    assert summary == Summary(
        values={},
        complete=False,
        error=None,
        form="text -n",
        reason="uperf -n prints no statistics: no intervals and no totals",
    )


def test_version_output_is_not_a_run() -> None:
    records, summary = parse("version.out")
    assert records == [] and summary == Summary(values={}, complete=False, error=None)


def test_history_file_is_ignored() -> None:
    # The -X response-time history (pid tid type end_ns latency_ns) is another file; fed to
    # the parser by mistake it gives nothing and no error.
    records, summary = parse_text_output(fixture_text("uperf", "netperf_iter500_X.history.txt"))
    assert records == []
    assert summary == Summary(values={}, complete=False, error=None)


# --------------------------------------------------------------------------- by hand: raw


def test_raw_netperf_intervals_by_hand() -> None:
    records, _ = parse("netperf_tcp_a_raw.out")
    t0 = 1795299859659.6860  # the first raw line (Txn1's) is the run's time zero
    # timestamp_ms:1795299860661.0103 name:Txn2 nr_bytes:0 nr_ops:0
    # timestamp_ms:1795299861662.0615 name:Txn2 nr_bytes:4340610 nr_ops:48229
    dt = (1795299861662.0615 - 1795299860661.0103) / 1e3
    first = records[[r.stream for r in records].index("sum")]
    assert first.t == pytest.approx((1795299861662.0615 - t0) / 1e3, rel=1e-12)
    assert first.metrics == ("throughput_bps", "ops_per_s", "latency_avg_us")
    thr, ops, lat = first.values
    assert thr == pytest.approx(8 * 4340610 / dt, rel=1e-12)
    assert ops == pytest.approx(48229 / dt, rel=1e-12)
    # One thread, one write + one read per iteration: 48229 ops = 24114.5 round trips.
    assert lat == pytest.approx(1 * dt * 2 / 48229 * 1e6, rel=1e-12)
    assert lat == pytest.approx(41.51, abs=0.01)
    # The last interval is 1.2 s long (uperf's end of the duration):
    # ...869670.4917 nr_bytes:52058610 nr_ops:578429 -> ...870871.6938 58549590 650551
    thr_last = values(records, "sum", "throughput_bps")[-1]
    assert thr_last == pytest.approx(
        8 * (58549590 - 52058610) / ((1795299870871.6938 - 1795299869670.4917) / 1e3), rel=1e-12
    )
    # Txn1 (connect): 0 bytes, 1 op in its 1 s (mostly the start barrier). Txn3: 4 µs, 0 ops.
    assert values(records, "txn1", "ops_per_s") == [
        pytest.approx(1 / ((1795299860660.8452 - 1795299859659.6860) / 1e3), rel=1e-12)
    ]
    assert values(records, "txn3", "ops_per_s") == [0.0]
    assert times(records, "txn3") == [pytest.approx((1795299870871.8242 - t0) / 1e3)]


def test_raw_two_threads_latency_by_hand() -> None:
    records, _ = parse("iperf_tcp_nthr2_a_raw.out")
    # ...904750.0757 nr_bytes:1892188160 nr_ops:230980 -> ...905750.2751 4241408000 517750
    dt = (1795299905750.2751 - 1795299904750.0757) / 1e3
    dops = 517750 - 230980
    thr, ops, lat = next(
        r.values for i, r in enumerate(r for r in records if r.stream == "sum") if i == 1
    )
    assert thr == pytest.approx(8 * (4241408000 - 1892188160) / dt, rel=1e-12)
    assert ops == pytest.approx(dops / dt, rel=1e-12)
    # "Starting 2 threads": each thread ran dops/(2*10) iterations of 10 writes in dt.
    assert lat == pytest.approx(2 * dt * 10 / dops * 1e6, rel=1e-12)
    # The first Txn2 line (1310720 bytes, 160 ops after 0.7 ms) is only a baseline.
    assert values(records, "sum", "throughput_bps")[0] == pytest.approx(
        8 * (1892188160 - 1310720) / ((1795299904750.0757 - 1795299903749.7168) / 1e3), rel=1e-12
    )


def test_raw_summary_agrees_with_the_printed_tables() -> None:
    for name, per_iter, txn_count, run_data, first_ops, last_ops in (
        ("netperf_tcp_a_raw.out", 2, 325276, 55.84 * MB, 0, 650551),
        ("iperf_tcp_nthr2_a_raw.out", 10, 240291, 18.33 * GB, 160, 2402903),
    ):
        records, summary = parse(name)
        # The intervals add up to what the raw lines say, and to the Run Statistics' Data
        # (the main transaction carries all of the data) within its printed digits.
        ts = times(records, "sum")
        thr = values(records, "sum", "throughput_bps")
        ops = values(records, "sum", "ops_per_s")
        starts = [ts[0] - _first_interval(name), *ts[:-1]]
        nbytes = sum(v * (t - s) / 8 for v, t, s in zip(thr, ts, starts, strict=True))
        nops = sum(v * (t - s) for v, t, s in zip(ops, ts, starts, strict=True))
        assert nops == pytest.approx(last_ops - first_ops, rel=1e-9)
        span = ts[-1] - starts[0]
        assert summary.values["throughput_bps"] == pytest.approx(8 * nbytes / span, rel=1e-9)
        assert summary.values["ops_per_s"] == pytest.approx(nops / span, rel=1e-9)
        unit = MB if run_data < GB else GB
        assert abs(nbytes - run_data) <= 0.01 * unit  # "55.84MB", "18.33GB" (truncated digits)
        # The Txn table counts iterations: ops = count * ops per iteration, give or take the
        # iterations the threads had not finished.
        assert last_ops == pytest.approx(per_iter * txn_count, abs=per_iter * 2)


def _first_interval(name: str) -> float:
    """The length of the first interval of the main transaction (from the raw lines)."""
    return {
        "netperf_tcp_a_raw.out": (1795299861662.0615 - 1795299860661.0103) / 1e3,
        "iperf_tcp_nthr2_a_raw.out": (1795299904750.0757 - 1795299903749.7168) / 1e3,
    }[name]


# --------------------------------------------------------------------------- by hand: progress


def test_progress_intervals_by_hand() -> None:
    records, _ = parse("netperf_tcp_aep.out")
    # Txn1 "0 / 1.00(s)" ends at 1.00 s; then Txn2:
    # "Txn2       9.99MB /   1.00(s) =    83.70Mb/s      116247op/s "
    # "Txn2      20.33MB /   2.00(s) =    85.17Mb/s      118287op/s "
    assert times(records, "sum")[:3] == pytest.approx([2.0, 3.0, 4.0])
    thr = values(records, "sum", "throughput_bps")
    ops = values(records, "sum", "ops_per_s")
    lat = values(records, "sum", "latency_avg_us")
    assert thr[0] == pytest.approx(8 * 9.99 * MB / 1.0, rel=1e-12)
    assert thr[1] == pytest.approx(8 * (20.33 - 9.99) * MB / 1.0, rel=1e-12)
    assert ops[1] == pytest.approx(118287 * 2.00 - 116247 * 1.00, rel=1e-12)
    assert lat[1] == pytest.approx(1 * 1.0 * 2 / (118287 * 2.00 - 116247 * 1.00) * 1e6, rel=1e-12)
    # The last piece is 1.20 s after the one before: "86.93MB / 9.01(s)" -> "97.14MB / 10.21(s)"
    assert times(records, "sum")[-1] == pytest.approx(11.21)
    assert thr[-1] == pytest.approx(8 * (97.14 - 86.93) * MB / 1.20, rel=1e-9)
    assert values(records, "txn1", "ops_per_s") == [pytest.approx(1.0)]
    assert ("txn3", "throughput_bps") not in series_of(records)  # two 0.00(s) pieces only


def test_progress_truncated_unit() -> None:
    # "Txn2      417.03M /   1.00(s) =     3.49Gb/s       53318op/s " (the "B" fell off)
    records, _ = parse("iperf_udp_nthr1_aep.out")
    thr = values(records, "sum", "throughput_bps")
    assert thr[0] == pytest.approx(8 * 417.03 * MB, rel=1e-12)
    assert thr[1] == pytest.approx(8 * (868.28 - 417.03) * MB, rel=1e-12)
    assert thr[2] == pytest.approx(8 * (1.33 * GB - 868.28 * MB), rel=1e-12)


def test_progress_summary_agrees_with_its_own_bytes() -> None:
    # What users quote is the last piece's rate; it must agree with bytes / seconds printed
    # on the same piece, within those digits.
    for name in ("netperf_tcp_aep.out", "iperf_tcp_nthr1_aep.out", "iperf_udp_nthr1_aep.out"):
        _, summary = parse(name)
        last = progress_pieces(name)[-1]
        m = re.match(r"Txn2\s+([\d.]+)(MB|GB)\s+/\s+([\d.]+)\(s\)", last)
        assert m is not None
        nbytes = float(m.group(1)) * (MB if m.group(2) == "MB" else GB)
        assert summary.values["throughput_bps"] == pytest.approx(
            8 * nbytes / float(m.group(3)), rel=0.006
        )


def test_the_table_latency_is_close_to_the_interval_estimate() -> None:
    # threads * duration * ops_per_iteration / ops counts the time between iterations too,
    # so it is a little above uperf's own mean iteration time.
    for name in ("netperf_tcp_aep.out", "iperf_tcp_nthr2_aep_i1.out", "netperf_tcp_a_raw.out"):
        records, summary = parse(name)
        lat = values(records, "sum", "latency_avg_us")
        ops = values(records, "sum", "ops_per_s")
        ts = times(records, "sum")
        dts = [b - a for a, b in zip([ts[0] - 1.0, *ts[:-1]], ts, strict=True)]
        weighted = sum(v * o * d for v, o, d in zip(lat, ops, dts, strict=True)) / sum(
            o * d for o, d in zip(ops, dts, strict=True)
        )
        assert 1.0 <= weighted / summary.values["latency_avg_us"] < 1.15


def test_udp_loss_only_when_told_udp() -> None:
    text = fixture_text("uperf", "iperf_udp_nthr1_aep.out")
    _, tcp_view = parse_text_output(text, ops_per_iteration=10)
    assert "lost_percent" not in tcp_view.values
    _, udp_view = parse_text_output(text, ops_per_iteration=10, udp=True)
    assert udp_view.values["lost_percent"] == 8.79


def test_udp_loss_when_the_slave_counted_nothing() -> None:
    # uperf prints 0.00% when the slave's bytes are 0 (its ERR_PER macro): that is 100% lost.
    lines = [
        "Run Statistics",
        "Hostname            Time       Data   Throughput   Operations      Errors",
        "-" * 79,
        "10.200.0.1        12.32s          0     1.00b/s            0        0.00",
        "master            12.32s     4.41GB     3.08Gb/s       578403        0.00",
        "-" * 79,
        "Difference(%)     -0.00%      0.00%        0.00%        0.00%       0.00%",
    ]
    parser = UperfTextParser(udp=True)
    for line in lines:
        assert parser.feed(line) == []
    summary = parser.close()
    assert summary.values == {
        "total_throughput_bps": 3.08e9,
        "lost_percent": 100.0,
        # the Run Statistics rows as printed
        "master_time_s": 12.32,
        "master_bytes": 4.41 * GB,
        "master_throughput_bps": 3.08e9,
        "master_ops_count": 578403,
        "master_errors_percent": 0.0,
        "slave_time_s": 12.32,
        "slave_bytes": 0.0,
        "slave_throughput_bps": 1.0,
        "slave_ops_count": 0,
        "slave_errors_percent": 0.0,
    }


def test_without_ops_per_iteration_there_is_no_interval_latency() -> None:
    records, summary = parse_text_output(fixture_text("uperf", "netperf_tcp_a_raw.out"))
    assert all(r.metrics == ("throughput_bps", "ops_per_s") for r in records)
    assert summary.values["latency_avg_us"] == 30.74  # the table needs no help


def test_threads_come_from_the_output() -> None:
    # The parser was told 5 threads; uperf says "Starting 2 threads": 2 wins.
    text = fixture_text("uperf", "iperf_tcp_nthr2_a_raw.out")
    a, _ = parse_text_output(text, ops_per_iteration=10, threads=5)
    b, _ = parse_text_output(text, ops_per_iteration=10, threads=2)
    assert a == b


def test_the_adapter_parser_matches_the_fixture_profiles() -> None:
    # `pairbench parse uperf FILE` uses the default parameters: the latency profile.
    lat = uperf_parser(resolve({}), None)  # type: ignore[arg-type]
    assert isinstance(lat, UperfTextParser)
    records, _ = feed_all(lat, fixture_text("uperf", "netperf_tcp_a_raw.out").split("\n"))
    expected, _ = parse("netperf_tcp_a_raw.out")
    assert records == expected
    thr = uperf_parser(resolve({"profile": "throughput", "threads": "2"}), None)  # type: ignore[arg-type]
    records, _ = feed_all(thr, fixture_text("uperf", "iperf_tcp_nthr2_a_raw.out").split("\n"))
    expected, _ = parse("iperf_tcp_nthr2_a_raw.out")
    assert records == expected


# --------------------------------------------------------------------------- units and lines


@pytest.mark.parametrize(
    ("piece", "nbytes"),
    [
        ("Txn2       90.00B /   1.00(s) =   720.00b/s           1op/s ", 90.0),
        ("Txn2     1024.00B /   1.00(s) =     8.19Kb/s           1op/s ", 1024.0),
        ("Txn2      87.89KB /   1.00(s) =   719.10Kb/s         999op/s ", 87.89 * KB),
        ("Txn2      175.78K /   1.00(s) =     1.44Mb/s        1000op/s ", 175.78 * KB),
        ("Txn2      107.21M /   1.00(s) =   899.33Mb/s        1000op/s ", 107.21 * MB),
        ("Txn2      1.50GB /   1.00(s) =    12.89Gb/s      196637op/s ", 1.50 * GB),
        ("Txn2      2.00TB /   1.00(s) =    17.59Tb/s      196637op/s ", 2.0 * 1024**4),
        # "1000.00KB" cut to "1000.00": the unit comes from rate * time (8.19 Mb/s * 1 s).
        ("Txn2      1000.00 /   1.00(s) =     8.19Mb/s        1000op/s ", 1000.0 * KB),
        ("Txn2      1000.00 /   1.00(s) =     8.39Gb/s        1000op/s ", 1000.0 * MB),
    ],
)
def test_byte_strings(piece: str, nbytes: float) -> None:
    parser = UperfTextParser()
    assert parser.feed("Txn2            0 /   0.00(s) =            0           0op/s ") == []
    (rec, _) = parser.feed(piece)
    assert rec.values[0] == pytest.approx(8 * nbytes, rel=1e-12)


def test_table_time_units() -> None:
    parser = UperfTextParser()
    for line in (
        "Txn                Count         avg         cpu         max         min ",
        "-" * 79,
        "Txn0                   1      1.20s      0.00ns      1.20s      1.20s ",
        "Txn1              186646    761.00ns      0.00ns      5.75ms     13.59us ",
        "",
        "Flowop             Count         avg         cpu         max         min ",
        "write             186646      6.83ms      0.00ns      5.42ms      3.90us ",
        "read              186645     40.23us      0.00ns      3.81ms    741.00ns ",
        "read                   3      1.00s       0.00ns      3.81ms    741.00ns ",
    ):
        parser.feed(line)
    assert parser.close().values == {
        "latency_avg_us": 0.761,  # Txn1's avg: the timed transaction, Txn2 in progress lines
        # every row, by uperf's progress numbering (the table's Txn0 is txn1)
        "txn1_count": 1,
        "txn1_avg_us": 1.20e6,
        "txn1_max_us": 1.20e6,
        "txn1_min_us": 1.20e6,
        "txn2_count": 186646,
        "txn2_avg_us": 0.761,
        "txn2_max_us": 5.75e3,
        "txn2_min_us": 13.59,
        "write_count": 186646,
        "write_avg_us": 6830.0,
        "write_max_us": 5.42e3,
        "write_min_us": 3.90,
        "read_count": 186645,  # the first "read" row
        "read_avg_us": 40.23,
        "read_max_us": 3.81e3,
        "read_min_us": 0.741,
        "read2_count": 3,  # the second one
        "read2_avg_us": 1.00e6,
        "read2_max_us": 3.81e3,
        "read2_min_us": 0.741,
    }


@pytest.mark.parametrize(
    "line",
    [
        "timestamp_ms:1795299861662.0615 name:Txn2 nr_bytes:4340610",
        "timestamp_ms:1.2.3 name:Txn2 nr_bytes:1 nr_ops:1",
        "timestamp_ms: name:Txn2 nr_bytes:1 nr_ops:1",
        "timestamp_ms:1795299861662.0615 name:Txn2 nr_bytes:-1 nr_ops:1",
        "timestamp_ms:1795299861662.0615 name:Txn2 nr_bytes:1 nr_ops:1 extra",
        "timestamp_ms:" + "9" * 40 + " name:Txn2 nr_bytes:1 nr_ops:1",
        "Txn2      20.33MB /   2.00(s)",
        "Txn2      20.33XB /   2.00(s) =    85.17Mb/s      118287op/s ",
        "Txn2      20.33MB /   2.0.0(s) =    85.17Mb/s      118287op/s ",
        "Txn2      20.33MB /   2.00(s) =    85.17      118287op/s ",
        "Txn2  " + " " * 5000 + "x",
        "Total     97.14MB /  12.32(s) = ",
        "Difference(%)     -0.00%      0.00%",
        "Difference(%)     x%      0.00%        0.00%        0.00%       0.00%",
    ],
)
def test_malformed_lines_raise_parse_error(line: str) -> None:
    parser = UperfTextParser()
    with pytest.raises(ParseError):
        parser.feed(line)


def test_malformed_txn_table_row_raises() -> None:
    parser = UperfTextParser()
    parser.feed("Txn                Count         avg         cpu         max         min ")
    with pytest.raises(ParseError):
        parser.feed("Txn1              186646    761.00xs      0.00ns      5.75ms     13.59us ")


@pytest.mark.parametrize(
    "line",
    [
        "** Warning: Send buffer: 100.00KB (Requested:50.00KB)  ",
        "** 4 Warnings Send buffer: 1000.00KB (Requested:500.00KB)  ",
        "** [10.200.0.1] Warning: Send buffer: 100.00KB (Requested:50.00KB)  ",
        "** [10.200.0.1] 4 Warnings  Send buffer: 1000.00KB (Requested:500.00KB)  ",
        "Warning: Recv buffer: 100.00KB (Requested:50.00KB)  ",
        "4 Warnings  Recv buffer: 1000.00KB (Requested:500.00KB)  ",
        "Uperf Version 1.0.8",
        "Starting 1 threads running profile:netperf ...   0.00 seconds",
        "Nic       opkts/s     ipkts/s      obits/s      ibits/s",
        "v2          45949       45948    57.34Mb/s    57.34Mb/s ",
        " 21358 140463888705216  0 1795299963954187348          115151",
        "  ",
        "",
    ],
)
def test_chatter_is_ignored(line: str) -> None:
    parser = UperfTextParser()
    assert parser.feed(line) == []
    assert parser.close().error is None


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("WARNING: 3 Errors detected during run", "WARNING: 3 Errors detected during run"),
        ("WARNING: Errors detected during run", "WARNING: Errors detected during run"),
        ("*** Slave aborted! ***", "*** Slave aborted! ***"),
        ("** 3 Errors  Connection reset by peer", "3 Errors Connection reset by peer"),
        ("Usage:   uperf [-m profile] [-hvV]", "Usage: uperf [-m profile] [-hvV]"),
        ("$nthr is not set", "$nthr is not set"),
        ("Cannot stat file x.xml: No such file or directory", None),
    ],
)
def test_error_lines(line: str, error: str | None) -> None:
    parser = UperfTextParser()
    assert parser.feed(line) == []
    assert parser.close().error == (error or line)


def test_a_progress_line_with_no_op_count() -> None:
    # uperf leaves out "op/s" when the operation count is zero.
    parser = UperfTextParser()
    parser.feed("Txn2            0 /   0.00(s) =            0")
    (rec, _) = parser.feed("Txn2       1.00KB /   1.00(s) =     8.19Kb/s")
    assert rec.values[:2] == (8 * KB, 0.0)


def test_trailing_cr_and_lf_are_tolerated() -> None:
    line = "timestamp_ms:1000.0 name:Txn2 nr_bytes:0 nr_ops:0"
    nxt = "timestamp_ms:2000.0 name:Txn2 nr_bytes:1000 nr_ops:10"
    a = UperfTextParser()
    b = UperfTextParser()
    assert a.feed(line) + a.feed(nxt) == b.feed(line + "\r") + b.feed(nxt + "\r\n")
    assert len(b.feed(nxt.replace("2000", "3000").replace("1000", "2000") + "\n")) == 2


def test_counters_going_back_start_the_transaction_afresh() -> None:
    parser = UperfTextParser()
    lines = [
        "timestamp_ms:1000.0 name:Txn2 nr_bytes:0 nr_ops:0",
        "timestamp_ms:2000.0 name:Txn2 nr_bytes:1000 nr_ops:10",
        "timestamp_ms:3000.0 name:Txn2 nr_bytes:10 nr_ops:1",  # a new run: baseline
        "timestamp_ms:4000.0 name:Txn2 nr_bytes:1010 nr_ops:11",
        "timestamp_ms:4000.0 name:Txn2 nr_bytes:2000 nr_ops:20",  # zero length: nothing
    ]
    out = [r for line in lines for r in parser.feed(line) if r.stream == "sum"]
    assert [(r.t, r.values[0]) for r in out] == [(1.0, 8000.0), (3.0, 8000.0)]


def test_is_a_parser() -> None:
    parser: Parser = UperfTextParser()
    assert parser.feed("Run Statistics") == []
    assert parser.close() == Summary(values={}, complete=False, error=None)


def test_bad_construction() -> None:
    for kwargs in ({"threads": 0}, {"main_txn": 0}, {"ops_per_iteration": 0}):
        with pytest.raises(ValueError):
            UperfTextParser(**kwargs)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- invariants


@pytest.mark.parametrize("name", OUT_FIXTURES)
def test_every_series_strictly_increases(name: str) -> None:
    records, _ = parse(name)
    for key, points in series_of(records).items():
        ts = [t for t, _ in points]
        assert all(b > a for a, b in itertools.pairwise(ts)), key
        assert all(v >= 0.0 for _, v in points), key


@pytest.mark.parametrize("name", OUT_FIXTURES)
def test_metrics_tuples_are_shared(name: str) -> None:
    records, _ = parse(name)
    seen: dict[tuple[str, ...], tuple[str, ...]] = {}
    for r in records:
        assert seen.setdefault(r.metrics, r.metrics) is r.metrics


@pytest.mark.parametrize("name", OUT_FIXTURES)
def test_pieces_between_cr_give_the_same_result(name: str) -> None:
    # The progress output is one physical line full of "\r" per transaction; our readers hand
    # it over as one line with its "\r"s (tests/unit/test_line_reassembly.py). Fed as the
    # pieces between "\r"s instead (a reader that ends lines at "\r" too): same records, same
    # summary.
    text = fixture_text("uperf", name)
    expected = feed_all(make_parser_for(name), text.split("\n"))
    assert feed_all(make_parser_for(name), re.split(r"[\r\n]", text)) == expected


def test_a_progress_line_cut_at_cr_is_the_same() -> None:
    text = fixture_text("uperf", "netperf_tcp_aep.out")
    line = next(line for line in text.split("\n") if line.count("Txn2") > 5)
    whole = UperfTextParser(ops_per_iteration=2)
    pieces = UperfTextParser(ops_per_iteration=2)
    assert whole.feed(line) == [r for p in line.split("\r") for r in pieces.feed(p)]
    assert whole.feed(line) == []  # the same points again: nothing new


@pytest.mark.parametrize("name", OUT_FIXTURES)
def test_truncated_at_every_line_end(name: str) -> None:
    data = fixture_text("uperf", name)
    lines = data.split("\n")
    for cut in range(len(lines) + 1):
        feed_garbage(lambda: make_parser_for(name), lines[:cut])


# --------------------------------------------------------------------------- fuzzing


_TOKENS = [
    "\r",
    " " * 79,
    "Txn1",
    "Txn2",
    "Total",
    "0",
    "90.00B",
    "9.99MB",
    "417.03M",
    "1000.00",
    "/",
    "1.00(s)",
    "0.00(s)",
    "=",
    "83.70Mb/s",
    "116247op/s",
    "timestamp_ms:1795299861662.0615",
    "name:Txn2",
    "nr_bytes:4340610",
    "nr_ops:48229",
    "Difference(%)",
    "8.79%",
    "Run Statistics",
    "Txn                Count         avg",
    "Flowop             Count         avg",
    "17.65us",
    "Error 1:",
    "** ",
    "\n",
]


@FUZZ
@given(st.lists(st.sampled_from(_TOKENS), max_size=80), st.randoms(use_true_random=False))
def test_fuzz_cr_soup(tokens: list[str], rnd: random.Random) -> None:
    text = "".join(t + rnd.choice(["", " ", "  "]) for t in tokens)
    lines = text.split("\n")
    feed_garbage(lambda: UperfTextParser(ops_per_iteration=2), lines)
    # And the same text split at "\r" too: it must not raise anything else either.
    feed_garbage(lambda: UperfTextParser(ops_per_iteration=2), re.split(r"[\r\n]", text))


@FUZZ
@given(
    st.sampled_from(["timestamp_ms:", "Txn2 ", "Total ", "Txn0 ", "Difference(%) "]),
    st.text(alphabet="0123456789.:/()=%sbBKMGmunop \r-xe", max_size=200),
)
def test_fuzz_line_like(prefix: str, rest: str) -> None:
    parser = UperfTextParser(ops_per_iteration=2)
    parser.feed("Txn                Count         avg         cpu         max         min ")
    for line in (prefix + rest, "timestamp_ms:1.0 name:Txn2 nr_bytes:0 nr_ops:0", prefix + rest):
        try:
            assert_records_well_formed(parser.feed(line))
        except ParseError as exc:
            assert str(exc)
    parser.close()


@pytest.mark.parametrize(
    "line",
    [
        "\r" * 200_000,
        " \r" * 100_000,
        "Txn2 " + "9" * 200_000,
        "timestamp_ms:" + "1" * 200_000,
        "timestamp_ms:1.0 name:" + "T" * 200_000 + " nr_bytes:1 nr_ops:1",
        "Txn2      20.33MB /" + " " * 200_000 + "2.00(s) = 1b/s",
        "x" * 1_000_000,
        ("Txn2      20.33MB /   2.00(s) =    85.17Mb/s      118287op/s \r" * 20_000),
    ],
)
def test_very_long_lines(line: str) -> None:
    # Only records or ParseError here; the time they take is bench/parser_worst.py's.
    feed_garbage(lambda: UperfTextParser(ops_per_iteration=2), [line, line])


# --------------------------------------------------------------------------- speed


def synthetic_raw_output(n: int) -> str:
    """A long -R run: Txn1, then n raw lines of Txn2 (2 threads), then Txn3 and the Total."""
    lines = [
        "Starting 2 threads running profile:pairbench-throughput ...   0.00 seconds",
        "timestamp_ms:1795299902747.8999 name:Txn1 nr_bytes:0 nr_ops:0",
        "timestamp_ms:1795299903749.0193 name:Txn1 nr_bytes:0 nr_ops:2",
        "",
    ]
    ts, nbytes, ops = 1795299903749.7168, 0, 0
    rng = random.Random(3)
    for _ in range(n):
        lines.append(f"timestamp_ms:{ts:.4f} name:Txn2 nr_bytes:{nbytes} nr_ops:{ops}")
        ts += 1000.0 + rng.random()
        step = rng.randint(180_000, 290_000)
        ops += step
        nbytes += step * 8192
    lines += ["", f"timestamp_ms:{ts:.4f} name:Txn3 nr_bytes:0 nr_ops:2", "", "-" * 79]
    lines.append(f"timestamp_ms:{ts + 0.1:.4f} name:Total nr_bytes:{nbytes} nr_ops:{ops + 4}")
    return "\n".join(lines) + "\n"


def test_a_long_raw_output() -> None:
    # Its rate (lines/s) is measured by bench/parsers.py, against a baseline.
    n = 20_000
    records, summary = parse_text_output(synthetic_raw_output(n), threads=2, ops_per_iteration=10)
    assert len([r for r in records if r.stream == "sum"]) == n - 1
    assert summary.complete
