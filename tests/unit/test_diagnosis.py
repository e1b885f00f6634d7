"""The verdict rules on hand-made series: each limit, each host, and what does not count."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from pairbench.analysis.diagnosis import NO_TELEMETRY, DiagnosisInput, diagnose
from pairbench.domain.diagnosis import Diagnosis, Target, from_payload
from pairbench.library.series import SeriesArrays

N = 6  # intervals of 1 s: the steady part is t = 2 … 6


def _s(stream: str, metric: str, values: Sequence[float]) -> SeriesArrays:
    t = np.arange(1.0, len(values) + 1.0)
    return SeriesArrays(stream, metric, "", t, np.asarray(values, dtype=float))


def _tool(bps: float | Sequence[float] = 1e9) -> list[SeriesArrays]:
    values = [bps] * N if isinstance(bps, float) else list(bps)
    return [_s("sum", "throughput_bps", values)]


def _cores(role: str, busy: Mapping[int, float], softirq: float = 0.0) -> list[SeriesArrays]:
    out = [_s(f"{role}:cpu", "cpu_busy_percent", [sum(busy.values()) / len(busy)] * N)]
    for core, level in busy.items():
        out += [
            _s(f"{role}:cpu{core}", "cpu_busy_percent", [level] * N),
            _s(f"{role}:cpu{core}", "cpu_softirq_percent", [softirq if level > 90 else 0] * N),
            _s(f"{role}:cpu{core}", "cpu_irq_percent", [0.0] * N),
        ]
    return out


def _thread(role: str, ran: float, waited: float) -> list[SeriesArrays]:
    return [
        _s(f"{role}:proc", "proc_thread_max_percent", [ran] * N),
        _s(f"{role}:proc", "proc_thread_wait_percent", [waited] * N),
    ]


def _quiet_hosts() -> list[SeriesArrays]:
    return _cores("client", {0: 20, 1: 10}) + _cores("server", {0: 25, 1: 5})


def _telemetry(shared: bool = False) -> dict[str, Any]:
    boot = {"client": "a", "server": "a" if shared else "b"}
    return {
        "hosts": {role: {"boot": boot[role], "disks": "vda"} for role in boot},
        "shared_kernel": shared,
    }


def _input(
    series: list[SeriesArrays],
    *,
    tool: str = "iperf3",
    proto: str = "tcp",
    summary: Mapping[str, float] | None = None,
    target: Target | None = None,
    shared: bool = False,
    rmem_max: Mapping[str, str] | None = None,
) -> DiagnosisInput:
    return DiagnosisInput(
        tool=tool,
        status="completed",
        summary=summary if summary is not None else {"throughput_bps": 1e9},
        series=series,
        telemetry=_telemetry(shared),
        target=target,
        sender="client" if proto else None,
        proto=proto,
        rmem_max=rmem_max or {},
    )


def test_without_telemetry_the_limit_is_unknown_and_says_why() -> None:
    verdict = diagnose(DiagnosisInput("iperf3", "completed", {"throughput_bps": 1e9}, _tool()))
    assert verdict == Diagnosis("unknown", None, (NO_TELEMETRY,))


def test_a_reached_target_is_the_rate() -> None:
    target = Target("throughput_bps", 50e6, "bitrate=50M")
    reached = _input(
        _tool(49.8e6) + _quiet_hosts(),
        proto="udp",
        summary={"throughput_bps": 49.8e6},
        target=target,
    )
    verdict = diagnose(reached)
    assert (verdict.limit, verdict.host) == ("rate", None)
    assert verdict.evidence[0].startswith("the tool's own target bitrate=50M was reached")
    short = _input(
        _tool(30e6) + _quiet_hosts(), proto="udp", summary={"throughput_bps": 30e6}, target=target
    )
    assert diagnose(short).limit == "network"


def test_ping_paces_itself() -> None:
    verdict = diagnose(
        _input(
            [],
            tool="ping",
            proto="",
            summary={"rtt_avg_ms": 1.0},
            target=Target("packets_per_s", 5.0, "interval=0.2"),
        )
    )
    assert verdict.limit == "rate" and "every 0.2 s" in verdict.evidence[0]


def _udp_receiver(errors: float, received: float, buffer: float) -> list[SeriesArrays]:
    return [
        _s("server:udp", "udp_rcvbuf_error_pps", [errors] * N),
        _s("server:udp", "udp_in_pps", [received] * N),
        _s("server:sock", "sock_rcvbuf_bytes", [buffer] * N),
    ]


def test_udp_receive_buffer_errors_on_the_receiver() -> None:
    series = _tool(600e6) + _quiet_hosts() + _udp_receiver(3100, 9000, 212992)
    verdict = diagnose(_input(series, proto="udp", rmem_max={"server": "212992"}))
    assert (verdict.limit, verdict.host) == ("receive-buffer", "server")
    assert verdict.evidence[0] == (
        "UdpRcvbufErrors +3,100/s on the server; the socket buffer is 212,992 bytes: "
        "raise net.core.rmem_max (now 212,992) or set window"
    )


def test_a_trickle_of_buffer_errors_is_not_the_limit() -> None:
    series = _tool(600e6) + _quiet_hosts() + _udp_receiver(0.5, 90000, 212992)
    assert diagnose(_input(series, proto="udp")).limit == "network"


def test_a_saturated_core_that_the_tool_needs_is_the_cpu() -> None:
    series = _tool() + _cores("client", {0: 30, 1: 20}) + _cores("server", {0: 40, 3: 98}, 61)
    series += _thread("client", 20, 1) + _thread("server", 70, 3)
    verdict = diagnose(_input(series))
    assert (verdict.limit, verdict.host) == ("cpu", "server")
    assert verdict.evidence[0].startswith("server core 3: 98 % busy (62 % of it softirq and irq)")


def test_a_thread_that_seldom_sleeps_is_cpu_bound_whatever_the_cores_say() -> None:
    series = _tool() + _cores("client", {0: 84, 1: 80}) + _cores("server", {0: 50, 1: 40})
    series += _thread("client", 40, 42) + _thread("server", 30, 5)
    verdict = diagnose(_input(series))
    assert (verdict.limit, verdict.host) == ("cpu", "client")
    assert (
        "seldom slept: it ran 40 % of the time and waited for a CPU 42 %" in (verdict.evidence[0])
    )


def test_a_thread_that_sleeps_a_third_of_the_time_on_unsaturated_cores_is_not_cpu() -> None:
    series = _tool() + _cores("client", {0: 84, 1: 80}) + _cores("server", {0: 50, 1: 40})
    series += _thread("client", 40, 25) + _thread("server", 30, 5)
    assert diagnose(_input(series)).limit == "network"


def test_busy_cores_the_tool_does_not_need_are_other_load() -> None:
    series = _tool(200e6) + _cores("client", {0: 100, 1: 100}) + _cores("server", {0: 100, 1: 100})
    series += _thread("client", 3, 2) + _thread("server", 5, 4)
    verdict = diagnose(_input(series))
    assert verdict.limit == "network"
    assert any(
        e.startswith("cores busy (client 100 %, server 100 %) but not for this run")
        for e in verdict.evidence
    )


def test_a_full_core_while_throughput_swings_is_not_called_cpu() -> None:
    swinging = [1e9, 0.1e9, 1.5e9, 0.05e9, 1.2e9, 0.1e9]
    series = _tool(swinging) + _cores("client", {0: 99, 1: 30}) + _cores("server", {0: 30, 1: 20})
    series += _thread("client", 95, 4)
    assert diagnose(_input(series)).limit != "cpu"


def test_hosts_on_one_kernel_are_told_apart_by_their_threads() -> None:
    cores = {0: 99.0, 1: 60.0}
    series = _tool() + _cores("client", cores, 20) + _cores("server", cores, 20)
    series += _thread("client", 40, 10) + _thread("server", 90, 8)
    verdict = diagnose(_input(series, shared=True))
    assert (verdict.limit, verdict.host) == ("cpu", "server")
    assert "share one kernel" in verdict.evidence[-1]


def _window(rwnd: float, sndbuf: float, window: float, rtt_ms: float) -> list[SeriesArrays]:
    return [
        _s("client:conn", "conn_rwnd_limited_percent", [rwnd] * N),
        _s("client:conn", "conn_sndbuf_limited_percent", [sndbuf] * N),
        _s("client:conn", "conn_snd_wnd_bytes", [window] * N),
        _s("client:conn", "conn_sndbuf_bytes", [window] * N),
        _s("client:conn", "conn_rtt_ms", [rtt_ms] * N),
    ]


def test_a_receive_window_over_the_round_trip_is_the_window() -> None:
    expected = 8 * 65536 / 0.1  # 5.24 Mbit/s
    series = _tool(expected) + _quiet_hosts() + _window(80, 5, 65536, 100)
    verdict = diagnose(_input(series, summary={"throughput_bps": expected}))
    assert (verdict.limit, verdict.host) == ("window", "server")
    assert verdict.evidence[1] == (
        "throughput 5.24 Mbit/s ≈ window 64.0 KiB ÷ RTT 100 ms = 5.24 Mbit/s"
    )


def test_a_send_buffer_is_the_senders_window() -> None:
    expected = 8 * 131072 / 0.05
    series = _tool(expected) + _quiet_hosts() + _window(5, 70, 131072, 50)
    verdict = diagnose(_input(series, summary={"throughput_bps": expected}))
    assert (verdict.limit, verdict.host) == ("window", "client")


def test_window_limits_that_do_not_explain_the_throughput_are_not_the_window() -> None:
    series = _tool(100e6) + _quiet_hosts() + _window(80, 0, 65536, 100)
    verdict = diagnose(_input(series, summary={"throughput_bps": 100e6}))
    assert verdict.limit == "network"


def test_the_network_names_a_rising_allowance_first() -> None:
    allowance = [0, 0, 1204, 1204, 1204, 1204]
    series = (
        _tool()
        + _quiet_hosts()
        + [_s("client:nic", "ethtool_bw_out_allowance_exceeded_pps", allowance)]
    )
    verdict = diagnose(_input(series))
    assert verdict.limit == "network" and verdict.host is None
    assert verdict.evidence[0] == (
        "bw_out_allowance_exceeded +1,204/s on the client: the instance's outbound bandwidth "
        "allowance"
    )


def test_a_run_that_measured_nothing_is_unknown() -> None:
    verdict = diagnose(_input(_quiet_hosts(), summary={}))
    assert verdict == Diagnosis("unknown", None, ("the run measured no throughput to explain",))


# --- fio ------------------------------------------------------------------------------------


def _fio(util: float, queue: float, **kwargs: Any) -> DiagnosisInput:
    series = [_s("sum", "read_iops", [5000.0] * N), *_quiet_hosts()]
    series += [
        _s("server:disk", "disk_util_percent", [util] * N),
        _s("server:disk", "disk_queue_depth", [queue] * N),
    ]
    return _input(series, tool="fio", proto="", summary={"read_iops": 5000.0}, **kwargs)


def test_a_busy_disk_is_the_device() -> None:
    verdict = diagnose(_fio(99.0, 31.5))
    assert (verdict.limit, verdict.host) == ("device", "server")
    assert (
        verdict.evidence[0]
        == "vda 99 % busy, 31.5 I/Os in flight on average (100 % of the intervals)"
    )


def test_fio_at_its_rate_iops_is_the_rate() -> None:
    verdict = diagnose(_fio(40.0, 1.0, target=Target("iops", 5000.0, "rate_iops=5000")))
    assert verdict.limit == "rate"


def test_fio_with_an_idle_disk_and_idle_cores_is_unknown_with_the_disk_as_evidence() -> None:
    verdict = diagnose(_fio(40.0, 1.0))
    assert (verdict.limit, verdict.host) == ("unknown", "server")
    assert "vda 40 % busy" in verdict.evidence[0]


def test_fio_without_disk_statistics_says_why() -> None:
    telemetry = {"hosts": {"server": {"notes": ["disk: no block device holds /dev/shm/x"]}}}
    given = DiagnosisInput("fio", "completed", {"read_iops": 1.0}, _quiet_hosts(), telemetry)
    assert diagnose(given) == Diagnosis(
        "unknown", None, ("disk: no block device holds /dev/shm/x",)
    )


@pytest.mark.parametrize(
    "payload",
    [None, [], {"limit": "fast"}, {"limit": 3}, {"host": "client"}, "network"],
)
def test_a_damaged_stored_verdict_reads_as_none(payload: Any) -> None:
    assert from_payload(payload) is None


def test_a_verdict_round_trips_through_its_json() -> None:
    verdict = Diagnosis("cpu", "server", ("a", "b"))
    assert from_payload(verdict.payload()) == verdict
    assert verdict.label() == "cpu (server)"
    assert verdict.sentence() == "Limited by cpu on the server: a"
    assert Diagnosis("unknown", None, ("why",)).sentence() == "Limit unknown: why"
