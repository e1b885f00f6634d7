"""uperf's own final figures under Pairbench's metric names: each transaction's last progress or
raw line, the Total line, every row of the Txn and Flowop tables, the Run Statistics rows."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from pairbench.tools.uperf_tables import AvgRow, RunstatRow

__all__ = ["FLOWOP_TYPES", "FinalPoint", "detail_values", "txn_row_names"]

# uperf 1.0.8's flowops (flowops.c), the names its Flowop table prints (lower-cased).
FLOWOP_TYPES: Final = frozenset(
    {
        "read",
        "write",
        "connect",
        "disconnect",
        "accept",
        "nop",
        "think",
        "send",
        "recv",
        "sendfile",
        "sendfilev",
    }
)
_TXN_RE: Final = re.compile(r"Txn([0-9]{1,6})")


@dataclass(frozen=True, slots=True)
class FinalPoint:
    """The last line uperf printed for a transaction (or the Total line): cumulative bytes,
    and the operations (raw ``-R`` lines, exact) or the seconds, bit/s and op/s it printed (the
    default progress lines). The fields a form does not print are None."""

    nbytes: float
    ops: float | None = None
    secs: float | None = None
    rate: float | None = None
    ops_rate: float | None = None


def _point_values(prefix: str, point: FinalPoint) -> dict[str, float]:
    values = {f"{prefix}_bytes": point.nbytes}
    if point.ops is not None:
        values[f"{prefix}_ops_count"] = point.ops
    if point.secs is not None:
        values[f"{prefix}_time_s"] = point.secs
    if point.rate is not None:
        values[f"{prefix}_throughput_bps"] = point.rate
    if point.ops_rate is not None:
        values[f"{prefix}_ops_per_s"] = point.ops_rate
    return values


def _row_values(prefix: str, row: AvgRow) -> dict[str, float]:
    return {
        f"{prefix}_count": row.n,
        f"{prefix}_avg_us": row.avg_us,
        f"{prefix}_max_us": row.max_us,
        f"{prefix}_min_us": row.min_us,
    }


def txn_row_names(rows: Iterable[AvgRow]) -> list[str]:
    """The metric prefix of each Txn table row, in order: uperf numbers the rows from 0 per
    group (``Txn0`` … again ``Txn0`` for the next group), its progress and raw lines from 1
    (``Txn1`` is the first transaction): row ``TxnK`` is ``txn{K+1}``, ``group{G}_txn{K+1}``
    in the G-th group after the first (uperf's ``Group{G}``: a new group begins where the
    numbering does not go up)."""
    names: list[str] = []
    group, previous = 0, -1
    for row in rows:
        m = _TXN_RE.fullmatch(row.name)
        if m is None:
            names.append("")
            continue
        index = int(m.group(1))
        if index <= previous:
            group += 1
        previous = index
        names.append(f"txn{index + 1}" if group == 0 else f"group{group}_txn{index + 1}")
    return names


def _flowop_names(rows: Iterable[AvgRow]) -> list[str]:
    """The metric prefix of each Flowop table row: its flowop's name, then ``write2``,
    ``write3``… for the later rows of the same name (another transaction's, another group's)."""
    seen: dict[str, int] = {}
    names: list[str] = []
    for row in rows:
        if row.name not in FLOWOP_TYPES:
            names.append("")
            continue
        seen[row.name] = seen.get(row.name, 0) + 1
        count = seen[row.name]
        names.append(row.name if count == 1 else f"{row.name}{count}")
    return names


def _runstat_values(prefix: str, row: RunstatRow) -> dict[str, float]:
    values = {
        f"{prefix}_time_s": row.secs,
        f"{prefix}_bytes": row.nbytes,
        f"{prefix}_throughput_bps": row.rate,
        f"{prefix}_ops_count": row.ops,
    }
    if row.errors is not None:
        values[f"{prefix}_errors_percent"] = row.errors
    return values


def detail_values(
    txns: Mapping[str, FinalPoint],
    total: FinalPoint | None,
    txn_rows: Iterable[AvgRow],
    flowop_rows: Iterable[AvgRow],
    runstats: Mapping[str, RunstatRow],
) -> dict[str, float]:
    """Every final figure uperf printed, named with its unit:

    - ``txnN_bytes``, and ``txnN_ops_count`` (raw lines) or ``txnN_time_s``,
      ``txnN_throughput_bps``, ``txnN_ops_per_s`` (progress lines): the N-th transaction's
      last line (``TxnN``, as uperf's progress and raw lines number them, from 1);
    - ``total_bytes`` and ``total_ops_count`` or ``total_time_s``, ``total_ops_per_s`` (the
      Total line; its bit rate is the summary's ``total_throughput_bps``);
    - ``txnN_count``, ``txnN_avg_us``, ``txnN_max_us``, ``txnN_min_us``: the Txn table row of
      that transaction (``txn_row_names``);
    - ``<flowop>_count``, ``_avg_us``, ``_max_us``, ``_min_us``: each Flowop table row
      (``write``, ``write2``…, ``_flowop_names``);
    - ``master_…`` and ``slave_…`` (``_time_s``, ``_bytes``, ``_throughput_bps``,
      ``_ops_count``, ``_errors_percent``): the Run Statistics rows of the master and of the
      slave (uperf's ``Total`` row when there were several).
    """
    values: dict[str, float] = {}
    for name, point in txns.items():
        m = _TXN_RE.fullmatch(name)
        if m is not None:
            values.update(_point_values(f"txn{int(m.group(1))}", point))
    if total is not None:
        total_values = _point_values("total", total)
        total_values.pop("total_throughput_bps", None)  # the summary's own, from uperf too
        values.update(total_values)
    rows = list(txn_rows)
    for prefix, row in zip(txn_row_names(rows), rows, strict=True):
        if prefix:
            values.update(_row_values(prefix, row))
    flowops = list(flowop_rows)
    for prefix, row in zip(_flowop_names(flowops), flowops, strict=True):
        if prefix:
            values.update(_row_values(prefix, row))
    master = runstats.get("master")
    if master is not None:
        values.update(_runstat_values("master", master))
    slaves = [row for host, row in runstats.items() if host not in ("master", "Total")]
    slave = runstats.get("Total") or (slaves[0] if len(slaves) == 1 else None)
    if slave is not None:
        values.update(_runstat_values("slave", slave))
    return values
