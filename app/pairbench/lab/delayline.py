"""The delay line daemon: holds or drops packets crossing the lab's wan (kernels without netem).

Run in ``pbl-wan`` as ``python -m pairbench.lab.delayline --iface PORT ...``, one per direction.
An nftables rule owned by the daemon's netlink socket queues every IPv4 packet arriving on the
port to NFQUEUE; the daemon reads only each packet's id and kernel arrival stamp (no payload is
copied), decides at once whether it is lost, and accepts the rest in order once their delay has
passed (one batch verdict covers every packet due). Jitter is uniform within ±jitter and never
reorders packets. The rule vanishes with the socket, and the queue is bypassed while no daemon
listens, so a dead daemon leaves an unimpaired path rather than a broken one.

Why in a namespace between the hosts: held on the sender's way out, packets would still count
against TCP Small Queues (throughput collapses with delay); held on the receiver's way in, they
would already carry their receive timestamp (ping would not see the delay). In ``pbl-wan`` the
sender has let go of them and the receiver has not stamped them yet, as with netem on a router.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import random
import select
import signal
import socket
import sys
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from pairbench.lab.netlink import (
    NetfilterSocket,
    NetlinkError,
    bind_queue,
    delete_table,
    install_queue_rule,
    queued_packets,
    verdict,
)

TABLE_PREFIX = "pairbench_lab_"
QUEUE_MAXLEN = 50_000
RCVBUF_BYTES = 16 * 1024 * 1024
IDLE_WAKEUP_S = 0.2
MAX_READS_PER_WAKEUP = 4096
SO_TIMESTAMPNS = 35
# How much earlier than a deadline to wake up, learnt from how late select() returns.
LATENESS_WEIGHT = 0.25
MAX_EARLY_S = 0.0005
SPIN_MARGIN_S = 0.0002
SPARSE_PACKETS = 4
PR_SET_TIMERSLACK = 29
RT_PRIORITY = 10
MAX_STAMP_AGE_S = 0.5


class Tally:
    """Count, mean and maximum of a quantity in seconds (for the log)."""

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.largest = 0.0

    def add(self, value: float) -> None:
        """Count one value."""
        self.count += 1
        self.total += value
        self.largest = max(self.largest, value)

    def describe(self) -> str:
        """``mean/max in µs over N``."""
        mean = self.total / self.count if self.count else 0.0
        return f"mean {mean * 1e6:.0f} us, max {self.largest * 1e6:.0f} us over {self.count}"


@dataclass(frozen=True, slots=True)
class Settings:
    """What one delay line does to the packets arriving on ``iface``."""

    iface: str
    queue: int
    delay_us: int
    jitter_us: int
    loss_percent: float
    seed: int | None = None


class DelayLine:
    """The queue socket, the rule's socket and the packets waiting for their time."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.early = 0.0
        self.calibrate()  # before the rule: packets must not wait for this
        self.table = TABLE_PREFIX + settings.iface
        self.rules = NetfilterSocket()
        self.queue = NetfilterSocket(rcvbuf=RCVBUF_BYTES)
        bind_queue(self.queue, settings.queue, QUEUE_MAXLEN)
        self.owned = install_queue_rule(self.rules, self.table, settings.iface, settings.queue)
        # Any socket asking for receive timestamps makes the kernel stamp every packet on
        # arrival; the queue passes the stamp on, so the delay counts from the real arrival.
        self.stamper = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.stamper.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.pending: deque[tuple[float, int]] = deque()
        self.lateness = Tally()
        self.noticed = Tally()
        self.last_deadline = 0.0
        self.released = 0
        self.dropped = 0
        self.stopping = False
        self.rng = random.Random(settings.seed)

    def calibrate(self, rounds: int = 20, sleep_s: float = 0.005) -> None:
        """Learn how late select() wakes up here: the median over short idle sleeps."""
        late = []
        for _ in range(rounds):
            start = time.monotonic()
            select.select([], [], [], sleep_s)
            late.append(time.monotonic() - start - sleep_s)
        late.sort()
        self.early = min(max(late[len(late) // 2], 0.0), MAX_EARLY_S)

    def run(self) -> None:
        """Serve until ``stopping`` is set, then let every waiting packet through."""
        buffer = bytearray(65536)
        view = memoryview(buffer)
        fd = self.queue.fileno()
        while not self.stopping:
            now = time.monotonic()
            # Few packets waiting (ping, request/response): wake a little earlier and spin to
            # the deadline. Many (bulk transfer): trust the learnt lateness, spare the CPU.
            spin = SPIN_MARGIN_S if len(self.pending) <= SPARSE_PACKETS else 0.0
            due = self.pending[0][0] - self.early - spin if self.pending else now + IDLE_WAKEUP_S
            timeout = min(due - now, IDLE_WAKEUP_S)
            if timeout > 0:
                ready, _, _ = select.select([fd], [], [], timeout)
                woke = time.monotonic()
                if not ready and self.pending and due - now < IDLE_WAKEUP_S:
                    self.early += LATENESS_WEIGHT * (woke - due - self.early)
                    self.early = min(max(self.early, 0.0), MAX_EARLY_S)
                self._read(view)
            else:
                self._read(view)
            self._release(time.monotonic())
        self._release(float("inf"))

    def _read(self, view: memoryview) -> None:
        delay = self.settings.delay_us / 1e6
        jitter = self.settings.jitter_us / 1e6
        loss = self.settings.loss_percent / 100
        for _ in range(MAX_READS_PER_WAKEUP):
            try:
                size = self.queue.sock.recv_into(view, 0, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return
            received = time.monotonic()
            offset = time.time() - received
            for packet_id, stamp in queued_packets(view[:size]):
                arrived = received
                if stamp is not None and 0 <= received - (stamp - offset) < MAX_STAMP_AGE_S:
                    arrived = stamp - offset  # ignore stamps from another clock
                self.noticed.add(received - arrived)
                if loss and self.rng.random() < loss:
                    self.queue.send(verdict(self.settings.queue, packet_id, False, False))
                    self.dropped += 1
                    continue
                deadline = arrived + delay
                if jitter:
                    deadline = max(arrived, deadline + self.rng.uniform(-jitter, jitter))
                deadline = max(deadline, self.last_deadline)
                self.last_deadline = deadline
                self.pending.append((deadline, packet_id))

    def _release(self, now: float) -> None:
        last = None
        count = 0
        last_deadline = 0.0
        while self.pending and self.pending[0][0] <= now:
            last_deadline, last = self.pending.popleft()
            count += 1
        if last is not None:
            if now != float("inf"):
                self.lateness.add(time.monotonic() - last_deadline)
            self.queue.send(verdict(self.settings.queue, last, True, True))
            self.released += count

    def close(self) -> None:
        """Remove the rule (kernels that cannot tie it to the socket) and close the sockets."""
        if not self.owned:
            with contextlib.suppress(OSError):
                delete_table(self.rules, self.table)
        self.queue.close()
        self.rules.close()
        self.stamper.close()


def _parse(argv: Sequence[str] | None) -> tuple[Settings, Path, Path]:
    parser = argparse.ArgumentParser(prog="python -m pairbench.lab.delayline")
    parser.add_argument("--iface", required=True)
    parser.add_argument("--queue", type=int, default=0)
    parser.add_argument("--delay-us", type=int, default=0)
    parser.add_argument("--jitter-us", type=int, default=0)
    parser.add_argument("--loss-percent", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--pidfile", type=Path, required=True)
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args(argv)
    settings = Settings(
        args.iface, args.queue, args.delay_us, args.jitter_us, args.loss_percent, args.seed
    )
    return settings, args.pidfile, args.log


def _daemonise(pidfile: Path, log: Path) -> None:
    """Fork; the parent records the child's pid and exits 0 (so the caller knows it is ready)."""
    pid = os.fork()
    if pid:
        tmp = pidfile.with_suffix(".tmp")
        tmp.write_text(f"{pid}\n")
        os.replace(tmp, pidfile)
        os._exit(0)
    os.setsid()
    null = os.open(os.devnull, os.O_RDONLY)
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(null)
    os.close(out)


def _tight_timers() -> None:
    """1 µs timer slack (default 50 µs) and a real-time priority: the delay is held by select's
    timeout, and a busy machine would otherwise wake the daemon late (tens of ms at worst).
    """
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(RT_PRIORITY))


def main(argv: Sequence[str] | None = None) -> int:
    """Set up in the foreground (errors exit 1 with a message), then serve in the background."""
    settings, pidfile, log = _parse(argv)
    _tight_timers()
    try:
        line = DelayLine(settings)
    except (NetlinkError, OSError) as exc:
        print(f"delay line on {settings.iface}: cannot set up NFQUEUE: {exc}", file=sys.stderr)
        return 1
    _daemonise(pidfile, log)

    def stop(_signum: int, _frame: FrameType | None) -> None:
        line.stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    print(
        f"delay line ready (pid {os.getpid()}): {settings.iface} queue {settings.queue}, "
        f"delay {settings.delay_us} us ± {settings.jitter_us} us, loss {settings.loss_percent} %",
        flush=True,
    )
    try:
        line.run()
    finally:
        line.close()
        print(
            f"delay line stopped: {line.released} released, {line.dropped} dropped; "
            f"noticed after arrival: {line.noticed.describe()}; "
            f"released after deadline: {line.lateness.describe()}",
            flush=True,
        )
        if pidfile.exists() and pidfile.read_text().strip() == str(os.getpid()):
            pidfile.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
