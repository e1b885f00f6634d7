"""Runs for comparison tests, stored through the library API and the Recorder (no lab needed).

``store_run`` writes one finished run with series, raw output, host facts and a summary;
``two_shapes`` stores the issue's scenario: 3 repeats on each of 2 lab shapes (pairs), with
one shape's kernel, MTU and congestion control differing.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from pairbench.domain import (
    AuthMethod,
    Host,
    HostPair,
    Line,
    LineSource,
    Record,
    RunSpec,
    RunStatus,
)
from pairbench.library import Library, Recorder
from pairbench.library.hosts import add_host, add_pair
from pairbench.library.runs import create_run, finish_run, set_run_facts, update_run_notes
from pairbench.library.series import compact_series

DAY = 1_717_200_000.0  # 2024-06-01 00:00 UTC


def add_lab_pair(lib: Library, name: str, description: str, tags: Mapping[str, str]) -> HostPair:
    """A pair of two SSH hosts (never contacted) with tags."""
    client = Host(f"{name}-c", "10.0.0.1", user="bench", auth=AuthMethod.AGENT, tags=dict(tags))
    server = Host(f"{name}-s", "10.0.0.2", user="bench", auth=AuthMethod.AGENT)
    add_host(lib, client)
    add_host(lib, server)
    pair = HostPair(name, client, server, "10.1.0.2", description, dict(tags))
    add_pair(lib, pair)
    return pair


def store_run(
    lib: Library,
    *,
    pair: str = "local",
    tool: str = "iperf3",
    label: str = "",
    summary: Mapping[str, float],
    series: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
    streams: Mapping[str, Mapping[str, tuple[np.ndarray, np.ndarray]]] | None = None,
    params: Mapping[str, str] | None = None,
    tags: Mapping[str, str] | None = None,
    facts: Mapping[str, Mapping[str, str]] | None = None,
    tool_version: str = "3.12",
    started_at: float = DAY,
    duration: float = 10.0,
    raw: list[tuple[LineSource, str]] | None = None,
    status: RunStatus = RunStatus.COMPLETED,
    notes: str = "",
) -> int:
    """Store one finished run; ``series`` are "sum" series by metric, ``streams`` others."""
    spec = RunSpec(pair, tool, dict(params or {}), label=label, tags=dict(tags or {}))
    run_id = create_run(lib, spec, started_at=started_at)
    set_run_facts(lib, run_id, tool_version=tool_version, host_facts=facts or {})
    recorder = Recorder(lib, run_id)
    all_streams = {"sum": dict(series or {}), **{k: dict(v) for k, v in (streams or {}).items()}}
    for stream, by_metric in all_streams.items():
        for metric, (t, v) in by_metric.items():
            recorder.add(
                [
                    Record(stream, float(a), (metric,), (float(b),))
                    for a, b in zip(t, v, strict=True)
                ]
            )
    for source, text in raw or [(LineSource.CLIENT_OUT, f"{tool} output of {label}")]:
        recorder.add_line(Line(source, text, 0.0))
    recorder.flush()
    finish_run(
        lib,
        run_id,
        status,
        summary=dict(summary),
        complete=status is RunStatus.COMPLETED,
        error=None if status is RunStatus.COMPLETED else "stopped",
        ended_at=started_at + duration,
    )
    if notes:
        update_run_notes(lib, run_id, notes=notes)
    compact_series(lib.conn, run_id)
    return run_id


def _facts(kernel: str, mtu: str, cc: str) -> dict[str, dict[str, str]]:
    host = {
        "kernel": kernel,
        "os": "Debian GNU/Linux 12 (bookworm)",
        "nic_driver": "veth",
        "mtu": mtu,
        "rmem_max": "212992",
        "wmem_max": "212992",
        "tcp_congestion_control": cc,
    }
    return {"client": dict(host), "server": dict(host)}


def two_shapes(lib: Library, seconds: int = 30) -> tuple[list[int], list[int]]:
    """3 repeats on shape A (same zone) and 3 on shape B (cross zone): run ids of each."""
    add_lab_pair(lib, "same-zone", "Same zone, 1 ms", {"cloud": "lab", "zone": "a"})
    add_lab_pair(lib, "cross-zone", "Cross zone, 10 ms", {"cloud": "lab", "zone": "b"})
    rng = np.random.default_rng(42)
    a_ids: list[int] = []
    b_ids: list[int] = []
    t = np.arange(1.0, seconds + 1.0)
    shapes = (
        ("same-zone", 941e6, 71.5, a_ids, _facts("6.1.0-18-amd64", "1500", "cubic")),
        ("cross-zone", 820e6, 650.0, b_ids, _facts("6.1.0-21-amd64", "9001", "bbr")),
    )
    for shape, (pair, rate, latency, ids, facts) in enumerate(shapes):
        for repeat in range(3):
            noise = rng.normal(0, rate * 0.01, t.size)
            v = rate + noise
            ids.append(
                store_run(
                    lib,
                    pair=pair,
                    label=f"repeat {repeat + 1}",
                    summary={
                        "throughput_bps": float(np.mean(v)),
                        "latency_avg_us": latency * (1 + 0.02 * repeat),
                        "retransmits": float(10 * shape + repeat),
                    },
                    series={"throughput_bps": (t, v), "retransmits": (t, np.zeros(t.size))},
                    params={"duration": str(seconds), "streams": "2" if shape else "1"},
                    tags={"shape": "A" if shape == 0 else "B"},
                    facts=facts,
                    started_at=DAY + 3600 * (shape * 3 + repeat),
                    duration=float(seconds),
                )
            )
    return a_ids, b_ids
