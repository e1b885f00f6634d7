"""A campaign's plan: pairs × tests × parameter axes × repeats, its order, schedule, repeat
and failure policies, and the cells it expands to (plain data, stored with the campaign)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MAX_CELLS = 10_000  # more is refused before anything runs
WARN_RUNS = 2_000  # more planned runs are allowed, with a warning
BURST = "burst"  # a test's probe: each run is a burst probe (iperf3 until the drop)
STORAGE = "storage"  # a test's probe: each run is a storage suite on one host of the pair
PROBES = ("", BURST, STORAGE)


class CampaignStatus(enum.StrEnum):
    """How a campaign stands: running (or paused), or ended and how."""

    RUNNING = "running"
    COMPLETED = "completed"  # every cell has its verdict (or was skipped, with the reason)
    CANCELLED = "cancelled"  # stopped by the user: finished runs kept, resumable
    INTERRUPTED = "interrupted"  # the program died: resumable
    FAILED = "failed"  # could not go on (the library, a bug): resumable

    @property
    def resumable(self) -> bool:
        return self is not CampaignStatus.COMPLETED


class Order(enum.StrEnum):
    """Interleaved: each round visits every open cell once, shuffled with the stored seed.
    Sequential: one cell's repeats after another, in plan order."""

    INTERLEAVED = "interleaved"
    SEQUENTIAL = "sequential"


@dataclass(frozen=True, slots=True)
class RepeatPolicy:
    """Per cell: at least ``min`` runs, then more until the coefficient of variation of the
    kept values is at most ``cv`` (None: no target), never more than ``max``."""

    min: int = 1
    max: int = 1
    cv: float | None = None

    def describe(self) -> str:
        if self.min == self.max:
            return f"{self.min} run{'s' if self.min != 1 else ''} per cell"
        target = f" until CV ≤ {self.cv:.1%}" if self.cv is not None else ""
        return f"{self.min} to {self.max} runs per cell{target}"


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """A failed run is retried ``retries`` times after ``delay_s``; ``skip_pair_after``
    consecutive failures on one pair skip its remaining cells."""

    retries: int = 1
    delay_s: float = 5.0
    skip_pair_after: int = 3


@dataclass(frozen=True, slots=True)
class Schedule:
    """When the campaign's passes start: ``once`` (now); ``every`` ``every_s`` seconds for
    ``for_s`` seconds; ``times`` at the given times of day ("HH:MM", local time) for ``days``
    days. Each pass runs every cell with the repeat policy."""

    kind: str = "once"
    every_s: float = 0.0
    for_s: float = 0.0
    times: tuple[str, ...] = ()
    days: int = 1

    def describe(self) -> str:
        if self.kind == "every":
            return f"every {_duration(self.every_s)} for {_duration(self.for_s)}"
        if self.kind == "times":
            days = f" for {self.days} days" if self.days != 1 else ""
            return f"at {', '.join(self.times)}{days}"
        return "once"


def _duration(seconds: float) -> str:
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds / 3600:g} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


@dataclass(frozen=True, slots=True)
class PairSelector:
    """Pairs by name, or by tags (each value a glob, e.g. ``type = "r4.*"``)."""

    names: tuple[str, ...] = ()
    tags: Mapping[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        if self.names:
            return ", ".join(self.names)
        return "pairs tagged " + ", ".join(f"{k}={v}" for k, v in self.tags.items())


@dataclass(frozen=True, slots=True)
class TestPlan:
    """One test of the plan: a tool and its parameters, where a list is an axis (crossed with
    the other axes, or zipped with those named in the same ``zip`` group)."""

    __test__ = False  # not a pytest class

    name: str
    tool: str
    axes: Mapping[str, tuple[str, ...]]
    zip: tuple[tuple[str, ...], ...] = ()
    metric: str = ""  # the test's main metric; "" = the tool's usual one
    probe: str = ""  # "burst": each run is a burst probe; "storage": a storage suite


@dataclass(frozen=True, slots=True)
class Plan:
    """A whole study, as read from its TOML file (see ``services.campaign_plan``)."""

    name: str
    pairs: PairSelector
    tests: tuple[TestPlan, ...]
    repeats: RepeatPolicy = RepeatPolicy()
    order: Order = Order.INTERLEAVED
    seed: int | None = None
    pause_s: float = 0.0
    schedule: Schedule = Schedule()
    outliers: str = "none"
    retry: RetryPolicy = RetryPolicy()
    parallel: int = 1  # pairs that may run at once (sharing no host)
    filter: str = ""
    label: str = ""


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of the matrix: a pair, a test and one value of each axis."""

    index: int
    pair: str
    test: int
    test_name: str
    tool: str
    params: Mapping[str, str]
    axes: Mapping[str, str]  # the axis values that vary in this test (for names and grids)
    metric: str
    probe: str = ""

    @property
    def column(self) -> str:
        """The test and its axis values, e.g. ``iperf3 streams=4``: a grid's column."""
        varying = " ".join(f"{k}={v}" for k, v in self.axes.items())
        return f"{self.test_name} {varying}".strip()

    @property
    def title(self) -> str:
        return f"{self.pair} · {self.column}"

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "pair": self.pair,
            "test": self.test,
            "test_name": self.test_name,
            "tool": self.tool,
            "params": dict(self.params),
            "axes": dict(self.axes),
            "metric": self.metric,
            "probe": self.probe,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Cell:
        return cls(
            int(data["index"]),
            str(data["pair"]),
            int(data["test"]),
            str(data["test_name"]),
            str(data["tool"]),
            {str(k): str(v) for k, v in dict(data["params"]).items()},
            {str(k): str(v) for k, v in dict(data["axes"]).items()},
            str(data["metric"]),
            str(data.get("probe", "")),
        )


@dataclass(frozen=True, slots=True)
class RunKey:
    """Where a run sits in a campaign: its cell, the pass of the schedule, its repeat (round)
    within that pass, and its attempt (1 + retries)."""

    cell: int
    occurrence: int
    round: int
    attempt: int

    def tags(self, campaign_id: int) -> dict[str, str]:
        """The tags a campaign's run carries."""
        return {
            "campaign": str(campaign_id),
            "campaign_cell": str(self.cell),
            "campaign_pass": str(self.occurrence),
            "campaign_round": str(self.round),
            "campaign_attempt": str(self.attempt),
        }


def plan_to_json(plan: Plan) -> dict[str, Any]:
    """The plan as stored with its campaign (``plan_from_json`` reads it back)."""
    return {
        "name": plan.name,
        "pairs": {"names": list(plan.pairs.names), "tags": dict(plan.pairs.tags)},
        "tests": [
            {
                "name": t.name,
                "tool": t.tool,
                "axes": {k: list(v) for k, v in t.axes.items()},
                "zip": [list(g) for g in t.zip],
                "metric": t.metric,
                "probe": t.probe,
            }
            for t in plan.tests
        ],
        "repeats": {"min": plan.repeats.min, "max": plan.repeats.max, "cv": plan.repeats.cv},
        "order": plan.order.value,
        "seed": plan.seed,
        "pause_s": plan.pause_s,
        "schedule": {
            "kind": plan.schedule.kind,
            "every_s": plan.schedule.every_s,
            "for_s": plan.schedule.for_s,
            "times": list(plan.schedule.times),
            "days": plan.schedule.days,
        },
        "outliers": plan.outliers,
        "retry": {
            "retries": plan.retry.retries,
            "delay_s": plan.retry.delay_s,
            "skip_pair_after": plan.retry.skip_pair_after,
        },
        "parallel": plan.parallel,
        "filter": plan.filter,
        "label": plan.label,
    }


def plan_from_json(data: Mapping[str, Any]) -> Plan:
    """A stored plan (from ``plan_to_json``)."""
    pairs, repeats, schedule, retry = (
        data["pairs"],
        data["repeats"],
        data["schedule"],
        data["retry"],
    )
    return Plan(
        name=str(data["name"]),
        pairs=PairSelector(tuple(pairs["names"]), dict(pairs["tags"])),
        tests=tuple(
            TestPlan(
                str(t["name"]),
                str(t["tool"]),
                {str(k): tuple(str(x) for x in v) for k, v in t["axes"].items()},
                tuple(tuple(g) for g in t["zip"]),
                str(t["metric"]),
                str(t.get("probe", "")),
            )
            for t in data["tests"]
        ),
        repeats=RepeatPolicy(
            int(repeats["min"]),
            int(repeats["max"]),
            None if repeats["cv"] is None else float(repeats["cv"]),
        ),
        order=Order(data["order"]),
        seed=None if data["seed"] is None else int(data["seed"]),
        pause_s=float(data["pause_s"]),
        schedule=Schedule(
            str(schedule["kind"]),
            float(schedule["every_s"]),
            float(schedule["for_s"]),
            tuple(schedule["times"]),
            int(schedule["days"]),
        ),
        outliers=str(data["outliers"]),
        retry=RetryPolicy(
            int(retry["retries"]), float(retry["delay_s"]), int(retry["skip_pair_after"])
        ),
        parallel=int(data["parallel"]),
        filter=str(data["filter"]),
        label=str(data["label"]),
    )
