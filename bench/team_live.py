"""team_live: the delay from a sample recorded on one machine to its arrival at a watcher of
the team library (issue 18: p99 ≤ 2 s).

A run records a sample every 50 ms through the library's own ``Recorder`` (flushing as the
engine does); each sample's value is the wall time it was recorded. The ``LivePublisher``
(the thread the CLI runs beside a recording command) publishes the run each second; a watcher
on its own connection LISTENs, and on each notification loads the run's series from the
server and computes, for every sample it had not seen, now − the sample's value. The ratio
is the p99 delay ÷ the publisher's interval (the cadence a run is sent at, the floor of any
delay by design): target ≤ 2 (so ≤ 2 s at the 1 s interval)."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path

from bench import team_setup
from bench.common import Out, Verdict, fmt, median
from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.library import Library
from pairbench.library.recorder import Recorder
from pairbench.library.runs import create_run, finish_run
from pairbench.library.team import local
from pairbench.library.team.store import TeamStore
from pairbench.library.team.watch import LiveListener
from pairbench.services.team_live import LIVE_INTERVAL_S, LivePublisher, LiveTarget

NAME = "team_live"
TARGET_RATIO = 2.0
SAMPLE_EVERY_S = 0.05
METRICS = ("throughput_bps",)


def _record(path: Path, run_id: int, seconds: float, done: threading.Event) -> None:
    """Record a sample every 50 ms for ``seconds`` (value = its wall time), then finish."""
    with Library.open(path, recover=False, check=False) as lib:
        recorder = Recorder(lib, run_id)
        end = time.monotonic() + seconds
        t = 0.0
        while time.monotonic() < end:
            recorder.add([Record("sum", t, METRICS, (time.time(),))])
            recorder.flush_if_due()
            t += SAMPLE_EVERY_S
            time.sleep(SAMPLE_EVERY_S)
        recorder.flush()
        finish_run(lib, run_id, RunStatus.COMPLETED, summary={}, complete=True)
    done.set()


def _watch(store: TeamStore, uuid: str, done: threading.Event) -> list[float]:
    """Delays of every sample the watcher saw arrive, until the run ended."""
    listener = LiveListener(store)
    seen = 0
    delays: list[float] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        heard = listener.wait(1.0)
        if uuid not in heard:
            if done.is_set() and not heard:
                break
            continue
        now = time.time()
        [series] = store.load_series(uuid)
        values = series.v.tolist()
        delays.extend(now - v for v in values[seen:])
        seen = len(values)
    return delays


def run(quick: bool, out: Out) -> Verdict:
    team_setup.check()
    seconds = 8.0 if quick else 30.0
    folder = tempfile.TemporaryDirectory(prefix="pb-bench-live-")
    with folder as tmp, team_setup.running() as server:
        path = Path(tmp) / "library.sqlite"
        url = server.url(team_setup.ROLE)
        with Library.open(path) as lib:
            local.set_setting(lib, local.URL, url)
            local.set_setting(lib, local.AUTO, "on")
            run_id = create_run(lib, RunSpec("local", "iperf3", {}))
            uuid = local.run_uuid(lib, run_id)
        watcher_store = team_setup.store(server)
        # The publisher finds the password as a user's would: libpq's PGPASSWORD.
        os.environ["PGPASSWORD"] = server.password(team_setup.ROLE)
        publisher = LivePublisher(path, LiveTarget(url, "bench"))
        done = threading.Event()
        recorder = threading.Thread(target=_record, args=(path, run_id, seconds, done))
        publisher.start()
        recorder.start()
        try:
            delays = _watch(watcher_store, uuid, done)
        finally:
            recorder.join(60)
            publisher.stop()
            watcher_store.close()
    if not delays:
        out("  the watcher heard no sample")
        return Verdict(NAME, float("nan"), TARGET_RATIO, "the publish interval")
    ordered = sorted(delays)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    p50 = median(ordered)
    out(f"  {len(delays)} samples over {seconds:.0f} s, {publisher.published} live copies")
    out(f"  delay: p50 {fmt(p50)} s, p99 {fmt(p99)} s, max {fmt(ordered[-1])} s")
    return Verdict(
        NAME,
        p99 / LIVE_INTERVAL_S,
        TARGET_RATIO,
        f"the publish interval ({LIVE_INTERVAL_S:g} s)",
        info=f"p99 {fmt(p99)} s, p50 {fmt(p50)} s (issue target p99 <= 2 s)",
    )
