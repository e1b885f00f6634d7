"""uperf's final figures read straight from its printed text: the reference the uperf tests
compare Pairbench's stored summary with (differential: this reader is written apart from the
parser, with the guide's names).

Read: each transaction's last progress piece (``TxnN  BYTES / SECS(s) = RATE  OPSop/s``) or
last raw line (``timestamp_ms:… name:TxnN nr_bytes:B nr_ops:O``), the Total line, every Txn
and Flowop table row, the Run Statistics rows of the master and of the slave(s).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest

__all__ = ["HEADLINE", "FinalLines", "assert_figures_are_uperfs", "final_lines"]

_TIME_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
_BYTES = {"": 1, "B": 1, "K": 2**10, "KB": 2**10, "M": 2**20, "MB": 2**20}
_BYTES.update({"G": 2**30, "GB": 2**30, "T": 2**40, "TB": 2**40})
_BITS = {"b/s": 1.0, "Kb/s": 1e3, "Mb/s": 1e6, "Gb/s": 1e9, "Tb/s": 1e12}
_PROGRESS = re.compile(
    r"(Txn\d+|Total)\s+([\d.]+)([A-Z]*)\s*/\s*([\d.]+)\(s\)\s*=\s*([\d.]+)(\S*b/s)?\s*(?:(\d+)op/s)?"
)
_RAW = re.compile(r"timestamp_ms:[\d.]+ name:(Txn\d+|Total) nr_bytes:(\d+) nr_ops:(\d+)")
_ROW = re.compile(
    r"(\S+)\s+(\d+)\s+([\d.]+)(ns|us|ms|s)\s+[\d.]+(?:ns|us|ms|s)\s+([\d.]+)(ns|us|ms|s)"
    r"\s+([\d.]+)(ns|us|ms|s)"
)
_STAT = re.compile(
    r"(\S+)\s+([\d.]+)(ns|us|ms|s)\s+([\d.]+)([A-Z]*)\s+([\d.]+)(\S*b/s)?\s+(\d+)\s+(\S+)\s*$"
)
# "Nic NAME came online" (no newline) sticks to the front of the next line.
_NIC = re.compile(r"^(?:Nic \S+? came online\s*)+")


@dataclass
class FinalLines:
    """The figures, named as docs/guide/network-runs.md says; ``unsure``: the
    byte counts whose unit uperf cut off (``1011.02`` for ``1011.02MB``), to compare by size."""

    values: dict[str, float] = field(default_factory=dict)
    unsure: set[str] = field(default_factory=set)


def _time_s(number: str, unit: str) -> float:
    return float(number) * _TIME_US[unit] / 1e6


def final_lines(text: str) -> FinalLines:
    """Read ``text`` (a uperf master's output, "\\r" kept)."""
    out = FinalLines()
    values = out.values
    section = "run"
    group, previous = 0, -1
    flowops: dict[str, int] = {}
    slaves: list[list[float | None]] = []
    for piece in re.split(r"[\r\n]", text):
        s = _NIC.sub("", piece.strip())
        if s.startswith("Txn ") and "Count" in s:
            section = "txn"
            continue
        if s.startswith("Flowop ") and "Count" in s:
            section = "flowop"
            continue
        if s in ("Group Details", "Strand Details", "Netstat statistics for this run"):
            section = "other"
            continue
        if s == "Run Statistics":
            section = "stats"
            continue
        if section == "run":
            if (m := _RAW.fullmatch(s)) is not None:
                name = "total" if m.group(1) == "Total" else m.group(1).lower()
                values[f"{name}_bytes"] = float(m.group(2))
                values[f"{name}_ops_count"] = float(m.group(3))
            elif (m := _PROGRESS.match(s)) is not None:
                name = "total" if m.group(1) == "Total" else m.group(1).lower()
                unit = m.group(3)
                secs, rate = float(m.group(4)), float(m.group(5)) * _BITS.get(m.group(6), 1.0)
                values[f"{name}_bytes"] = float(m.group(2)) * _BYTES[unit]
                if not unit and float(m.group(2)) != 0.0:
                    out.unsure.add(f"{name}_bytes")
                    values[f"{name}_bytes"] = rate * secs / 8.0
                values[f"{name}_time_s"] = secs
                values[f"{name}_ops_per_s"] = float(m.group(7) or 0)
                if name != "total":
                    values[f"{name}_throughput_bps"] = rate
        elif section in ("txn", "flowop") and (m := _ROW.match(s)) is not None:
            name = m.group(1)
            if section == "txn":
                index = int(name[3:])
                if index <= previous:
                    group += 1
                previous = index
                prefix = f"txn{index + 1}" if group == 0 else f"group{group}_txn{index + 1}"
            else:
                flowops[name] = flowops.get(name, 0) + 1
                prefix = name if flowops[name] == 1 else f"{name}{flowops[name]}"
            values[f"{prefix}_count"] = float(m.group(2))
            values[f"{prefix}_avg_us"] = float(m.group(3)) * _TIME_US[m.group(4)]
            values[f"{prefix}_max_us"] = float(m.group(5)) * _TIME_US[m.group(6)]
            values[f"{prefix}_min_us"] = float(m.group(7)) * _TIME_US[m.group(8)]
        elif section == "stats" and (m := _STAT.match(s)) is not None:
            host = m.group(1)
            row = [
                _time_s(m.group(2), m.group(3)),
                float(m.group(4)) * _BYTES[m.group(5)],
                float(m.group(6)) * _BITS.get(m.group(7), 1.0),
                float(m.group(8)),
                _number(m.group(9)),  # "-nan" when there were no operations
            ]
            if host == "master":
                _stat(values, "master", row)
            elif host == "Total":
                _stat(values, "slave", row)
                slaves = []
            else:
                slaves.append(row)
    if len(slaves) == 1:
        _stat(values, "slave", slaves[0])
    return out


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _stat(values: dict[str, float], prefix: str, row: list[float | None]) -> None:
    names = ("time_s", "bytes", "throughput_bps", "ops_count", "errors_percent")
    for name, value in zip(names, row, strict=True):
        if value is not None:
            values[f"{prefix}_{name}"] = value


# The summary's own figures (the timed transaction's, the Total rate, UDP loss): not one line's.
HEADLINE = frozenset(
    {"throughput_bps", "ops_per_s", "latency_avg_us", "total_throughput_bps", "lost_percent"}
)


def assert_figures_are_uperfs(values: Mapping[str, float], text: str) -> None:
    """Every stored figure but the headline's is one of uperf's final lines in ``text``, and
    every final figure uperf printed is stored (a cut-off byte unit: within 1 %)."""
    reference = final_lines(text)
    stored = {k: v for k, v in values.items() if k not in HEADLINE}
    missing = sorted(reference.values.keys() - stored.keys())
    extra = sorted(stored.keys() - reference.values.keys())
    assert not missing and not extra, f"not stored: {missing}; not uperf's: {extra}"
    for key, value in reference.values.items():
        if key in reference.unsure:
            assert stored[key] == pytest.approx(value, rel=0.01), key
        else:
            assert stored[key] == pytest.approx(value, rel=1e-9), key
