"""Parsers never crash (issue 12 §5): regression tests for the crash classes fuzzing found.

The fuzzing itself, of every parser of every tool, is the parser contract's
(``test_parser_contract.py``); guessing a dropped file's tool is fuzzed here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairbench.services.import_guess import ToolGuess, guess_tool
from pairbench.tools.base import Capabilities, ParseError, Parser, preview
from pairbench.tools.feed import feed_text
from pairbench.tools.fio import FioFileParser
from pairbench.tools.fio_json import FioJsonParser
from pairbench.tools.fio_text import FioTextParser
from pairbench.tools.iperf3_json import Iperf3JsonParser
from pairbench.tools.iperf3_text import Iperf3TextParser
from pairbench.tools.nuttcp_text import NuttcpTextParser
from pairbench.tools.ping_text import PingTextParser
from pairbench.tools.registry import TOOLS
from pairbench.tools.uperf_text import UperfTextParser
from parser_checks import (
    arbitrary_text,
    assert_only_parse_error,
    assert_values_sane,
    mutated_text,
)

DATA = Path(__file__).resolve().parents[1] / "data"
CAPTURES = DATA / "robustness"
KiB = 1024.0


def read(path: Path) -> str:
    """A capture's exact text ("\\r" kept: uperf rewrites its progress lines with it)."""
    return path.read_bytes().decode("utf-8", "replace")


@functools.cache
def captures(tool: str, kind: str = "") -> tuple[str, ...]:
    """The texts of a tool's captures, or of those in one kind of output ("json", "text").

    iperf2's are the iperf2 parser's own test data.
    """
    folder = DATA / "iperf2" if tool == "iperf2" else CAPTURES / tool
    paths = [
        path
        for path in sorted(folder.glob("*.out"))
        if not kind or ("json" in path.name) == (kind == "json")
    ]
    assert paths, (folder, kind)
    return tuple(read(path) for path in paths)


def registry_parser(tool: str, **params: str) -> Parser:
    """The parser the engine makes for a live run of ``tool`` with ``params``."""
    t = TOOLS[tool]
    return t.parser(t.resolve(params), Capabilities(version=""))


FUZZ = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --------------------------------------------------------------------------- known crashes


FIO_TEXT_SMALL = """\
job: (groupid=0, jobs=1): err= 0: pid=7: Sat Nov 21 22:34:36 2026
  read: IOPS=1, BW={bw} ({bw_dec})(40.0KiB/8001msec)
     lat (usec): min=194, max=9014, avg=877.96, stdev=512.51
     issued rwts: total=5,0,0,0 short=0,0,0,0 dropped=0,0,0,0

Run status group 0 (all jobs):
   READ: bw={bw} ({bw_dec}), {bw}-{bw} ({bw_dec}-{bw_dec}), io=40.0KiB (41.0kB), run=8001-8001msec
"""


def fio_text_with(bw: str, bw_dec: str) -> str:
    return FIO_TEXT_SMALL.format(bw=bw, bw_dec=bw_dec)


@pytest.mark.parametrize(
    ("bw", "bw_dec", "bytes_per_s"),
    [
        ("5kiB/s", "5kB/s", 5 * KiB),  # the fuzzer's KeyError('k')
        ("5KiB/s", "5kB/s", 5 * KiB),  # fio's own spelling
        ("5kB/s", "5kiB/s", 5 * KiB),  # the binary figure second
        ("5kB/s", "5KB/s", 5e3),  # --kb_base=1000 both ways: the first, decimal
        ("5EiB/s", "5.8EB/s", 5 * KiB**6),
        ("5PB/s", "4.4PiB/s", 4.4 * KiB**5),
        ("40Kibit/s", "41.0kbit/s", 40 * KiB / 8),  # --unit_base=1: bits
        ("41.0kbit/s", "41.0kbit/s", 41e3 / 8),
        ("5B/s", "5B/s", 5.0),
    ],
)
def test_fio_text_reads_every_unit_fio_prints(bw: str, bw_dec: str, bytes_per_s: float) -> None:
    records, summary = feed_text(FioTextParser(), fio_text_with(bw, bw_dec))
    assert records == []
    assert summary.complete is True
    assert summary.values["read_bytes_per_s"] == bytes_per_s
    assert summary.values["read_iops"] == 1.0


@pytest.mark.parametrize("unit", ["5iB/s", "5ibit/s", "5ZiB/s", "5mB/s", "5Kb/s"])
def test_fio_text_skips_a_line_with_a_unit_fio_does_not_print(unit: str) -> None:
    # "5iB/s" was the fuzzer's KeyError('i'); the others never matched. Without a direction
    # line there is nothing to report, but the output is still read.
    records, summary = feed_text(FioTextParser(), fio_text_with(unit, unit))
    assert records == [] and summary.complete is True
    assert "read_iops" not in summary.values


def test_fio_text_capture_with_kib_units() -> None:
    text = read(CAPTURES / "fio" / "randread4k_qd32_j2_normal.out")
    text = text.replace("142MiB/s (149MB/s)", "5kiB/s (5kB/s)")
    text = text.replace("285MiB/s (298MB/s)", "10kiB/s (10kB/s)")
    for make in (FioTextParser, FioFileParser):
        summary = feed_text(make(), text)[1]
        assert summary.values["read_bytes_per_s"] == 10 * KiB
    assert guess_tool(text, "saved.txt").tool == "fio"


@pytest.mark.parametrize("number", ["9" * 25, "9" * 400, "1" + "0" * 40])
def test_fio_text_number_too_long_skips_the_line(number: str) -> None:
    # float() made these inf (then nan): a line with such a number is not fio's.
    text = fio_text_with(f"{number}KiB/s", "5kB/s")
    records, summary = feed_text(FioTextParser(), text)
    assert "read_iops" not in summary.values
    two_jobs = fio_text_with("5KiB/s", "5kB/s").split("\n")
    two_jobs[4:4] = two_jobs[:4]  # a second job block; latency weighted by the issued counts
    text = "\n".join(two_jobs).replace("total=5,", f"total={number},", 1)
    records, summary = feed_text(FioTextParser(), text)
    assert summary.values["read_iops"] == 2.0
    assert_values_sane(text, records, summary)


UPERF_RAW = CAPTURES / "uperf" / "netperf_tcp_a_raw.out"


@pytest.mark.parametrize("threads", ["9" * 400, str(2**1024), "9" * 4000, "12345678901"])
def test_uperf_huge_thread_count_is_not_uperf_output(threads: str) -> None:
    # "9" * 400 was the fuzzer's OverflowError (int too large to convert to float, in the
    # latency of a raw interval). A thread count that is no C int is not uperf's: the line is
    # chatter, and the rest reads as before.
    text = read(UPERF_RAW)
    huge = text.replace("Starting 1 threads", f"Starting {threads} threads")
    assert huge != text
    for make in (UperfTextParser, TOOLS["uperf"].file_parser, lambda: registry_parser("uperf")):
        got = feed_text(make(), huge)
        assert got == feed_text(make(), text)
        assert got[0] and got[1].complete
    guess = guess_tool(huge, "saved.txt")
    assert isinstance(guess, ToolGuess) and guess.tool == "uperf"


def test_fio_json_bins_key_that_is_no_number() -> None:
    # str.isdigit() accepts "²", int() does not: was a ValueError, not ParseError.
    text = read(CAPTURES / "fio" / "randread4k_qd32_j2_jsonplus.out")
    at = text.index('"bins" : {') + len('"bins" : {')
    bad = text[:at] + '\n            "\u00b2" : 1,' + text[at:]
    with pytest.raises(ParseError, match="is not a latency"):
        feed_text(FioJsonParser(), bad)
    assert_only_parse_error(FioFileParser, bad)
    assert "fio" not in guess_tool(bad, "saved.json").sure


@pytest.mark.parametrize(
    ("make", "line"),
    [
        (Iperf3TextParser, "[  5]   0.00-1.00   sec  1.0 GBytes  " + "9" * 400 + " Gbits/sec"),
        (Iperf3TextParser, "[  5]   0.00-" + "9" * 400 + "   sec  1.0 GBytes  1.0 Gbits/sec"),
        (
            Iperf3TextParser,
            "[  5]   0.00-1.00   sec  1.0 MBytes  1.0 Mbits/sec  0.01 ms  0/9 (9e999%)",
        ),
        (PingTextParser, "64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=" + "9" * 400 + " ms"),
        (PingTextParser, "rtt min/avg/max/mdev = " + "9" * 400 + "/1/1/1 ms"),
        (PingTextParser, "2 packets transmitted, 2 received, 1e999% packet loss, time 1ms"),
        (NuttcpTextParser, "megabytes=1.0 real_sec=1.00 rate_Mbps=8.0 drop=1e308 pkt=9"),
        (NuttcpTextParser, "megabytes=1.0 real_sec=1.00 rate_Mbps=" + "9" * 40 + " retrans=0"),
        (NuttcpTextParser, "megabytes=1.0 real_seconds=1.00 rate_Mbps=8.0 rtt_ms=inf"),
    ],
)
def test_numbers_too_large_for_a_float_are_parse_errors(
    make: Callable[[], Parser], line: str
) -> None:
    # They used to give inf (and then nan) values; each parser reports a malformed line.
    with pytest.raises(ParseError):
        make().feed(line)


@pytest.mark.parametrize(
    "value", ["1e308", "-1e308", "18446744073709551617", "-18446744073709551617"]
)
def test_iperf3_json_numbers_beyond_64_bits_are_parse_errors(value: str) -> None:
    text = read(CAPTURES / "iperf3" / "tcp_t5_json.out")
    first = text.index('"bits_per_second":\t') + len('"bits_per_second":\t')
    end = text.index(",", first)
    bad = text[:first] + value + text[end:]
    assert bad != text
    with pytest.raises(ParseError, match="number"):
        feed_text(Iperf3JsonParser(), bad)


def test_fio_json_without_iops_and_a_tiny_runtime_stays_finite() -> None:
    # iops and bw_bytes are then computed from runtime (whole ms in fio): 5e-324 gave inf.
    lines = read(CAPTURES / "fio" / "randrw70_4k_qd32_j2_group_json.out").split("\n")
    first = lines.index('      "read" : {')
    block = lines[first : first + 8]
    assert '        "runtime" : 8001,' in block
    block = [line for line in block if '"iops"' not in line and '"bw_bytes"' not in line]
    block = [line.replace(": 8001,", ": 5e-324,") for line in block]
    text = "\n".join([*lines[:first], *block, *lines[first + 8 :]])
    records, summary = feed_text(FioJsonParser(), text)
    assert summary.values["read_iops"] == 0.0
    assert_values_sane(text, records, summary)


def test_preview_is_bounded_in_length_and_depth() -> None:
    deep: list[object] = []
    for _ in range(100_000):  # far deeper than str() can go
        deep = [deep]
    assert preview(deep) == "[[[[...]]]]"
    assert len(preview({"k": "v" * 10_000, "n": list(range(10_000))})) <= 200
    assert preview("text " * 100, 10) == "text text "
    assert preview(10**5000)  # more digits than int's str() converts


# --------------------------------------------------------------------------- guessing the tool


@FUZZ
@given(st.one_of(arbitrary_text, mutated_text([t for tool in TOOLS for t in captures(tool)])))
def test_guess_tool_never_raises(text: str) -> None:
    guess = guess_tool(text, "dropped.out")
    assert isinstance(guess, ToolGuess)
    assert set(guess.sure) | set(guess.weak) <= set(TOOLS)
    assert guess.tool is None or guess.tool in TOOLS
