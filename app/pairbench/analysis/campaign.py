"""A campaign's verdicts and order: each cell's statistics after its outlier policy, whether
it needs more repeats, and which run comes next (interleaved rounds with a stored seed, or
sequential), from what the library holds, so a resumed campaign picks up where it was."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pairbench.analysis.outliers import Discard, OutlierPolicy, find_outliers
from pairbench.analysis.stats import GroupStats, describe
from pairbench.domain.campaign import Cell, Order, Plan, RunKey

COMPLETED = "completed"
# Ends of a run that are not a failure of the pair: cancelled by the user, ``lost`` (in
# flight when the program was killed), or ``busy`` (refused because another run held a host):
# they count neither as an attempt nor towards skipping the pair.
LOST = "lost"
BUSY = "busy"  # a host of the pair was in use by another run: waited for, not a failure
NOT_A_FAILURE = frozenset({"cancelled", LOST, BUSY})


@dataclass(frozen=True, slots=True)
class Attempt:
    """One run of a campaign as the library lists it; ``value`` is the cell's metric from
    the run's summary (None when the run did not complete)."""

    key: RunKey
    run_id: int | None
    status: str
    value: float | None
    at: float  # when it started (the campaign's clock), for the time-of-day chart
    error: str = ""
    suite_id: int | None = None  # a suite-valued cell's storage suite (run_id is None)


@dataclass(frozen=True, slots=True)
class CellVerdict:
    """A cell's values in one pass, or pooled: the statistics of the kept ones, the
    discards, and whether the repeat policy wants more runs."""

    n: int  # completed runs
    values: tuple[float, ...]
    kept: tuple[float, ...]
    stats: GroupStats | None
    discarded: tuple[Discard, ...]
    open: bool  # more runs wanted
    why: str  # "min", "cv 7.2 % > 5 %", "cv met", "max reached", ...


def cell_verdict(
    values: Sequence[float], plan: Plan, *, outliers: OutlierPolicy | None = None
) -> CellVerdict:
    """Judge a cell's completed values by the plan's repeat and outlier policies."""
    policy = outliers if outliers is not None else OutlierPolicy.parse(plan.outliers)
    repeats = plan.repeats
    n = len(values)
    if n == 0:
        return CellVerdict(0, (), (), None, (), repeats.max > 0, "no run yet")
    result = find_outliers(values, policy)
    kept = tuple(float(values[i]) for i in result.kept)
    stats = describe(kept)
    if n < repeats.min:
        return CellVerdict(n, tuple(values), kept, stats, result.discarded, True, "minimum")
    if n >= repeats.max:
        return CellVerdict(n, tuple(values), kept, stats, result.discarded, False, "maximum")
    if repeats.cv is None:
        return CellVerdict(n, tuple(values), kept, stats, result.discarded, False, "minimum")
    cv = stats.cv
    if cv is not None and cv <= repeats.cv:
        why = f"CV {cv:.1%} ≤ {repeats.cv:.1%}"
        return CellVerdict(n, tuple(values), kept, stats, result.discarded, False, why)
    shown = "n/a" if cv is None else f"{cv:.1%}"
    why = f"CV {shown} > {repeats.cv:.1%}"
    return CellVerdict(n, tuple(values), kept, stats, result.discarded, True, why)


@dataclass(frozen=True, slots=True)
class PassState:
    """Where one pass of the schedule stands, from the campaign's stored attempts."""

    occurrence: int
    values: Mapping[int, tuple[float, ...]]  # cell → completed values, in run order
    failures: Mapping[tuple[int, int], int]  # (cell, round) → failed attempts
    verdicts: Mapping[int, CellVerdict]


def pass_state(
    plan: Plan, cells: Sequence[Cell], attempts: Iterable[Attempt], occurrence: int
) -> PassState:
    """The values, failed attempts and verdicts of every cell in pass ``occurrence``."""
    values: dict[int, list[float]] = {cell.index: [] for cell in cells}
    failures: dict[tuple[int, int], int] = {}
    for a in sorted(attempts, key=lambda a: (a.at, a.run_id or 0)):
        if a.key.occurrence != occurrence or a.key.cell not in values:
            continue
        if a.status == COMPLETED and a.value is not None:
            values[a.key.cell].append(a.value)
        elif a.status not in NOT_A_FAILURE:
            where = (a.key.cell, a.key.round)
            failures[where] = failures.get(where, 0) + 1
    policy = OutlierPolicy.parse(plan.outliers)
    return PassState(
        occurrence,
        {cell: tuple(v) for cell, v in values.items()},
        failures,
        {cell: cell_verdict(v, plan, outliers=policy) for cell, v in values.items()},
    )


def round_order(
    plan: Plan, seed: int, occurrence: int, round_no: int, cells: Sequence[int]
) -> list[int]:
    """The order in which a round visits ``cells``: plan order when sequential, else a
    shuffle drawn from the campaign's seed, the pass and the round (the same on resume)."""
    ordered = sorted(cells)
    if plan.order is Order.SEQUENTIAL:
        return ordered
    rng = random.Random(f"{seed}:{occurrence}:{round_no}")
    rng.shuffle(ordered)
    return ordered


def next_runs(
    plan: Plan,
    seed: int,
    state: PassState,
    *,
    skipped: Iterable[int] = (),
    busy: Iterable[int] = (),
) -> list[RunKey]:
    """The runs that may start next in this pass, best first: the open cells (not skipped,
    not in flight) of the earliest round (interleaved) or the first open cell (sequential).
    Empty when the pass is complete or waits on runs in flight."""
    closed = set(skipped)
    in_flight = set(busy)
    open_cells = [c for c, v in state.verdicts.items() if v.open and c not in closed]
    if not open_cells:
        return []
    counted = {c: len(state.values[c]) + (1 if c in in_flight else 0) for c in open_cells}
    if plan.order is Order.SEQUENTIAL:
        first = min(open_cells)
        if first in in_flight:
            return []
        return [_key(state, first, counted[first] + 1)]
    current = min(len(state.values[c]) for c in open_cells)
    round_no = current + 1
    waiting = [c for c in open_cells if counted[c] == current and c not in in_flight]
    if not waiting:
        return []
    order = round_order(plan, seed, state.occurrence, round_no, open_cells)
    return [_key(state, c, round_no) for c in order if c in waiting]


def _key(state: PassState, cell: int, round_no: int) -> RunKey:
    return RunKey(cell, state.occurrence, round_no, state.failures.get((cell, round_no), 0) + 1)


def pass_complete(state: PassState, skipped: Iterable[int] = ()) -> bool:
    """Every cell of the pass has its verdict or is skipped."""
    closed = set(skipped)
    return all(not v.open or c in closed for c, v in state.verdicts.items())


def pooled_attempts(attempts: Iterable[Attempt]) -> dict[int, list[Attempt]]:
    """Every completed run with a value per cell over all passes, in run order (start, then
    run id): the order a cell's verdict judges its values in."""
    out: dict[int, list[Attempt]] = {}
    for a in sorted(attempts, key=lambda a: (a.at, a.run_id or 0)):
        if a.status == COMPLETED and a.value is not None:
            out.setdefault(a.key.cell, []).append(a)
    return out


def planned_runs(plan: Plan, cells: int, passes: int) -> tuple[int, int]:
    """The fewest and most runs the plan can take (without retries)."""
    return cells * passes * plan.repeats.min, cells * passes * plan.repeats.max
