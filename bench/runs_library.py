"""A library of many varied runs (pairs, tools, statuses, labels, tags, a year of start times)
for the run-listing benchmarks; runs only, no samples (listing never reads them)."""

from __future__ import annotations

import json
import random
import sqlite3
import time
from pathlib import Path

from pairbench.library import Library

RUNS = 10_000
YEAR_START = 1_735_689_600.0  # 2025-01-01 00:00 UTC: start times spread over 2025
YEAR_S = 365 * 86_400.0
PAIRS = ("local", "eu-west a-b", "eu-west a-c", "us-east cross-az", "lab", "wan berlin-paris")
TOOLS = {
    "iperf3": ("throughput_bps", "retransmits", "cwnd_bytes"),
    "ping": ("rtt_min_ms", "rtt_avg_ms", "rtt_max_ms", "rtt_mdev_ms", "lost_percent"),
    "uperf": ("throughput_bps", "ops_per_s", "latency_avg_us"),
    "fio": ("read_iops", "write_iops", "read_bytes_per_s", "read_lat_p99_us"),
    "nuttcp": ("throughput_bps", "lost_percent"),
}
STATUSES = ("completed",) * 16 + ("failed", "failed", "cancelled", "interrupted", "stalled")
LABELS = ("", "", "", "baseline", "MTU 9001", "after kernel update", "cross zone, 10 streams")
TAG_KEYS = ("zone", "instance", "mtu", "kernel", "ticket")
TAG_VALUES = ("a", "b", "c5.large", "r4.large", "9001", "1500", "6.1", "OPS-1234")


def _facts(rng: random.Random) -> str:
    role = {
        "kernel": f"6.1.0-{rng.randint(10, 28)}-cloud-amd64",
        "cpu": "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz",
        "cpus": str(rng.choice((2, 4, 8, 16))),
        "mtu": rng.choice(("1500", "9001")),
        "qdisc": "fq_codel",
        "driver": "ena",
    }
    return json.dumps({"client": role, "server": role}, sort_keys=True, separators=(",", ":"))


def _row(run_id: int, started: float, rng: random.Random) -> tuple[object, ...]:
    tool = rng.choice(tuple(TOOLS))
    status = rng.choice(STATUSES)
    summary = {m: rng.uniform(0.1, 1e10) for m in TOOLS[tool]}
    if tool == "iperf3":
        summary["retransmits"] = rng.randint(0, 5000)  # an integer, as parsers give it
    params = {"duration": str(rng.choice((10, 30, 60, 300))), "streams": str(rng.randint(1, 16))}
    tags = {k: rng.choice(TAG_VALUES) for k in rng.sample(TAG_KEYS, rng.randint(0, 3))}
    notes = "" if rng.random() < 0.9 else "Saw retransmits during the maintenance window"
    error = None if status == "completed" else f"{tool} exited early"
    duration = float(params["duration"])
    return (
        run_id,
        rng.choice(PAIRS),
        tool,
        f"{tool} 3.{rng.randint(9, 17)}",
        json.dumps(params, sort_keys=True, separators=(",", ":")),
        status,
        started,
        started + duration,
        started + duration,
        json.dumps(summary, sort_keys=True, separators=(",", ":")),
        int(status == "completed"),
        _facts(rng),
        rng.choice(LABELS),
        json.dumps(tags, sort_keys=True, separators=(",", ":")),
        notes,
        error,
    )


def build(path: Path, runs: int = RUNS, seed: int = 14) -> float:
    """Create the library at ``path`` holding ``runs`` finished runs; seconds it took."""
    begin = time.perf_counter()
    Library.open(path).close()
    rng = random.Random(seed)
    starts = sorted(YEAR_START + rng.random() * YEAR_S for _ in range(runs))
    rows = [_row(i + 1, t, rng) for i, t in enumerate(starts)]
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO runs (id, pair, tool, tool_version, params, status, started_at, ended_at, "
        "updated_at, summary, summary_complete, host_facts, label, tags, notes, error) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.execute("COMMIT")
    conn.close()
    return time.perf_counter() - begin
