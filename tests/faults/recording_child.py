"""A stand-in for the window that records a run: two connections to one library in one
process (the window's GUI thread and its engine thread), a run fed by the real Recorder, and
a line on stdout after every commit with the number of samples committed so far.

It commits when told: each line on stdin asks for one more flush of 10 samples, answered by
``committed N`` once the commit returned, so the parent knows exactly what was committed
when it sends SIGKILL; ``checkpoint`` asks for a checkpoint of the write-ahead log."""

from __future__ import annotations

import sys

from pairbench.domain import Record, RunSpec
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run


def main(path: str) -> None:
    gui = Library.open(path)  # the window's own connection, opened first
    engine = Library.open(path)  # the engine thread's, opened second (as the bridge does)
    run_id = create_run(engine, RunSpec(pair="local", tool="iperf3", label="fault trial"))
    print(f"run {run_id}", flush=True)
    recorder = Recorder(engine, run_id)
    t = 0.0
    for request in sys.stdin:
        if request.strip() == "checkpoint":  # as SQLite's own automatic checkpoint would
            engine.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            print("checkpointed", flush=True)
            continue
        for _ in range(10):
            t += 1.0
            recorder.add([Record("sum", t, ("throughput_bps",), (t * 1e6,))])
        recorder.flush()
        gui.conn.execute("SELECT COUNT(*) FROM runs").fetchone()  # the window reads too
        print(f"committed {recorder.samples_written}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
