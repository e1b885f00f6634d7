"""A campaign's record of runs as the scheduler reads it: its attempts, the runs it had not
recorded when the program was killed (adopted from their tags), failures in a row."""

from __future__ import annotations

from collections.abc import Sequence

from pairbench.analysis.campaign import COMPLETED, LOST, NOT_A_FAILURE, Attempt
from pairbench.domain import RunStatus
from pairbench.domain.campaign import Cell, RunKey
from pairbench.engine.campaign_run import metric_value
from pairbench.library import Library, LibraryError
from pairbench.library.campaigns import campaign_runs, record_campaign_run, tagged_runs
from pairbench.library.runs import get_run


def attempts_of(lib: Library, campaign_id: int) -> list[Attempt]:
    """Every run the campaign recorded, as the scheduler judges them."""
    return [
        Attempt(
            RunKey(r.cell, r.occurrence, r.round, r.attempt),
            r.run_id,
            r.status,
            r.value,
            r.at,
            r.error,
            r.suite_id,
        )
        for r in campaign_runs(lib, campaign_id)
    ]


def adopt_tagged_runs(lib: Library, campaign_id: int, cells: Sequence[Cell]) -> list[str]:
    """Record the campaign's runs that ended (or were interrupted) while the program was
    being killed, before the campaign listed them: a completed one counts (it is not run
    again), one cut short is listed as ``lost``. What was adopted, in words."""
    notes: list[str] = []
    for run_id, tags in tagged_runs(lib, campaign_id):
        try:
            key = RunKey(
                int(tags["campaign_cell"]),
                int(tags["campaign_pass"]),
                int(tags["campaign_round"]),
                int(tags["campaign_attempt"]),
            )
            cell = cells[key.cell]
            run = get_run(lib, run_id)
        except (KeyError, ValueError, IndexError, LibraryError):
            continue  # a run tagged by hand, or a cell this campaign does not have
        value, why = metric_value(run, cell.metric)
        if value is not None:
            status = COMPLETED
        elif run.status is RunStatus.INTERRUPTED:
            status = LOST
        else:
            status = run.status.value if run.status is not RunStatus.COMPLETED else "failed"
        where = (key.cell, key.occurrence, key.round, key.attempt)
        record_campaign_run(lib, campaign_id, where, run_id, status, value, run.started_at, why)
        notes.append(
            f"run {run_id} ({cell.title}) was {run.status.value} when the campaign "
            f"stopped: listed as {status}"
        )
    return notes


def trailing_failures(attempts: Sequence[Attempt], cells: Sequence[Cell], pair: str) -> int:
    """How many of the pair's latest runs failed in a row."""
    count = 0
    for a in sorted(attempts, key=lambda a: (a.at, a.run_id or 0), reverse=True):
        if cells[a.key.cell].pair != pair or a.status in NOT_A_FAILURE:
            continue
        if a.status == COMPLETED:
            break
        count += 1
    return count
