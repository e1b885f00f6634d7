"""The host sampler's output read into telemetry records: figures checked against the kernel
counters in the capture, computed here by hand; times on the run's axis; bad input."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairbench.domain import Line, LineSource, Record
from pairbench.tools import ss_stats
from pairbench.tools.sampler_parse import SamplerParser

DATA = Path(__file__).parent.parent / "data" / "telemetry"
ARRIVAL_S = 0.05  # each sample reaches the controller this long after its host time stamp


def _samples(name: str) -> list[list[str]]:
    """The capture's samples: each the lines from its ``#t`` to its ``#end``."""
    samples: list[list[str]] = []
    for line in (DATA / name).read_text().splitlines():
        if line.startswith("#t "):
            samples.append([])
        if samples:
            samples[-1].append(line)
    return samples


def _feed(
    name: str, role: str = "client", proto: str = "tcp"
) -> tuple[SamplerParser, list[Record]]:
    """Feed a capture as it would arrive: each sample ``ARRIVAL_S`` after its own stamp, the
    run having started at the first sample's stamp (monotonic time 0)."""
    parser = SamplerParser("client", 0.0, proto=proto)
    records: list[Record] = []
    first_us: int | None = None
    received = 0.0
    for line in (DATA / name).read_text().splitlines():
        if line.startswith("#t "):
            t_us = int(line.split()[1])
            first_us = t_us if first_us is None else first_us
            received = (t_us - first_us) / 1e6 + ARRIVAL_S
        records += parser.feed(Line(LineSource.SAMPLER_OUT, line, received))
    return parser, records


def _stamp(sample: list[str]) -> int:
    return int(sample[0].split()[1])


def _line(sample: list[str], prefix: str) -> list[int]:
    found = next(line for line in sample if line.startswith(prefix))
    return [int(x) for x in found.split()[1:]]


def _record(records: list[Record], stream: str, t: float) -> dict[str, float]:
    for record in records:
        if record.stream == stream and math.isclose(record.t, t, abs_tol=1e-6):
            return dict(zip(record.metrics, record.values, strict=True))
    raise AssertionError(f"no {stream} record at {t}")


def test_the_greeting_says_what_the_host_offers() -> None:
    parser, _ = _feed("sampler-tcp.out")
    assert parser.meta["dev"] == "eth0" and parser.meta["ethtool"] == "1"
    assert parser.meta["cores"] == "2" and parser.meta["disks"] == "vda"
    assert re.fullmatch(r"[0-9a-f-]{36}", parser.meta["boot"])
    assert parser.notes == []


def test_cpu_and_interface_figures_are_the_kernels_counters_per_second() -> None:
    samples = _samples("sampler-tcp.out")
    _parser, records = _feed("sampler-tcp.out")
    first = _stamp(samples[0])
    for before, after in itertools.pairwise(samples[1:]):
        t = (_stamp(after) - first) / 1e6 + ARRIVAL_S
        dt = (_stamp(after) - _stamp(before)) / 1e6
        for core in ("cpu0", "cpu1"):
            b, a = _line(before, f"{core} "), _line(after, f"{core} ")
            d = [y - x for x, y in zip(b[:8], a[:8], strict=True)]
            busy = d[0] + d[1] + d[2] + d[5] + d[6] + d[7]  # user nice system irq softirq steal
            shown = _record(records, f"client:{core}", t)
            assert shown["cpu_busy_percent"] == pytest.approx(100 * busy / sum(d))
            assert shown["cpu_softirq_percent"] == pytest.approx(100 * d[6] / sum(d))
            assert shown["cpu_idle_percent"] == pytest.approx(100 * d[3] / sum(d))
        net_b = [int(x) for x in next(x for x in before if x.startswith("#net")).split()[1:]]
        net_a = [int(x) for x in next(x for x in after if x.startswith("#net")).split()[1:]]
        net = _record(records, "client:net", t)
        assert net["nic_rx_bps"] == pytest.approx(8 * (net_a[0] - net_b[0]) / dt)
        assert net["nic_tx_pps"] == pytest.approx((net_a[9] - net_b[9]) / dt)


def test_the_tools_threads_are_its_own_schedstat() -> None:
    samples = _samples("sampler-tcp.out")
    _parser, records = _feed("sampler-tcp.out")
    before, after = samples[2], samples[3]
    t = (_stamp(after) - _stamp(samples[0])) / 1e6 + ARRIVAL_S
    dt_ns = (_stamp(after) - _stamp(before)) * 1000

    def threads(sample: list[str], role: str) -> dict[int, tuple[int, int]]:
        start = sample.index(f"#proc {role}")
        out = {}
        for line in sample[start + 1 :]:
            if line.startswith("#"):
                break
            tid, run, wait = (int(x) for x in line.split())
            out[tid] = (run, wait)
        return out

    for role in ("client", "server"):
        b, a = threads(before, role), threads(after, role)
        shares = {tid: 100 * (a[tid][0] - b[tid][0]) / dt_ns for tid in a if tid in b}
        shown = _record(records, f"{role}:proc", t)
        assert shown["proc_cpu_percent"] == pytest.approx(sum(shares.values()))
        busiest = max(shares, key=lambda tid: shares[tid])
        assert shown["proc_thread_max_percent"] == pytest.approx(shares[busiest])
        waited = 100 * (a[busiest][1] - b[busiest][1]) / dt_ns
        assert shown["proc_thread_wait_percent"] == pytest.approx(waited)


def test_udp_receive_buffer_errors_and_the_sockets_buffer() -> None:
    samples = _samples("sampler-udp.out")
    _parser, records = _feed("sampler-udp.out", proto="udp")
    header = next(line for line in samples[0] if line.startswith("Udp: In")).split()[1:]
    column = header.index("RcvbufErrors")
    values = [
        [line for line in sample if line.startswith("Udp: ") and line.split()[1].isdigit()]
        for sample in samples
    ]
    before, after = samples[1], samples[2]
    t = (_stamp(after) - _stamp(samples[0])) / 1e6 + ARRIVAL_S
    dt = (_stamp(after) - _stamp(before)) / 1e6
    errors = int(values[2][0].split()[1 + column]) - int(values[1][0].split()[1 + column])
    assert errors > 0  # the capture is of a receiver overflowing
    udp = _record(records, "client:udp", t)
    assert udp["udp_rcvbuf_error_pps"] == pytest.approx(errors / dt)
    sock = [r for r in records if r.stream == "client:sock"]
    assert sock, "ss read the tool's sockets"
    # socket(7): SO_RCVBUF 8K (iperf3 -w 8K) is doubled by the kernel: 16384, as ss printed.
    assert dict(zip(sock[0].metrics, sock[0].values, strict=True))["sock_rcvbuf_bytes"] == 16384


def test_tcp_connection_state_from_ss() -> None:
    samples = _samples("sampler-tcp.out")
    _parser, records = _feed("sampler-tcp.out")
    conn = [r for r in records if r.stream == "client:conn"]
    assert conn, "ss is read once a second: a record per second of the run"
    shown = dict(zip(conn[0].metrics, conn[0].values, strict=True))
    slow = [s for s in samples if "#ss" in s]
    then = {s.key: s for s in ss_stats.parse(slow[0][slow[0].index("#ss") + 1 : -1])}
    now = ss_stats.parse(slow[1][slow[1].index("#ss") + 1 : -1])
    moving = [
        (then[s.key], s)
        for s in now
        if s.key in then
        and s.values.get("bytes_acked", 0)
        + s.values.get("bytes_received", 0)
        - then[s.key].values.get("bytes_acked", 0)
        - then[s.key].values.get("bytes_received", 0)
        >= 65536
    ]
    assert shown["conn_count"] == len(moving) >= 1  # the data connection, not the control one
    busy = sum(n.values.get("busy", 0) - b.values.get("busy", 0) for b, n in moving)
    rwnd = sum(n.values.get("rwnd_limited", 0) - b.values.get("rwnd_limited", 0) for b, n in moving)
    if busy > 0:
        assert shown["conn_rwnd_limited_percent"] == pytest.approx(100 * rwnd / busy)
    assert shown["conn_sndbuf_bytes"] == max(n.values["skmem_tb"] for _, n in moving)


def test_ethtool_counters_are_read_once_a_second_as_rates() -> None:
    parser, records = _feed("sampler-tcp.out")
    nic = [r for r in records if r.stream == "client:nic"]
    assert len(nic) == sum(1 for s in _samples("sampler-tcp.out") if "#ethtool" in s) - 1
    assert parser.meta["ethtool_counters"].split(",") == list(
        m.removeprefix("ethtool_").removesuffix("_pps") for m in nic[0].metrics
    )
    assert "ethtool_rx_drops_pps" in nic[0].metrics


def test_times_are_on_the_runs_axis_and_the_last_sample_is_kept() -> None:
    samples = _samples("sampler-tcp.out")
    _parser, records = _feed("sampler-tcp.out")
    times = sorted({r.t for r in records if r.stream == "client:cpu"})
    expected = [(_stamp(s) - _stamp(samples[0])) / 1e6 + ARRIVAL_S for s in samples[1:]]
    assert times == pytest.approx(expected)
    assert len(times) == len(samples) - 1  # the first is the baseline; the SIGINT one counts


def test_errors_and_notes_are_kept_not_raised() -> None:
    parser = SamplerParser("server", 10.0)
    lines = [
        Line(LineSource.SAMPLER_ERR, "bash: ss: command not found", 10.1),
        Line(LineSource.SAMPLER_OUT, "#note disk: no block device holds /dev/shm", 10.1),
        Line(LineSource.SAMPLER_OUT, "cpu0 1 2 3", 10.1),  # outside a sample
        Line(LineSource.SAMPLER_OUT, "#t not-a-number", 10.2),
        Line(LineSource.SAMPLER_OUT, "#end", 10.2),
        Line(LineSource.SAMPLER_OUT, "x" * 100_000, 10.3),
    ]
    assert all(parser.feed(line) == [] for line in lines)
    assert parser.notes == ["bash: ss: command not found", "disk: no block device holds /dev/shm"]


_SAMPLE_LINES = (DATA / "sampler-udp.out").read_text().splitlines()


@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(_SAMPLE_LINES),
            st.text(max_size=80),
            st.sampled_from(["#t 1", "#t 2", "#end", "#stat", "#ss", "#ethtool", "#proc client"]),
            st.builds(lambda a, b: f"cpu0 {a} {b} 0 0 0 0 0 0", st.integers(), st.integers()),
        ),
        max_size=60,
    )
)
def test_any_lines_give_records_or_nothing(lines: list[str]) -> None:
    parser = SamplerParser("client", 0.0, proto="udp")
    for i, text in enumerate(lines):
        for record in parser.feed(Line(LineSource.SAMPLER_OUT, text, i * 0.1)):
            assert len(record.metrics) == len(record.values)
            assert record.stream.startswith(("client:", "server:"))
