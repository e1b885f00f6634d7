"""When a run's tool went quiet (a data-path outage) and for how long: the stall watch."""

from __future__ import annotations

from pairbench.domain import Record
from pairbench.domain.failures import StalledOutError

# A tool that reports nothing for this many of its intervals (and at least STALL_MIN_S) has
# stalled: its data path is down, or it is blocked. The first report may take longer
# (STARTUP_GRACE_S: a server handshake, fio laying out its files).
STALL_INTERVALS = 3
STALL_MIN_S = 3.0
STARTUP_GRACE_S = 10.0
# A stall still going this long after the run should have ended ends the run (a run of no
# known length: a stall this long past its start, once the tool has reported).
STALL_OVERRUN_S = 30.0
# Quiet that begins this close to the expected end (plus one interval) is the tool finishing.
END_SLACK_S = 1.0


# The metrics that say data moved; a record whose values of these are all zero shows none.
DATA_METRICS = frozenset(
    {"throughput_bps", "packets", "ops_per_s", "read_iops", "write_iops", "rtt_ms"}
)


def shows_data(records: list[Record]) -> bool:
    """False when every data metric of every record is zero (a tool reporting an outage);
    True otherwise, also for records without data metrics (nothing to judge by)."""
    judged = False
    for record in records:
        for metric, value in zip(record.metrics, record.values, strict=False):
            if metric in DATA_METRICS:
                if value:
                    return True
                judged = True
    return not judged


class StallWatch:
    """When a run's tool went quiet and for how long (times in seconds since it started)."""

    def __init__(self, interval_s: float, expected_s: float) -> None:
        self.interval_s = max(interval_s, 0.01)
        self.expected_s = expected_s
        self.quiet_after_s = max(STALL_MIN_S, STALL_INTERVALS * self.interval_s)
        self.started: float | None = None
        self.last_report: float | None = None
        self.stall_since: float | None = None
        self.outages: list[tuple[float, float]] = []  # (start, length), seconds since start

    def start(self, now: float) -> None:
        self.started = now

    def report(self, now: float, flowing: bool = True) -> str | None:
        """A report arrived at ``now``; a notice if it ends a stall. A report that shows no
        data at all (``flowing`` false: iperf3's "0.00 bits/sec" while the link is down) is
        no sign of life of the data path: the quiet goes on."""
        if not flowing:
            return None
        notice = None
        if self.stall_since is not None and self.started is not None:
            length = max(0.0, now - self.stall_since - self.interval_s)
            self.outages.append((self.stall_since - self.started, length))
            notice = f"reports again after {length:.1f} s without data"
            self.stall_since = None
        self.last_report = now
        return notice

    def check(self, now: float) -> str | None:
        """Called regularly: a notice when a stall begins. Raises ``StalledOutError`` when the
        tool stays quiet past the expected end of the run by ``STALL_OVERRUN_S``.

        Quiet that begins in the run's last interval is the tool finishing (nuttcp waits a
        few seconds for the receiver's figures after UDP), not an outage.
        """
        if self.started is None:
            return None
        quiet_since = self.last_report if self.last_report is not None else self.started
        allowance = self.quiet_after_s
        if self.last_report is None:
            allowance = max(allowance, STARTUP_GRACE_S)
        quiet = now - quiet_since > allowance
        if quiet and self.expected_s > 0 and now - self.started > self.expected_s + STALL_OVERRUN_S:
            raise StalledOutError(
                f"no report for {now - quiet_since:.0f} s, past the run's expected end"
            )
        if (
            quiet
            and self.expected_s <= 0
            and self.last_report is not None
            and now - quiet_since > allowance + STALL_OVERRUN_S
        ):
            # A run of no known length (iperf3 by bytes or blocks) has no expected end to
            # wait for: a stall that lasts this long ends it.
            raise StalledOutError(
                f"no report for {now - quiet_since:.0f} s in a run of no fixed length"
            )
        if self.stall_since is not None or not quiet:
            return None
        finishing = self.expected_s > 0 and (
            quiet_since - self.started >= self.expected_s - self.interval_s - END_SLACK_S
        )
        if finishing:
            return None
        self.stall_since = quiet_since
        return (
            f"no report for {now - quiet_since:.0f} s (from {quiet_since - self.started:.1f} s "
            "into the run): the data path may be down; the run goes on and is stored as stalled"
        )

    def finish(self, now: float) -> None:
        """The run ended: a stall still going lasts until now."""
        if self.stall_since is not None and self.started is not None:
            self.outages.append((self.stall_since - self.started, now - self.stall_since))
            self.stall_since = None

    def describe(self) -> str | None:
        """E.g. "stalled: no data from 4.0 s for 6.2 s", or None without outages."""
        if not self.outages:
            return None
        parts = [f"from {start:.1f} s for {length:.1f} s" for start, length in self.outages[:5]]
        more = f" and {len(self.outages) - 5} more" if len(self.outages) > 5 else ""
        total = sum(length for _, length in self.outages)
        return (
            f"stalled: the tool reported no data {', '.join(parts)}{more} "
            f"({total:.1f} s in all); the figures include the outage"
        )
