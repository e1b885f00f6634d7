"""Campaigns as the window and the CLI use them: preview a plan (cells, runs, duration),
start one, resume one, list and show campaigns with each cell's verdict."""

from __future__ import annotations

import fnmatch
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from pairbench.analysis.campaign import (
    COMPLETED,
    NOT_A_FAILURE,
    Attempt,
    CellVerdict,
    cell_verdict,
    planned_runs,
    pooled_attempts,
)
from pairbench.analysis.campaign_cells import PlanError, expand_cells
from pairbench.analysis.campaign_schedule import slot_times
from pairbench.analysis.outliers import OutlierPolicy
from pairbench.domain import HostPair
from pairbench.domain.campaign import (
    STORAGE,
    WARN_RUNS,
    CampaignStatus,
    Cell,
    Plan,
    plan_from_json,
    plan_to_json,
)
from pairbench.engine.campaign import (
    Clock,
    Sleep,
    run_campaign,
)
from pairbench.engine.campaign_control import CampaignControl as CampaignControl
from pairbench.engine.campaign_control import CampaignObserver
from pairbench.engine.campaign_control import CampaignOutcome as CampaignOutcome
from pairbench.engine.campaign_run import RunOutcome as RunOutcome
from pairbench.engine.campaign_state import attempts_of
from pairbench.engine.observer import RunObserver
from pairbench.engine.transports import Connector
from pairbench.library import Library, LibraryError
from pairbench.library import campaigns as stored
from pairbench.library.campaigns import StoredCampaign
from pairbench.library.hosts import list_pairs
from pairbench.remote.secrets import SecretPrompt
from pairbench.services.campaign_storage import StorageCellRunner
from pairbench.services.campaign_storage import expected_seconds as storage_seconds
from pairbench.tools.registry import get_tool

RUN_OVERHEAD_S = 1.5  # connecting, probing, starting the server: per run, for estimates
MAX_SEED = 2**31 - 1


def select_pairs(lib: Library, plan: Plan) -> list[HostPair]:
    """The plan's pairs: by name (each must exist), or every pair whose tags (or, for a tag
    the pair lacks, its client host's) match every glob of the selector."""
    if plan.pairs.names:
        known = {p.name: p for p in list_pairs(lib)}
        missing = [n for n in plan.pairs.names if n not in known]
        if missing:
            raise PlanError(
                f"unknown pair(s) {', '.join(missing)}; pairs: {', '.join(sorted(known)) or 'none'}"
            )
        return [known[n] for n in plan.pairs.names]
    chosen = [p for p in list_pairs(lib) if _matches(p, plan.pairs.tags)]
    if not chosen:
        shown = ", ".join(f"{k}={v}" for k, v in plan.pairs.tags.items())
        raise PlanError(f"no pair has the tags {shown} (see `pairbench pairs list`)")
    return sorted(chosen, key=lambda p: p.name)


def _matches(pair: HostPair, tags: dict[str, str] | object) -> bool:
    assert isinstance(tags, dict)
    for key, pattern in tags.items():
        value = pair.tags.get(key, pair.client.tags.get(key))
        if value is None or not fnmatch.fnmatchcase(value, pattern):
            return False
    return True


@dataclass(frozen=True, slots=True)
class CampaignPreview:
    """What a plan will do, before it runs: its cells, passes, runs and duration."""

    plan: Plan
    cells: list[Cell]
    passes: int
    runs_min: int
    runs_max: int
    seconds_min: float
    seconds_max: float
    warnings: list[str]


def preview_plan(lib: Library, plan: Plan) -> CampaignPreview:
    """Expand and estimate ``plan`` over the library's pairs; ``PlanError`` when it cannot
    run (unknown pair, a tag that selects nothing, an empty axis, a filter removing every
    cell, too many cells)."""
    cells = expand_cells(plan, select_pairs(lib, plan))
    passes = len(slot_times(plan.schedule, time.time()))
    low, high = planned_runs(plan, len(cells), passes)
    each = [_expected_seconds(c) for c in cells]
    # Runs on pairs that share no host may go at once: the time shrinks by about that much.
    spread = max(1, min(plan.parallel, len({c.pair for c in cells})))
    overhead = len(cells) * (RUN_OVERHEAD_S + plan.pause_s)
    per_pass_min = (sum(e[0] for e in each) + overhead) / spread
    per_pass_max = (sum(e[1] for e in each) + overhead) / spread
    seconds_min = per_pass_min * plan.repeats.min * passes
    seconds_max = per_pass_max * plan.repeats.max * passes
    if plan.schedule.kind != "once":
        span = slot_times(plan.schedule, time.time())
        seconds_min = max(seconds_min, span[-1] - span[0] + per_pass_min * plan.repeats.min)
        seconds_max = max(seconds_max, span[-1] - span[0] + per_pass_max * plan.repeats.max)
    warnings = []
    if high > WARN_RUNS:
        warnings.append(f"{high:,} runs at most (~{seconds_max / 3600:.1f} h): a long campaign")
    return CampaignPreview(plan, cells, passes, low, high, seconds_min, seconds_max, warnings)


def _expected_seconds(cell: Cell) -> tuple[float, float]:
    """How long one run of the cell takes, at least and at most (a suite: steady in its
    first window, or every stage to its last round; a burst probe: its limit)."""
    if cell.probe == STORAGE:
        return storage_seconds(cell.params)
    if cell.probe:
        limit = float(cell.params.get("duration", 600))
        return limit, limit
    tool = get_tool(cell.tool)
    seconds = tool.expected_seconds(tool.resolve(cell.params))
    return seconds, seconds


def create_from_plan(
    lib: Library, plan: Plan, text: str = "", *, created_at: float | None = None
) -> int:
    """Store a new campaign of ``plan`` (checked and expanded now: its pairs are chosen
    once, by their tags at this moment), ``running`` and owned by this process."""
    preview = preview_plan(lib, plan)
    seed = plan.seed if plan.seed is not None else random.SystemRandom().randrange(MAX_SEED)
    return stored.create_campaign(
        lib,
        plan.name,
        plan_to_json(plan),
        [c.to_json() for c in preview.cells],
        seed,
        plan_text=text,
        label=plan.label,
        created_at=created_at,
    )


async def start_campaign(
    lib: Library,
    plan: Plan,
    text: str = "",
    *,
    observer: CampaignObserver | None = None,
    run_observer: RunObserver | None = None,
    control: CampaignControl | None = None,
    secrets: SecretPrompt | None = None,
    accept_new_host_key: bool = False,
    on_created: Callable[[int], None] | None = None,
    clock: Clock = time.time,
    sleep: Sleep | None = None,
) -> CampaignOutcome:
    """Store a campaign of ``plan`` and run it to its end (or a cancel)."""
    campaign_id = create_from_plan(lib, plan, text, created_at=clock())
    if on_created is not None:
        on_created(campaign_id)
    return await _run(
        lib,
        campaign_id,
        observer,
        run_observer,
        control,
        secrets,
        accept_new_host_key,
        clock,
        sleep,
    )


async def resume_campaign(
    lib: Library,
    campaign_id: int,
    *,
    observer: CampaignObserver | None = None,
    run_observer: RunObserver | None = None,
    control: CampaignControl | None = None,
    secrets: SecretPrompt | None = None,
    accept_new_host_key: bool = False,
    clock: Clock = time.time,
    sleep: Sleep | None = None,
) -> CampaignOutcome:
    """Go on with a stopped campaign from its next run; ``LibraryError`` for a completed or
    unknown one, or one another process runs."""
    campaign = stored.get_campaign(lib, campaign_id)
    if campaign.status == CampaignStatus.COMPLETED.value:
        raise LibraryError(f"campaign {campaign_id} is completed: nothing to resume")
    stored.claim_campaign(lib, campaign_id)
    return await _run(
        lib,
        campaign_id,
        observer,
        run_observer,
        control,
        secrets,
        accept_new_host_key,
        clock,
        sleep,
    )


async def _run(
    lib: Library,
    campaign_id: int,
    observer: CampaignObserver | None,
    run_observer: RunObserver | None,
    control: CampaignControl | None,
    secrets: SecretPrompt | None,
    accept_new_host_key: bool,
    clock: Clock,
    sleep: Sleep | None,
) -> CampaignOutcome:
    import asyncio

    connector = Connector(lib, secrets=secrets, accept_new_host_key=accept_new_host_key)
    try:
        return await run_campaign(
            lib,
            campaign_id,
            connector,
            observer=observer,
            run_observer=run_observer,
            control=control,
            clock=clock,
            sleep=sleep or asyncio.sleep,
            runners={STORAGE: StorageCellRunner(lib, secrets, accept_new_host_key)},
        )
    finally:
        await connector.close()


# ----------------------------------------------------------------------------- browsing


@dataclass(frozen=True, slots=True)
class CellRow:
    """One cell as ``campaign show`` and the window's grid present it (pooled over passes)."""

    cell: Cell
    status: str  # pending (no run yet), open (more runs wanted), done, skipped
    reason: str  # why skipped, or the verdict ("CV 3.1 % ≤ 5.0 %")
    verdict: CellVerdict
    run_ids: tuple[int, ...]
    failures: int
    judged: tuple[Attempt, ...] = ()  # the runs behind ``verdict.values``, in their order
    suite_ids: tuple[int, ...] = ()  # a storage cell's completed suites


@dataclass(frozen=True, slots=True)
class CampaignShown:
    """One campaign with its plan, cells and progress."""

    campaign: StoredCampaign
    plan: Plan
    rows: list[CellRow]
    attempts: list[Attempt]
    passes: int
    passes_ended: dict[int, str]
    runs_done: int
    runs_planned: int


def list_all(lib: Library) -> list[StoredCampaign]:
    """Every campaign, newest first (one left ``running`` by a dead process is shown
    ``interrupted``)."""
    return stored.list_campaigns(lib)


def show_campaign(lib: Library, campaign_id: int) -> CampaignShown:
    """A campaign's cells with their verdicts over every pass; ``LibraryError`` if none."""
    campaign = stored.get_campaign(lib, campaign_id)
    plan = plan_from_json(campaign.plan)
    cells = [Cell.from_json(c) for c in campaign.cells]
    attempts = attempts_of(lib, campaign_id)
    skipped = stored.skipped_cells(lib, campaign_id)
    ended = stored.ended_passes(lib, campaign_id)
    passes = len(slot_times(plan.schedule, campaign.created_at))
    pooled = pooled_attempts(attempts)
    policy = OutlierPolicy.parse(plan.outliers)
    rows = []
    all_ended = len(ended) >= passes
    by_cell: dict[int, list[Attempt]] = {}
    for attempt in attempts:
        by_cell.setdefault(attempt.key.cell, []).append(attempt)
    for cell in cells:
        judged = tuple(pooled.get(cell.index, []))
        values = [a.value for a in judged if a.value is not None]
        verdict = cell_verdict(values, plan, outliers=policy)
        mine = by_cell.get(cell.index, [])
        ids = tuple(a.run_id for a in mine if a.run_id is not None and a.status == COMPLETED)
        suites = tuple(a.suite_id for a in mine if a.suite_id is not None and a.status == COMPLETED)
        failures = sum(1 for a in mine if a.status not in NOT_A_FAILURE and a.status != COMPLETED)
        if cell.index in skipped:
            status, reason = "skipped", skipped[cell.index]
        elif verdict.n == 0:
            status, reason = "pending", ""
        elif all_ended or (passes == 1 and not verdict.open):
            status, reason = "done", verdict.why
        else:
            status, reason = "open", verdict.why
        rows.append(CellRow(cell, status, reason, verdict, ids, failures, judged, suites))
    done = sum(1 for a in attempts if a.status == COMPLETED)
    live = len(cells) - len(skipped)
    planned = max(done, planned_runs(plan, live, passes)[0])
    return CampaignShown(campaign, plan, rows, attempts, passes, ended, done, planned)


def delete_campaign(lib: Library, campaign_id: int, *, with_runs: bool) -> list[int]:
    """Delete a stopped campaign (and its runs, with ``with_runs``)."""
    return stored.delete_campaign(lib, campaign_id, with_runs=with_runs)
