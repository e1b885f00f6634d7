"""The summary of a uperf master's output: the timed transaction's headline figures, every final
figure uperf printed (``uperf_details``), UDP loss, and whether the output was complete."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from pairbench.domain import Summary
from pairbench.tools.uperf_details import FinalPoint, detail_values
from pairbench.tools.uperf_forms import NO_LATENCY_REASON, NO_STATS_REASON, form_name, no_stats
from pairbench.tools.uperf_tables import AvgRow, RunstatRow

__all__ = ["EndTables", "summarise"]


@dataclass
class EndTables:
    """What a uperf master prints after its transactions, as read, rows in uperf's order: the
    Total line, the Txn and Flowop tables, the Run Statistics rows (by host) and the
    ``Difference(%)`` line."""

    total: FinalPoint | None = None
    total_seen: bool = False
    txn_rows: list[AvgRow] = field(default_factory=list)
    flowop_rows: list[AvgRow] = field(default_factory=list)
    runstats: dict[str, RunstatRow] = field(default_factory=dict)
    diff: tuple[float, ...] | None = None


@dataclass(frozen=True, slots=True)
class Timed:
    """The timed (main) transaction as its progress or raw lines gave it: ``throughput_bps``
    and ``ops_per_s`` over its whole length, and the mean iteration time those lines give
    (None without the profile's flowops per iteration)."""

    number: int  # uperf's TxnN
    seen: bool
    rates: Mapping[str, float]
    interval_latency_us: float | None
    ops_per_iteration_known: bool


def _lost_percent(end: EndTables) -> float | None:
    """The Run Statistics ``Difference(%)`` bytes column: the share of the bytes the master
    counted that the slave did not (100 when the slave counted none, 0 when negative)."""
    if end.diff is None:
        return None
    lost = end.diff[1]
    runstats = end.runstats
    master = runstats.get("master")
    slaves = [v for k, v in runstats.items() if k not in ("master", "Total")]
    slave_bytes = runstats["Total"].nbytes if "Total" in runstats else sum(v.nbytes for v in slaves)
    if master is not None and master.nbytes > 0.0 and slaves and slave_bytes == 0.0:
        lost = 100.0  # uperf prints 0% when the slave counted nothing
    if not math.isfinite(lost):
        return None
    return lost if lost > 0.0 else 0.0


def summarise(
    end: EndTables,
    points: Mapping[str, FinalPoint],
    timed: Timed | None,
    *,
    udp: bool,
    errors: list[str],
    seen: int,
) -> Summary:
    """The run's summary (``UperfTextParser``'s docstring says where each value comes from):
    the timed transaction's ``throughput_bps``, ``ops_per_s`` and ``latency_avg_us`` (its Txn
    table row, else its lines; none for a profile of several groups), ``total_throughput_bps``,
    UDP's ``lost_percent``, then every final figure uperf printed
    (``uperf_details.detail_values``)."""
    details = detail_values(points, end.total, end.txn_rows, end.flowop_rows, end.runstats)
    # Several groups (the Txn table starts again): the timed transaction has a row per group,
    # and its latency is each group's own (``group1_txn2_avg_us``...), no headline.
    groups = any(key.startswith("group1_") for key in details)
    values: dict[str, float] = {}
    table_latency: float | None = None
    if timed is not None:
        values.update(timed.rates)
        table_latency = None if groups else details.get(f"txn{timed.number}_avg_us")
        latency = table_latency if table_latency is not None else timed.interval_latency_us
        if latency is not None:
            values["latency_avg_us"] = latency
    master = end.runstats.get("master")
    if end.total is not None and end.total.rate is not None:
        values["total_throughput_bps"] = end.total.rate
    elif master is not None:
        values["total_throughput_bps"] = master.rate
    if udp and (lost := _lost_percent(end)) is not None:
        values["lost_percent"] = lost
    values.update(details)
    error = "; ".join(errors) if errors else None
    complete, reason = end.total_seen, None
    if no_stats(seen, stats=complete or bool(points), errors=error is not None):
        return Summary(
            values=values,
            complete=False,
            error=None,
            form=form_name(seen, no_stats=True),
            reason=NO_STATS_REASON,
        )
    if (
        complete
        and timed is not None
        and timed.seen
        and not groups
        and table_latency is None
        and not timed.ops_per_iteration_known
    ):
        complete, reason = False, NO_LATENCY_REASON
    form = form_name(seen) or ("text" if error is not None else "")
    return Summary(values=values, complete=complete, error=error, form=form, reason=reason)
