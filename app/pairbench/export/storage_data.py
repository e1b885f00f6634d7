"""A storage suite as its report reads it (plan, progress, tables, finished jobs' figures,
host and target facts), and the orders and colours every chart and table of it shares."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pairbench.analysis.storage_suite import Done, SuiteProgress, convergence_lines
from pairbench.analysis.storage_tables import SuiteTable
from pairbench.domain.storage import (
    StorageTest,
    SuiteParams,
    block_size_bytes,
    block_size_word,
    mix_word,
    stages_of,
)
from pairbench.export.charts import PALETTE


class StorageReportError(ValueError):
    """Suites that cannot be reported or compared together; the message says why."""


@dataclass(frozen=True, slots=True)
class SuiteData:
    """Everything a storage report shows of one suite."""

    id: int
    host: str
    label: str
    status: str
    created_at: float
    params: SuiteParams
    progress: SuiteProgress
    tables: tuple[SuiteTable, ...]
    done: Done
    facts: Mapping[str, Any]
    limited_by: Mapping[str, str] = field(default_factory=dict)  # stage → its runs' verdicts

    @property
    def name(self) -> str:
        """``#3 oci-nvme (label)``: how legends and headings name the suite."""
        text = f"#{self.id} {self.host}"
        return f"{text} ({self.label})" if self.label else text

    def table(self, name: str) -> SuiteTable | None:
        """The table called ``name`` (``IOPS``, ``peak latency``, ``throughput 1m`` ...)."""
        return next((t for t in self.tables if t.name == name), None)


def block_sizes(params: SuiteParams) -> list[str]:
    """The test's block sizes, smallest first (the order of a block-size axis)."""
    found = {job.bs for stage in stages_of(params.test) for job in stage.jobs}
    return sorted(found, key=block_size_bytes)


def mixes(params: SuiteParams) -> list[int]:
    """The test's read percentages in PTS order (100/0 first)."""
    out: list[int] = []
    for stage in stages_of(params.test):
        for job in stage.jobs:
            if job.read_pct not in out:
                out.append(job.read_pct)
    return out


def bs_color(bs: str) -> str:
    """One colour per block size, the same in every chart and suite."""
    order = ("512", "4k", "8k", "16k", "32k", "64k", "128k", "1m")
    return PALETTE[order.index(bs) % len(PALETTE)]


def mix_color(read_pct: int) -> str:
    """One colour per read/write mix, the same in every chart and suite."""
    order = (100, 95, 65, 50, 35, 5, 0)
    return PALETTE[order.index(read_pct) % len(PALETTE)] if read_pct in order else "#7f7f7f"


def suite_color(index: int) -> str:
    """The colour of the ``index``-th suite of a comparison."""
    return PALETTE[index % len(PALETTE)]


def bs_ticks(sizes: Sequence[str]) -> tuple[tuple[float, str], ...]:
    """Ticks of a block-size axis in bytes, labelled ``512b``, ``4k``, ``1m``."""
    return tuple((float(block_size_bytes(bs)), block_size_word(bs)) for bs in sizes)


def tracking_series(data: SuiteData) -> list[tuple[str, list[int], list[float]]]:
    """The convergence chart's lines (``analysis.storage_suite.convergence_lines``): for each
    block size of the tracked (write-only, 0/100) jobs, its stage's tracking figure per
    complete round (write IOPS, mean write latency or write B/s); as (block size, rounds,
    values)."""
    lines: dict[str, tuple[list[int], list[float]]] = {}
    for line in convergence_lines(data.params, data.done):
        rounds, values = lines.setdefault(line.bs, ([], []))
        for round_no, value in zip(line.rounds, line.values, strict=True):
            if math.isfinite(value):
                rounds.append(round_no)
                values.append(value)
    order = block_sizes(data.params)
    return [(bs, *lines[bs]) for bs in order if bs in lines and lines[bs][0]]


def tracking_metric(params: SuiteParams) -> str:
    """The unit-bearing metric name of the test's tracking variable."""
    return stages_of(params.test)[0].metric


def same_test(suites: Sequence[SuiteData]) -> StorageTest:
    """The test all ``suites`` ran; ``StorageReportError`` when they differ."""
    if not suites:
        raise StorageReportError("no suites to report")
    first = suites[0]
    for other in suites[1:]:
        if other.params.test is not first.params.test:
            raise StorageReportError(
                f"suite {other.id} is a {other.params.test.value} test and suite {first.id} "
                f"a {first.params.test.value} test: only suites of the same test compare"
            )
    return first.params.test


def mix_label(read_pct: int) -> str:
    """``100/0 (read)``, ``0/100 (write)``, ``65/35``."""
    word = mix_word(read_pct)
    if read_pct == 100:
        return f"{word} (read)"
    if read_pct == 0:
        return f"{word} (write)"
    return word
