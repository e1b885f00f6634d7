"""The Hosts table (Qt-free): one row per host, the figures that tell what limits a run.

Columns appear only when some host has their figures, the telling ones first: the busiest
core (with its softirq and irq share), the tool's busiest thread (ran, waited for a CPU), UDP
receive-buffer errors, how window-limited the sender was, the cloud allowance counters (AWS
ENA), fio's disk, the data interface's drops and rates, TCP retransmits, all cores (steal).
``figures`` maps (stream, metric) to one value: the latest of a live run, or a stored run's
median over its steady part (``stored_figures``). The TCP and UDP columns show for runs of
that protocol only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from pairbench.analysis.telemetry_view import RunView, SeriesLike
from pairbench.domain import Record
from pairbench.domain.telemetry import ALLOWANCE_COUNTERS, ROLES, core_of, split_stream
from pairbench.domain.units import format_bits, format_count

Figures = Mapping[tuple[str, str], float]


@dataclass(frozen=True, slots=True)
class HostsTable:
    """Column titles, and per host its role and one text per column."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]


def take_latest(figures: MutableMapping[tuple[str, str], float], records: Iterable[Record]) -> None:
    """Keep each telemetry figure's latest finite value."""
    for stream, _t, metrics, values in records:
        for metric, value in zip(metrics, values, strict=True):
            if math.isfinite(value):
                figures[(stream, metric)] = value


def stored_figures(
    series: Iterable[SeriesLike], telemetry: Mapping[str, Any] | None
) -> dict[tuple[str, str], float]:
    """A stored run's figures: each telemetry series' median over the run's steady part (the
    busiest-core column then shows the core busiest in the median)."""
    listed = list(series)
    view = RunView(listed, telemetry)
    figures: dict[tuple[str, str], float] = {}
    for s in listed:
        if split_stream(s.stream) is None:
            continue
        picked = view.pick(s.stream, s.metric)
        if picked.empty:
            picked = view.pick(s.stream, s.metric, steady=False)
        if not picked.empty:
            figures[(s.stream, s.metric)] = picked.median()
    return figures


def _get(figures: Figures, role: str, part: str, metric: str) -> float | None:
    value = figures.get((f"{role}:{part}", metric))
    return value if value is not None and math.isfinite(value) else None


def _per_s(value: float) -> str:
    return f"{format_count(value)}/s"


def _busiest(figures: Figures, role: str) -> str | None:
    best: tuple[float, int] | None = None
    for (stream, metric), value in figures.items():
        split = split_stream(stream)
        if split is None or split[0] != role or metric != "cpu_busy_percent":
            continue
        core = core_of(split[1])
        if core is not None and (best is None or value > best[0]):
            best = (value, core)
    if best is None:
        return None
    busy, core = best
    kernel = sum(
        _get(figures, role, f"cpu{core}", m) or 0.0
        for m in ("cpu_softirq_percent", "cpu_irq_percent")
    )
    return f"core {core}: {busy:.0f} %" + (f", softirq {kernel:.0f} %" if kernel >= 1 else "")


def _all_cores(figures: Figures, role: str) -> str | None:
    busy = _get(figures, role, "cpu", "cpu_busy_percent")
    if busy is None:
        return None
    steal = _get(figures, role, "cpu", "cpu_steal_percent") or 0.0
    wait = _get(figures, role, "cpu", "cpu_iowait_percent") or 0.0
    extra = (f", steal {steal:.0f} %" if steal >= 1 else "") + (
        f", iowait {wait:.0f} %" if wait >= 1 else ""
    )
    return f"{busy:.0f} %{extra}"


def _thread(figures: Figures, role: str) -> str | None:
    ran = _get(figures, role, "proc", "proc_thread_max_percent")
    if ran is None:
        return None
    waited = _get(figures, role, "proc", "proc_thread_wait_percent")
    return f"ran {ran:.0f} %" + (f", waited {waited:.0f} %" if waited is not None else "")


def _nic(figures: Figures, role: str) -> str | None:
    rx = _get(figures, role, "net", "nic_rx_bps")
    tx = _get(figures, role, "net", "nic_tx_bps")
    if rx is None and tx is None:
        return None
    return f"↓ {format_bits(rx)}  ↑ {format_bits(tx)}"


def _drops(figures: Figures, role: str) -> str | None:
    rx = _get(figures, role, "net", "nic_rx_drop_pps")
    tx = _get(figures, role, "net", "nic_tx_drop_pps")
    if rx is None and tx is None:
        return None
    total = (rx or 0.0) + (tx or 0.0)
    return _per_s(total) if total < 0.5 else f"rx {_per_s(rx or 0)}, tx {_per_s(tx or 0)}"


def _allowance(figures: Figures, role: str) -> str | None:
    found = {
        counter: value
        for counter in ALLOWANCE_COUNTERS
        if (value := _get(figures, role, "nic", f"ethtool_{counter}_pps")) is not None
    }
    if not found:
        return None
    rising = {c: v for c, v in found.items() if v > 0}
    if not rising:
        return "none exceeded"
    return ", ".join(
        f"{c.removesuffix('_allowance_exceeded')} +{_per_s(v)}" for c, v in rising.items()
    )


def _udp_buffer(figures: Figures, role: str) -> str | None:
    value = _get(figures, role, "udp", "udp_rcvbuf_error_pps")
    return None if value is None else f"+{_per_s(value)}"


def _retransmits(figures: Figures, role: str) -> str | None:
    value = _get(figures, role, "tcp", "tcp_retrans_pps")
    return None if value is None else _per_s(value)


def _window(figures: Figures, role: str) -> str | None:
    rwnd = _get(figures, role, "conn", "conn_rwnd_limited_percent")
    sndbuf = _get(figures, role, "conn", "conn_sndbuf_limited_percent")
    if rwnd is None and sndbuf is None:
        return None
    return f"rwnd {rwnd or 0:.0f} %, sndbuf {sndbuf or 0:.0f} %"


def _disk(figures: Figures, role: str) -> str | None:
    util = _get(figures, role, "disk", "disk_util_percent")
    if util is None:
        return None
    queue = _get(figures, role, "disk", "disk_queue_depth")
    return f"{util:.0f} % busy" + (f", queue {queue:.1f}" if queue is not None else "")


# The telling columns first (a narrow tab scrolls to the rest).
_COLUMNS = (
    ("Busiest core", _busiest, ""),
    ("Tool's thread", _thread, ""),
    ("UDP buffer errors", _udp_buffer, "udp"),
    ("Window-limited", _window, "tcp"),
    ("Allowance exceeded", _allowance, ""),
    ("Disk", _disk, ""),
    ("NIC drops", _drops, ""),
    ("NIC", _nic, ""),
    ("TCP retransmits", _retransmits, "tcp"),
    ("All cores", _all_cores, ""),
)


def hosts_table(figures: Figures, proto: str = "") -> HostsTable:
    """The table of ``figures``: a column where some host has a figure (UDP buffer errors
    only for UDP runs, TCP's columns only for TCP runs, unless a figure shows anyway)."""
    roles = [r for r in ROLES if any(s.startswith(f"{r}:") for s, _ in figures)]
    columns: list[str] = []
    cells: dict[str, list[str]] = {role: [] for role in roles}
    for title, cell, only in _COLUMNS:
        texts = {role: cell(figures, role) for role in roles}
        if all(t is None for t in texts.values()) or (only and proto != only):
            continue
        columns.append(title)
        for role in roles:
            cells[role].append(texts[role] or "—")
    return HostsTable(tuple(columns), tuple((role, tuple(cells[role])) for role in roles))
