"""Golden tests: every iperf 2.1.8 capture (``tests/data/iperf2``), recorded on loopback.

Each capture's expected figures are the ones iperf printed in it (the line is quoted where it
is not obvious). ``GOLDENS`` is run by ``test_parser_contract.py`` on the file parser's output.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pairbench.domain import Record, Summary
from pairbench.tools import iperf2
from pairbench.tools.base import Capabilities, Parser
from pairbench.tools.iperf2_text import THROUGHPUT, Iperf2TextParser
from parser_checks import assert_records_well_formed, series_of
from parser_contract import Goldens, VersionCheck

# Captured on this machine over loopback with Debian's iperf 2.1.8 (each .cmd says how).
DATA = Path(__file__).resolve().parents[1] / "data" / "iperf2"
FIXTURES = sorted(p.name for p in DATA.glob("*.out"))
CAPS = Capabilities(
    version="iperf version 2.1.8 (12 August 2022) pthreads", version_tuple=(2, 1, 8)
)


def text_of(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def thr(records: list[Record], stream: str) -> list[float]:
    return [r.values[0] for r in records if r.stream == stream]


def times(records: list[Record], stream: str = "sum") -> list[float]:
    return [r.t for r in records if r.stream == stream]


def test_every_capture_is_covered() -> None:
    assert FIXTURES == [
        "err_conn_refused.out",
        "err_server_port_in_use.out",
        "err_unknown_host.out",
        "server_session.out",
        "tcp_t1.out",
        "tcp_t10_sigint.out",
        "tcp_t12_P3.out",
        "tcp_t2_enhanced.out",
        "tcp_t3.out",
        "tcp_t3_P2.out",
        "tcp_t3_w256K_l64K.out",
        "warn_unrecognized_option.out",
    ]
    for name in FIXTURES:
        cmd = (DATA / name).with_suffix(".cmd").read_text(encoding="utf-8")
        assert "iperf version 2.1.8" in cmd
        assert cmd.splitlines()[-1].startswith("iperf ")


# --------------------------------------------------------------------------- golden


def tcp_t3(records: list[Record], summary: Summary) -> None:
    assert times(records, "1") == [1.0, 2.0, 3.0]
    assert thr(records, "1") == [22.9e9, 22.7e9, 22.9e9]
    # One stream, no [SUM] lines: "sum" is a copy of stream 1.
    assert (
        series_of(records)[("sum", "throughput_bps")] == series_of(records)[("1", "throughput_bps")]
    )
    # The whole-run line "[  1] 0.0000-3.0165 sec  7.98 GBytes  22.7 Gbits/sec".
    assert summary == Summary(values={"throughput_bps": 22.7e9}, complete=True, error=None)


def tcp_t3_p2(records: list[Record], summary: Summary) -> None:
    assert {r.stream for r in records} == {"1", "2", "sum"}
    assert thr(records, "2") == [25.5e9, 27.9e9, 26.1e9]
    assert thr(records, "1") == [18.1e9, 24.5e9, 26.7e9]
    assert thr(records, "sum") == [43.7e9, 52.4e9, 52.8e9]
    assert times(records) == [1.0, 2.0, 3.0]
    assert summary == Summary(values={"throughput_bps": 49.6e9}, complete=True, error=None)


def tcp_t1(records: list[Record], summary: Summary) -> None:
    # "0.0000-1.0000" is an interval; the next "0.0000-1.0048" restarts at 0: the whole run.
    assert [(r.stream, r.t, r.values) for r in records] == [
        ("1", 1.0, (10.3e9,)),
        ("sum", 1.0, (10.3e9,)),
    ]
    assert summary == Summary(values={"throughput_bps": 10.2e9}, complete=True, error=None)


def tcp_t12_p3(records: list[Record], summary: Summary) -> None:
    assert thr(records, "sum") == [
        13.8e9, 34.9e9, 35.3e9, 18.2e9, 26.4e9, 55.8e9,
        59.7e9, 41.1e9, 48.5e9, 52.2e9, 51.6e9, 36.2e9,
    ]  # fmt: skip
    # "9.0000-10.0000", "10.0000-11.0000", and the last [SUM] interval "11.0000-12.0037".
    assert times(records) == [*(float(i) for i in range(1, 12)), 12.0037]
    # Streams' whole-run lines interleave with the last intervals: "[  1] 0.0000-12.0055"
    # comes before "[  2] 11.0000-12.0000", which is still an interval.
    assert times(records, "1") == [float(i) for i in range(1, 13)]
    assert thr(records, "1")[-1] == 6.75e9
    assert thr(records, "2")[-1] == 17.3e9
    assert thr(records, "3")[-1] == 12.2e9
    assert len(records) == 4 * 12
    assert summary == Summary(values={"throughput_bps": 39.5e9}, complete=True, error=None)


def tcp_t2_enhanced(records: list[Record], summary: Summary) -> None:
    # -e adds Write/Err, Rtry, Cwnd/RTT and NetPwr columns: accepted, ignored.
    assert thr(records, "1") == [17.9e9, 21.3e9]
    assert times(records) == [1.0, 2.0]
    assert summary == Summary(values={"throughput_bps": 19.5e9}, complete=True, error=None)


def tcp_t3_w256k_l64k(records: list[Record], summary: Summary) -> None:
    assert thr(records, "sum") == [34.4e9, 27.1e9, 35.2e9]
    assert summary.values == {"throughput_bps": 32.1e9}


def tcp_t10_sigint(records: list[Record], summary: Summary) -> None:
    # SIGINT after 2.6 s: iperf prints the partial interval and its whole-run line, exit 0.
    assert times(records) == [1.0, 2.0, 2.6096]
    assert thr(records, "sum") == [20.8e9, 28.2e9, 28.7e9]
    assert summary == Summary(values={"throughput_bps": 25.5e9}, complete=True, error=None)


def warn_unrecognized_option(records: list[Record], summary: Summary) -> None:
    # "iperf: unrecognized option `--bogus'": iperf warns and runs the test anyway.
    assert thr(records, "sum") == [23.4e9, 23.7e9, 25.0e9]
    assert summary == Summary(values={"throughput_bps": 24.0e9}, complete=True, error=None)


def error(message: str) -> Callable[[list[Record], Summary], None]:
    def check(records: list[Record], summary: Summary) -> None:
        assert records == []
        assert summary == Summary(values={}, complete=False, error=message)

    return check


def server_session(records: list[Record], summary: Summary) -> None:
    # A server's output, not what the parser reads (the engine parses the client's); the
    # engine waits for its ready text, on line 2.
    assert iperf2.SERVER_READY_TEXT in text_of("server_session.out").splitlines()[1]
    assert "in use" in text_of("err_server_port_in_use.out")  # what the engine retries on


CHECKS: dict[str, Callable[[list[Record], Summary], None]] = {
    "err_conn_refused.out": error("tcp connect failed: Connection refused"),  # exit status 0!
    "err_server_port_in_use.out": error("listener bind failed: Address already in use"),
    "err_unknown_host.out": error("no-such-host.invalid: Unknown host"),
    "server_session.out": server_session,
    "tcp_t1.out": tcp_t1,
    "tcp_t10_sigint.out": tcp_t10_sigint,
    "tcp_t12_P3.out": tcp_t12_p3,
    "tcp_t2_enhanced.out": tcp_t2_enhanced,
    "tcp_t3.out": tcp_t3,
    "tcp_t3_P2.out": tcp_t3_p2,
    "tcp_t3_w256K_l64K.out": tcp_t3_w256k_l64k,
    "warn_unrecognized_option.out": warn_unrecognized_option,
}


def check_golden(name: str, records: list[Record], summary: Summary) -> None:
    """The file parser's output of a capture is its golden (run by test_parser_contract)."""
    assert_records_well_formed(records)
    assert all(r.metrics is THROUGHPUT for r in records)
    CHECKS[name](records, summary)


def live_parser(name: str) -> Parser:
    """The parser the engine makes for a client run (the captures' options are not params
    the parser depends on)."""
    return iperf2.TOOL.parser(iperf2.resolve({}), CAPS)


GOLDENS = Goldens(
    folder=DATA,
    names=tuple(sorted(CHECKS)),
    check=check_golden,
    live_parser=live_parser,
    parts=(Iperf2TextParser,),
    # iperf 2 prints no version on a run: it reaches the parser only through Capabilities.
    versions=(
        VersionCheck(
            banner=None,
            future="",
            recorded="iperf version 2.1.8 (12 August 2022) pthreads",
            future_output="iperf version 9.9.9 (1 January 2099) pthreads",
        ),
    ),
)
