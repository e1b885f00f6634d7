"""The client-side bound on a team server call (``library/team/watchdog.py``), on a real
socket pair: a call that hears nothing is cut (its blocked read returns), a call that keeps
making progress is not, ``cut`` ends one at once from another thread, and a closed watchdog
never touches the descriptor again."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from pairbench.library.team.watchdog import CallWatchdog


@pytest.mark.timeout(30)
def test_a_call_that_hears_nothing_is_cut_after_its_bound() -> None:
    a, b = socket.socketpair()
    with a, b:
        watch = CallWatchdog(a.fileno, 0.2)
        with watch.call():
            assert a.recv(1) == b""  # blocked until the watchdog shut the socket
        assert watch.fired_after == pytest.approx(0.2)
        watch.close()


@pytest.mark.timeout(30)
def test_a_call_making_progress_is_not_cut_and_extra_time_counts() -> None:
    a, b = socket.socketpair()
    with a, b:
        watch = CallWatchdog(a.fileno, 1.0)

        def send() -> None:
            for _ in range(20):
                b.send(b"x")
                time.sleep(0.1)  # 2 s in all: twice the bound, in steps of a tenth of it

        sender = threading.Thread(target=send)
        sender.start()
        got = b""
        with watch.call():
            while len(got) < 20:
                chunk = a.recv(20)
                assert chunk, "cut while the peer was still sending"
                got += chunk
                watch.progress()
        sender.join()
        assert watch.fired_after is None
        with watch.call(extra_s=1.0):  # an allowed wait: the bound is 2 s now
            b.send(b"y")
            assert a.recv(1) == b"y"
        assert watch.fired_after is None
        watch.close()


@pytest.mark.timeout(30)
def test_cut_ends_a_blocked_call_at_once_and_a_closed_watchdog_touches_nothing() -> None:
    a, b = socket.socketpair()
    with a, b:
        watch = CallWatchdog(a.fileno, 600.0)
        threading.Timer(0.1, watch.cut).start()
        with watch.call():
            assert a.recv(1) == b""
        assert watch.fired_after is None  # cut on purpose, not by the bound
        watch.close()
    c, d = socket.socketpair()
    with c, d:
        closed = CallWatchdog(c.fileno, 0.01)
        closed.close()
        closed.cut()
        with closed.call():
            time.sleep(0.05)
        d.send(b"z")
        assert c.recv(1) == b"z"  # still open
