"""Make ``release-v3.pblib``: a library written by the released code (schema 3), and its golden.

How the committed files were made (from the repository root, with the code of the last release
before the runs' indexes and the shared time axis, schema version 3)::

    rm -rf /tmp/pb-release && mkdir /tmp/pb-release
    git archive 0caf43c | tar -x -C /tmp/pb-release
    PYTHONPATH=/tmp/pb-release/app .venv/bin/python tests/data/libraries/make_release_library.py

Only that release's own code paths write the library: ``import_output`` of three captures
(iperf3, fio, ping), the ``Recorder`` for three live-recorded runs (an iperf3 run of eight
streams with a stream that starts late, a metric that appears late and a stream whose time
stamps differ; a fio run whose two jobs report at their own times; an interrupted ping run left
uncompacted), ``compact_series``, ``store_analysis``, tags. ``release-v3.golden.json`` holds
every series as that release's ``load_series`` returned it (base64 of the little-endian
float64 bytes), for tests/unit/test_library_time_axis.py to compare byte for byte after the
migration.
"""

from __future__ import annotations

import base64
import json
import math
import sqlite3
import sys
from pathlib import Path

from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.engine.importing import import_output
from pairbench.library import Library, Recorder
from pairbench.library.analyses import store_analysis
from pairbench.library.migrations import SCHEMA_VERSION
from pairbench.library.runs import create_run, finish_run
from pairbench.library.series import compact_series, load_series

HERE = Path(__file__).resolve().parent
CAPTURES = HERE.parent / "captures"
LIBRARY = HERE / "release-v3.pblib"
GOLDEN = HERE / "release-v3.golden.json"
RELEASE_SCHEMA = 3
START = 1_795_000_000.0  # a fixed start time (2026-11-17), so the run rows are reproducible

IMPORTS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("iperf3", "iperf3/v321_tcp_P2_json.out", {"site": "lab", "kind": "capture"}),
    ("fio", "fio/normal_si1_randread_j2.out", {"disk": "vda"}),
    ("ping", "ping/c15_i02_lossy.out", {}),
)
_TCP = ("throughput_bps", "retransmits", "cwnd_bytes", "rtt_ms", "sender_throughput_bps")


def _wave(i: int, k: int) -> float:
    return 1e9 + 4e8 * math.sin(0.37 * i + 1.3 * k) + k


def _iperf3_live(lib: Library) -> int:
    """Eight TCP streams and their sum for 60 s, one flush a second, then compacted."""
    spec = RunSpec(
        pair="local",
        tool="iperf3",
        params={"streams": "8", "duration": "60"},
        label="eight streams",
        tags={"site": "lab", "cloud": "none"},
    )
    run_id = create_run(lib, spec, started_at=START)
    recorder = Recorder(lib, run_id)
    streams = ["5", "7", "9", "11", "13", "15", "17", "19"]
    for second in range(1, 61):
        t = float(second)
        records = [Record("sum", t, ("throughput_bps", "retransmits"), (_wave(second, 0), 0.0))]
        for k, stream in enumerate(streams, 1):
            if stream == "19" and second < 10:
                continue  # a stream that starts late: its series begin at 10 s
            metrics = (*_TCP, "lost_packets") if stream == "5" and second >= 20 else _TCP
            at = t + 0.0005 if stream == "17" else t  # its own time stamps, never shared
            values = tuple(_wave(second, k * 10 + j) for j in range(len(metrics)))
            records.append(Record(stream, at, metrics, values))
        recorder.add(records)
        recorder.flush()
    finish_run(
        lib,
        run_id,
        RunStatus.COMPLETED,
        summary={"throughput_bps": 8.1e9},
        complete=True,
        ended_at=START + 61,
    )
    compact_series(lib.conn, run_id)
    store_analysis(
        lib, run_id, "burst", {"burst_bps": 9.5e9, "base_bps": 5e9, "step_s": 12.5}, now=START + 62
    )
    return run_id


def _fio_live(lib: Library) -> int:
    """Two fio jobs that report at their own times (0.5 s apart), flushed every 0.2 s."""
    spec = RunSpec(pair="local", tool="fio", params={"rw": "randrw"}, tags={"disk": "vda"})
    run_id = create_run(lib, spec, started_at=START + 100)
    recorder = Recorder(lib, run_id)
    metrics = ("read_iops", "write_iops", "read_lat_mean_us")
    for tick in range(1, 41):
        job, t = ("reader", tick * 0.5) if tick % 2 else ("writer", tick * 0.5 + 0.01)
        recorder.add([Record(job, t, metrics, tuple(_wave(tick, j) for j in range(3)))])
        if tick % 3 == 0:
            recorder.flush()
    recorder.flush()
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={}, complete=False, ended_at=START + 121)
    compact_series(lib.conn, run_id)
    return run_id


def _ping_interrupted(lib: Library) -> int:
    """A ping run that stopped after 12 s; never compacted (one chunk per flush stays)."""
    spec = RunSpec(pair="local", tool="ping", params={"interval": "0.2"}, label="lossy link")
    run_id = create_run(lib, spec, started_at=START + 200)
    recorder = Recorder(lib, run_id)
    for tick in range(60):
        recorder.add([Record("sum", tick * 0.2, ("rtt_ms",), (10 + math.cos(tick),))])
        recorder.flush()
    finish_run(lib, run_id, RunStatus.INTERRUPTED, summary={}, complete=False, ended_at=START + 212)
    return run_id


def _golden(lib: Library) -> dict[str, object]:
    runs = []
    for (run_id,) in lib.conn.execute("SELECT id FROM runs ORDER BY id").fetchall():
        series = [
            {
                "stream": s.stream,
                "metric": s.metric,
                "unit": s.unit,
                "t": base64.b64encode(s.t.astype("<f8").tobytes()).decode("ascii"),
                "v": base64.b64encode(s.v.astype("<f8").tobytes()).decode("ascii"),
            }
            for s in load_series(lib, int(run_id))
        ]
        runs.append({"id": int(run_id), "series": series})
    return {"schema_version": RELEASE_SCHEMA, "runs": runs}


def main() -> int:
    if SCHEMA_VERSION != RELEASE_SCHEMA:
        print(f"run this with the release code of schema {RELEASE_SCHEMA}", file=sys.stderr)
        return 2
    for suffix in ("", "-wal", "-shm"):
        Path(f"{LIBRARY}{suffix}").unlink(missing_ok=True)
    lib = Library.open(LIBRARY)
    try:
        for tool, capture, tags in IMPORTS:
            text = (CAPTURES / capture).read_text(encoding="utf-8")
            import_output(lib, tool, text, source_name=Path(capture).name, tags=tags)
        _iperf3_live(lib)
        _fio_live(lib)
        _ping_interrupted(lib)
        golden = _golden(lib)
    finally:
        lib.close()
    conn = sqlite3.connect(LIBRARY)
    conn.execute("VACUUM")
    conn.close()
    journal = LIBRARY.with_name(f"{LIBRARY.name}.progress")  # empty: every run finished
    if journal.is_dir():
        journal.rmdir()
    GOLDEN.write_text(json.dumps(golden, indent=1) + "\n", encoding="utf-8")
    print(f"{LIBRARY.name}: {LIBRARY.stat().st_size} bytes; {GOLDEN.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
