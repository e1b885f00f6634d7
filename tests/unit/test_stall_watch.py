"""The stall watch: when a tool went quiet, for how long, and when a stall ends the run."""

from __future__ import annotations

import pytest

from pairbench.domain import Record
from pairbench.domain.failures import StalledOutError
from pairbench.engine.stall import STALL_OVERRUN_S, STARTUP_GRACE_S, StallWatch, shows_data


def _feed(watch: StallWatch, reports: list[float], until: float, step: float = 0.25) -> list[str]:
    """Reports at the given times (s since start), checks every ``step`` s up to ``until``."""
    notices: list[str] = []
    pending = sorted(reports)
    now = 0.0
    watch.start(1000.0)
    while now <= until:
        while pending and pending[0] <= now:
            note = watch.report(1000.0 + pending.pop(0))
            if note:
                notices.append(note)
        note = watch.check(1000.0 + now)
        if note:
            notices.append(note)
        now += step
    return notices


def test_steady_reports_never_stall() -> None:
    watch = StallWatch(1.0, 30.0)
    assert _feed(watch, [float(t) for t in range(1, 31)], 30.0) == []
    watch.finish(1030.0)
    assert watch.outages == [] and watch.describe() is None


def test_an_outage_is_found_said_and_measured() -> None:
    """Reports every second, none from 5 s to 13 s (the link was down 8 s)."""
    watch = StallWatch(1.0, 20.0)
    reports = [1, 2, 3, 4, 5, *range(14, 21)]
    notices = _feed(watch, [float(t) for t in reports], 20.0)
    assert len(notices) == 2
    assert "no report" in notices[0] and "stored as stalled" in notices[0]
    assert "again" in notices[1]
    [(start, length)] = watch.outages
    assert start == pytest.approx(5.0)
    assert length == pytest.approx(8.0, abs=0.3)
    assert "from 5.0 s for 8.0 s" in (watch.describe() or "")


def test_quiet_from_the_start_is_a_stall_after_the_grace() -> None:
    watch = StallWatch(1.0, 30.0)
    notices = _feed(watch, [], STARTUP_GRACE_S - 0.5)
    assert notices == []
    notices = _feed(StallWatch(1.0, 30.0), [], STARTUP_GRACE_S + 1.0)
    assert len(notices) == 1


def test_quiet_while_the_tool_finishes_is_no_stall() -> None:
    """nuttcp UDP: the last interval at 3 s of 4, then 4 s of quiet before its summary."""
    watch = StallWatch(1.0, 4.0)
    assert _feed(watch, [1.0, 2.0, 3.3], 8.0) == []
    watch.finish(1008.0)
    assert watch.outages == []


def test_a_stall_until_the_end_lasts_until_the_end() -> None:
    watch = StallWatch(1.0, 30.0)
    _feed(watch, [1.0, 2.0, 3.0], 20.0)
    watch.finish(1020.0)
    [(start, length)] = watch.outages
    assert start == pytest.approx(3.0) and length == pytest.approx(17.0)


def test_the_interval_sets_the_threshold() -> None:
    """ping -i 5: a 10 s gap is two missed replies, not a stall; 20 s is."""
    watch = StallWatch(5.0, 100.0)
    assert _feed(watch, [5.0, 10.0, 20.0, 25.0], 26.0) == []
    watch = StallWatch(5.0, 100.0)
    assert len(_feed(watch, [5.0, 10.0, 30.0], 31.0)) == 2


def test_a_stall_past_the_expected_end_ends_the_run() -> None:
    watch = StallWatch(1.0, 10.0)
    with pytest.raises(StalledOutError, match="past the run's expected end"):
        _feed(watch, [1.0, 2.0], 10.0 + STALL_OVERRUN_S + 1.0)


def test_reports_of_zero_data_are_quiet() -> None:
    """iperf3 during an outage prints intervals of 0.00 bits/sec: no sign of the data path."""
    watch = StallWatch(1.0, 20.0)
    watch.start(1000.0)
    for t in (1.0, 2.0):
        watch.report(1000.0 + t, flowing=True)
    notices = []
    for t in range(3, 10):
        watch.report(1000.0 + t, flowing=False)
        note = watch.check(1000.0 + t + 0.1)
        if note:
            notices.append(note)
    assert len(notices) == 1 and "from 2.0 s" in notices[0]
    assert watch.report(1010.0, flowing=True) is not None
    [(start, length)] = watch.outages
    assert start == 2.0 and length == 7.0


def test_shows_data_judges_the_data_metrics_only() -> None:
    zero = Record("sum", 1.0, ("throughput_bps", "retransmits"), (0.0, 5.0))
    some = Record("5", 1.0, ("throughput_bps",), (1e3,))
    other = Record("sum", 1.0, ("cwnd_bytes",), (0.0,))
    assert not shows_data([zero])
    assert shows_data([zero, some])
    assert shows_data([other])  # nothing to judge by


def test_a_run_of_no_fixed_length_ends_after_a_long_stall() -> None:
    """iperf3 by bytes: no expected end, so a stall that lasts ends it (once it reported)."""
    watch = StallWatch(0.1, 0.0)
    with pytest.raises(StalledOutError, match="no fixed length"):
        _feed(watch, [0.1 * n for n in range(1, 21)], 2.0 + 3.0 + STALL_OVERRUN_S + 1.0)
    quiet_start = StallWatch(1.0, 0.0)  # no report yet: fio may lay out files for long
    assert _feed(quiet_start, [], STALL_OVERRUN_S + STARTUP_GRACE_S + 5.0)


def test_a_tenth_of_a_second_interval_still_waits_three_seconds() -> None:
    """Reports every 0.1 s; quiet from 5.0 to 8.6 s (a stall), then from 9.0 to 11.6 s (not)."""
    watch = StallWatch(0.1, 20.0)
    reports = [0.1 * n for n in range(1, 51)] + [8.6, 8.7, 8.8, 8.9, 9.0, 11.6, 11.7]
    notices = _feed(watch, reports, 12.0, step=0.05)
    assert len(notices) == 2 and "from 5.0 s" in notices[0], notices
    assert watch.quiet_after_s == 3.0
