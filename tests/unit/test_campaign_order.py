"""A campaign's order and verdicts: interleaved rounds visit every open cell once, shuffled by
the stored seed (the same on resume); repeats stop at the CV target, never past the maximum;
outliers discarded with their reason; failures retried; the schedule's passes."""

from __future__ import annotations

import itertools
import statistics
from dataclasses import replace

from pairbench.analysis.campaign import (
    Attempt,
    cell_verdict,
    next_runs,
    pass_complete,
    pass_state,
)
from pairbench.analysis.campaign_schedule import due_pass, slot_times
from pairbench.domain.campaign import (
    Cell,
    Order,
    PairSelector,
    Plan,
    RepeatPolicy,
    RunKey,
    Schedule,
    TestPlan,
)

PLAN = Plan(
    "t",
    PairSelector(("p",)),
    (TestPlan("ping", "ping", {"count": ("1",)}),),
    repeats=RepeatPolicy(2, 5, 0.05),
)


def _cells(n: int) -> list[Cell]:
    return [
        Cell(i, f"p{i % 3}", 0, "ping", "ping", {"count": "1"}, {}, "rtt_avg_ms") for i in range(n)
    ]


def _simulate(
    plan: Plan, cells: list[Cell], value_of: dict[int, list[float]], seed: int
) -> list[int]:
    """Run the scheduler's choices to the end with given values per cell; the cells in the
    order they ran."""
    attempts: list[Attempt] = []
    ran: list[int] = []
    served = {c.index: 0 for c in cells}
    for step in range(1000):
        state = pass_state(plan, cells, attempts, 0)
        keys = next_runs(plan, seed, state)
        if not keys:
            assert pass_complete(state)
            return ran
        key = keys[0]
        value = value_of[key.cell][served[key.cell]]
        served[key.cell] += 1
        attempts.append(Attempt(key, step + 1, "completed", value, float(step)))
        ran.append(key.cell)
    raise AssertionError("the scheduler did not finish")


def test_interleaved_rounds_visit_every_cell_once_per_round_in_a_seeded_shuffle() -> None:
    plan = replace(PLAN, repeats=RepeatPolicy(3, 3, None))
    cells = _cells(6)
    values = {c.index: [1.0, 1.0, 1.0] for c in cells}
    ran = _simulate(plan, cells, values, seed=11)
    rounds = [ran[i : i + 6] for i in range(0, len(ran), 6)]
    assert len(rounds) == 3 and all(sorted(r) == list(range(6)) for r in rounds)
    assert len({tuple(r) for r in rounds}) > 1  # each round shuffled afresh
    assert _simulate(plan, cells, values, seed=11) == ran  # the seed decides: same on resume
    assert _simulate(plan, cells, values, seed=12) != ran


def test_sequential_runs_each_cell_to_its_verdict_in_plan_order() -> None:
    plan = replace(PLAN, order=Order.SEQUENTIAL, repeats=RepeatPolicy(2, 2, None))
    ran = _simulate(plan, _cells(3), {i: [1.0, 1.0] for i in range(3)}, seed=1)
    assert ran == [0, 0, 1, 1, 2, 2]


def test_repeats_stop_at_the_cv_target_and_never_pass_the_maximum() -> None:
    cells = _cells(2)
    steady = [100.0, 101.0, 100.5, 99.0, 100.0]  # CV ≤ 5 % from the second run
    noisy = [10.0, 100.0, 10.0, 100.0, 10.0, 100.0, 10.0]
    ran = _simulate(PLAN, cells, {0: steady, 1: noisy}, seed=3)
    assert ran.count(0) == PLAN.repeats.min
    assert statistics.stdev(steady[:2]) / statistics.mean(steady[:2]) <= 0.05
    assert ran.count(1) == PLAN.repeats.max  # never more, whatever the CV
    verdict = cell_verdict(noisy[: PLAN.repeats.max], PLAN)
    assert not verdict.open and verdict.why == "maximum"


def test_outliers_are_discarded_with_their_reason_and_the_cv_uses_the_rest() -> None:
    plan = replace(PLAN, outliers="mad:3", repeats=RepeatPolicy(5, 10, 0.05))
    values = [100.0, 101.0, 99.0, 100.5, 400.0]
    verdict = cell_verdict(values, plan)
    assert [d.value for d in verdict.discarded] == [400.0]
    assert "MAD" in verdict.discarded[0].reason or "median" in verdict.discarded[0].reason
    kept = [v for v in values if v != 400.0]
    assert verdict.stats is not None and verdict.stats.n == len(kept)
    assert abs(verdict.stats.mean - statistics.mean(kept)) < 1e-9
    assert not verdict.open  # the CV of the kept values meets the target
    plain = cell_verdict(values, replace(plan, outliers="none"))
    assert plain.discarded == () and plain.open  # with the outlier the CV is far above 5 %


def test_a_failed_run_is_retried_as_the_next_attempt_of_the_same_round() -> None:
    cells = _cells(1)
    failed = Attempt(RunKey(0, 0, 1, 1), 7, "failed", None, 1.0, "refused")
    cancelled = Attempt(RunKey(0, 0, 1, 2), 8, "cancelled", None, 2.0)
    state = pass_state(PLAN, cells, [failed, cancelled], 0)
    assert next_runs(PLAN, 1, state) == [RunKey(0, 0, 1, 2)]  # cancelled: not an attempt
    assert next_runs(PLAN, 1, state, busy=[0]) == []  # in flight: nothing else to start
    assert next_runs(PLAN, 1, state, skipped=[0]) == [] and pass_complete(state, [0])


def test_passes_of_a_schedule_and_the_ones_missed() -> None:
    every = Schedule("every", every_s=60, for_s=600)
    slots = slot_times(every, 1000.0)
    assert slots == [1000.0 + 60 * k for k in range(10)]
    assert due_pass(slots, 1000.0, set()) == (0, [])
    assert due_pass(slots, 1001.0, {0}) == (1, [])  # pass 1 is next, due in 59 s
    # stopped for 3 minutes after pass 0: passes 1 and 2 are missed, 3 is due now
    assert due_pass(slots, 1000.0 + 185, {0}) == (3, [1, 2])
    assert due_pass(slots, 5000.0, set(range(10))) == (None, [])
    times = Schedule("times", times=("08:00", "20:00"), days=2)
    at = slot_times(times, 0.0)
    assert len(at) == 4 and all(b > a for a, b in itertools.pairwise(at))
    assert slot_times(Schedule(), 5.0) == [5.0]
