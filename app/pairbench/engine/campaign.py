"""The campaign's scheduler: passes of the schedule, rounds of runs (interleaved or
sequential, several pairs at once when allowed), retries, skips and pauses. Everything it
decides from is in the library, so a killed program loses at most the run in flight."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from pairbench.analysis.campaign import (
    BUSY,
    Attempt,
    PassState,
    next_runs,
    pass_complete,
    pass_state,
)
from pairbench.analysis.campaign_schedule import due_pass, slot_times
from pairbench.domain import HostPair
from pairbench.domain.campaign import (
    BURST,
    CampaignStatus,
    Cell,
    Plan,
    RunKey,
    plan_from_json,
)
from pairbench.domain.failures import RunError
from pairbench.engine.campaign_control import (
    CampaignControl,
    CampaignObserver,
    CampaignOutcome,
    NullCampaignObserver,
    RunGate,
)
from pairbench.engine.campaign_run import CellRunner, RunOutcome, cell_spec, run_cell
from pairbench.engine.campaign_state import adopt_tagged_runs, attempts_of, trailing_failures
from pairbench.engine.execute import prepare
from pairbench.engine.observer import RunObserver
from pairbench.engine.transports import Connector
from pairbench.library import Library, LibraryError
from pairbench.library.campaigns import (
    end_pass,
    ended_passes,
    finish_campaign,
    get_campaign,
    record_campaign_run,
    set_paused,
    skip_cell,
    skipped_cells,
)
from pairbench.library.hosts import get_pair

BUSY_WAIT_S = 5.0  # at least this long before a cell refused for a busy host tries again
Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


@dataclass
class _Session:
    lib: Library
    campaign_id: int
    plan: Plan
    seed: int
    cells: list[Cell]
    pairs: dict[str, HostPair]
    connector: Connector
    observer: CampaignObserver
    run_observer: RunGate
    control: CampaignControl
    clock: Clock
    sleep: Sleep
    runners: Mapping[str, CellRunner] = field(default_factory=dict)
    started: int = 0
    retry_after: dict[int, float] = field(default_factory=dict)

    def attempts(self) -> list[Attempt]:
        return attempts_of(self.lib, self.campaign_id)

    def skipped(self) -> dict[int, str]:
        return skipped_cells(self.lib, self.campaign_id)


async def run_campaign(
    lib: Library,
    campaign_id: int,
    connector: Connector,
    *,
    observer: CampaignObserver | None = None,
    run_observer: RunObserver | None = None,
    control: CampaignControl | None = None,
    clock: Clock = time.time,
    sleep: Sleep = asyncio.sleep,
    runners: Mapping[str, CellRunner] | None = None,
) -> CampaignOutcome:
    """Run the campaign's remaining passes and runs and end it (the campaign is already
    stored and claimed by this process). ``clock``/``sleep`` drive the schedule;
    ``runners`` run the cells of a probe the engine does not own (by probe name)."""
    stored = get_campaign(lib, campaign_id)
    plan = plan_from_json(stored.plan)
    cells = [Cell.from_json(c) for c in stored.cells]
    s = _Session(
        lib,
        campaign_id,
        plan,
        stored.seed,
        cells,
        {},
        connector,
        observer or NullCampaignObserver(),
        RunGate(run_observer),
        control or CampaignControl(),
        clock,
        sleep,
        dict(runners or {}),
    )
    for note in adopt_tagged_runs(lib, campaign_id, cells):
        s.observer.on_notice(note)
    try:
        _load_pairs(s)
        await _preflight(s)
        status = await _passes(s, slot_times(plan.schedule, stored.created_at))
    except asyncio.CancelledError:
        finish_campaign(lib, campaign_id, CampaignStatus.CANCELLED.value, error="cancelled")
        raise
    except LibraryError as exc:
        finish_campaign(lib, campaign_id, CampaignStatus.FAILED.value, error=str(exc))
        return CampaignOutcome(campaign_id, CampaignStatus.FAILED, s.started, str(exc), *_ids(s))
    error = "cancelled by the user" if status is CampaignStatus.CANCELLED else None
    finish_campaign(lib, campaign_id, status.value, error=error)
    return CampaignOutcome(campaign_id, status, s.started, error, *_ids(s))


def _ids(s: _Session) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The campaign's runs, and its suites (each once), in the order they started."""
    attempts = s.attempts()
    runs = tuple(a.run_id for a in attempts if a.run_id is not None)
    suites = tuple(dict.fromkeys(a.suite_id for a in attempts if a.suite_id is not None))
    return runs, suites


def _load_pairs(s: _Session) -> None:
    """The pairs of the cells not skipped; a pair removed since is skipped with the reason."""
    skipped = s.skipped()
    for cell in s.cells:
        if cell.index in skipped or cell.pair in s.pairs:
            continue
        try:
            s.pairs[cell.pair] = get_pair(s.lib, cell.pair)
        except LibraryError as exc:
            _skip_pair(s, cell.pair, f"pair {cell.pair}: {exc}")


def _skip_pair(s: _Session, pair: str, reason: str) -> None:
    for cell in s.cells:
        if cell.pair == pair:
            skip_cell(s.lib, s.campaign_id, cell.index, reason)
    s.observer.on_notice(f"skipping pair {pair}: {reason}")


async def _preflight(s: _Session) -> None:
    """Connect to every pair and probe each tool it will run; a pair that fails is skipped
    before any run starts (its cells keep the reason)."""
    skipped = s.skipped()
    for name, pair in s.pairs.items():
        checks: dict[tuple[str, str, str], Cell] = {}
        for cell in s.cells:
            if cell.pair == name and cell.index not in skipped:
                # A runner's cells are checked one by one (each may use its own target).
                own = str(cell.index) if cell.probe in s.runners else ""
                checks.setdefault((cell.tool, cell.probe, own), cell)
        for cell in checks.values():
            try:
                runner = s.runners.get(cell.probe)
                if runner is not None:
                    await runner.preflight(pair, cell)
                    continue
                spec = cell_spec(s.campaign_id, cell, RunKey(cell.index, 0, 0, 0), pair)
                await prepare(pair, spec, s.connector)
            except RunError as exc:
                await s.connector.forget(pair.client, pair.server)
                _skip_pair(s, name, f"preflight failed: {exc}")
                break


async def _passes(s: _Session, slots: list[float]) -> CampaignStatus:
    while True:
        done = ended_passes(s.lib, s.campaign_id)
        now = s.clock()
        k, missed = due_pass(slots, now, set(done))
        for m in missed:
            end_pass(s.lib, s.campaign_id, m, "missed", now)
            s.observer.on_notice(f"pass {m + 1} of {len(slots)} missed (its time had passed)")
        if k is None:
            return CampaignStatus.COMPLETED
        wait = slots[k] - now
        if wait > 0:
            s.observer.on_waiting(wait, f"pass {k + 1} of {len(slots)}")
            if await _wait(s, wait):
                return CampaignStatus.CANCELLED
        if await _run_pass(s, k) is CampaignStatus.CANCELLED:
            return CampaignStatus.CANCELLED
        end_pass(s.lib, s.campaign_id, k, "done", s.clock())


async def _wait(s: _Session, seconds: float) -> bool:
    """Sleep (on the campaign's clock) unless cancelled first; True when cancelled."""
    sleeper = asyncio.ensure_future(s.sleep(seconds))
    cancelled = asyncio.ensure_future(s.control.cancel.wait())
    try:
        await asyncio.wait({sleeper, cancelled}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        sleeper.cancel()
        cancelled.cancel()
    return s.control.cancel.is_set()


async def _run_pass(s: _Session, occurrence: int) -> CampaignStatus:
    """Run pass ``occurrence`` until every cell has its verdict or is skipped."""
    in_flight: dict[asyncio.Task[RunOutcome], tuple[RunKey, Cell]] = {}
    first = True
    try:
        while True:
            if s.control.cancel.is_set():
                await _drain(s, in_flight)
                return CampaignStatus.CANCELLED
            state = pass_state(s.plan, s.cells, s.attempts(), occurrence)
            skipped = s.skipped()
            pick = None
            if len(in_flight) < max(1, s.plan.parallel) and s.control.going.is_set():
                pick = _pick(s, state, skipped, in_flight)
            if pick is not None:
                if not first and s.plan.pause_s > 0 and await _wait(s, s.plan.pause_s):
                    continue
                first = False
                key, cell = pick
                s.observer.on_run_started(key, cell)
                s.started += 1
                task = asyncio.ensure_future(_one_run(s, key, cell))
                in_flight[task] = (key, cell)
                continue
            if not in_flight:
                if pass_complete(state, skipped):
                    return CampaignStatus.COMPLETED
                if await _idle(s):
                    return CampaignStatus.CANCELLED
                continue
            cancelled = asyncio.ensure_future(s.control.cancel.wait())
            try:
                await asyncio.wait({*in_flight, cancelled}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                cancelled.cancel()
            for task in [t for t in in_flight if t.done()]:
                key, cell = in_flight.pop(task)
                _after_run(s, key, cell, task.result())
    finally:
        for task in in_flight:
            task.cancel()


def _pick(
    s: _Session,
    state: PassState,
    skipped: dict[int, str],
    in_flight: dict[asyncio.Task[RunOutcome], tuple[RunKey, Cell]],
) -> tuple[RunKey, Cell] | None:
    """The next run to start: the first candidate whose pair shares no host with a run in
    flight and whose retry delay has passed."""
    busy_cells = {key.cell for key, _ in in_flight.values()}
    busy_hosts = {h for _, cell in in_flight.values() for h in _hosts(s.pairs[cell.pair])}
    now = s.clock()
    for key in next_runs(s.plan, s.seed, state, skipped=skipped, busy=busy_cells):
        cell = s.cells[key.cell]
        if s.retry_after.get(key.cell, 0.0) > now:
            continue
        if busy_hosts & _hosts(s.pairs[cell.pair]):
            continue
        return key, cell
    return None


def _hosts(pair: HostPair) -> set[str]:
    return {pair.client.name, pair.server.name}


async def _idle(s: _Session) -> bool:
    """Nothing can start and nothing runs: wait for the pause to end or a retry delay to
    pass. True when cancelled."""
    if not s.control.going.is_set():
        set_paused(s.lib, s.campaign_id, True)
        s.observer.on_notice("paused")
        going = asyncio.ensure_future(s.control.going.wait())
        cancelled = asyncio.ensure_future(s.control.cancel.wait())
        try:
            await asyncio.wait({going, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            going.cancel()
            cancelled.cancel()
        set_paused(s.lib, s.campaign_id, False)
        return s.control.cancel.is_set()
    now = s.clock()
    waits = [t - now for t in s.retry_after.values() if t > now]
    if not waits:  # nothing to wait for: a cell whose pair is gone; skip what is left
        raise LibraryError("the campaign cannot go on: its open cells have no pair to run on")
    s.observer.on_waiting(min(waits), "retry")
    return await _wait(s, min(waits))


async def _one_run(s: _Session, key: RunKey, cell: Cell) -> RunOutcome:
    pair = s.pairs[cell.pair]
    at = s.clock()
    runner = s.runners.get(cell.probe)
    observer = s.run_observer.for_run(key)
    try:
        if runner is not None:
            outcome = await runner.run(
                s.campaign_id, key, cell, pair, observer=observer, cancel=s.control.cancel
            )
        elif cell.probe not in ("", BURST):
            why = f"this program cannot run {cell.probe} cells"
            outcome = RunOutcome(None, "failed", None, why)
        else:
            spec = cell_spec(s.campaign_id, cell, key, pair)
            outcome = await run_cell(
                s.lib, s.connector, pair, spec, cell, observer=observer, cancel=s.control.cancel
            )
    finally:
        s.run_observer.release(key)
    run_id = outcome.run.id if outcome.run is not None else None
    where = (key.cell, key.occurrence, key.round, key.attempt)
    record_campaign_run(
        s.lib,
        s.campaign_id,
        where,
        run_id,
        outcome.status,
        outcome.value,
        at,
        outcome.error,
        suite_id=outcome.suite_id,
    )
    return outcome


def _after_run(s: _Session, key: RunKey, cell: Cell, outcome: RunOutcome) -> None:
    """Tell the observer; after a failure, schedule the retry, or skip the cell when its
    retries are spent, or the pair after too many failures in a row."""
    s.observer.on_run_finished(key, cell, outcome)
    if outcome.status in ("completed", "cancelled"):
        s.retry_after.pop(key.cell, None)
        return
    if outcome.status == BUSY:  # not a failure: try again once the other run may be done
        s.retry_after[key.cell] = s.clock() + max(s.plan.retry.delay_s, BUSY_WAIT_S)
        s.observer.on_notice(f"{cell.title}: {outcome.error}; trying again")
        return
    if key.attempt > s.plan.retry.retries:
        skip_cell(
            s.lib,
            s.campaign_id,
            key.cell,
            f"failed {key.attempt} time(s) in round {key.round}: {outcome.error}",
        )
        s.observer.on_notice(f"skipping {cell.title}: {outcome.error}")
    else:
        s.retry_after[key.cell] = s.clock() + s.plan.retry.delay_s
    limit = s.plan.retry.skip_pair_after
    if limit > 0 and trailing_failures(s.attempts(), s.cells, cell.pair) >= limit:
        _skip_pair(
            s, cell.pair, f"{limit} failures in a row on pair {cell.pair} (last: {outcome.error})"
        )


async def _drain(
    s: _Session, in_flight: dict[asyncio.Task[RunOutcome], tuple[RunKey, Cell]]
) -> None:
    """Wait for the runs in flight to end (cancel is set: each stores itself cancelled)."""
    if in_flight:
        await asyncio.wait(set(in_flight))
        for task, (key, cell) in list(in_flight.items()):
            if not task.cancelled() and task.exception() is None:
                s.observer.on_run_finished(key, cell, task.result())
        in_flight.clear()
