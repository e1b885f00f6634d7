"""Stored campaigns: the plan and its cells, status, the runs each cell ran, skipped cells
and the passes of its schedule that ended or were missed."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pairbench.library.connection import Library, LibraryError, write_transaction
from pairbench.library.ownership import (
    claim_row,
    current_owner,
    owner_alive,
    recover_orphaned_rows,
)
from pairbench.library.uuids import new_uuid


@dataclass(frozen=True, slots=True)
class StoredCampaign:
    """A campaign as the library keeps it (plan and cells as stored JSON)."""

    id: int
    name: str
    plan: dict[str, Any]
    plan_text: str
    cells: list[dict[str, Any]]
    seed: int
    status: str
    paused: bool
    created_at: float
    updated_at: float
    ended_at: float | None
    label: str
    error: str | None


@dataclass(frozen=True, slots=True)
class StoredCampaignRun:
    """One run a campaign started: where it sits, its run (None if deleted), its outcome."""

    cell: int
    occurrence: int
    round: int
    attempt: int
    run_id: int | None
    status: str
    value: float | None
    at: float
    error: str
    suite_id: int | None = None  # the storage suite a suite-valued cell ran


_COLUMNS = (
    "id, name, plan, plan_text, cells, seed, status, paused, created_at, updated_at, "
    "ended_at, label, error"
)


def _dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _json(text: object, kind: type) -> Any:
    try:
        value = json.loads(str(text))
    except ValueError as exc:
        raise LibraryError(f"a stored campaign field is damaged: {exc}") from None
    if not isinstance(value, kind):
        raise LibraryError(f"a stored campaign field is not a JSON {kind.__name__}")
    return value


def create_campaign(
    lib: Library,
    name: str,
    plan: Mapping[str, Any],
    cells: Sequence[Mapping[str, Any]],
    seed: int,
    *,
    plan_text: str = "",
    label: str = "",
    created_at: float | None = None,
) -> int:
    """Store a new campaign, ``running`` and owned by this process, with its UUID; its id."""
    lib.ensure_whole()
    now = time.time() if created_at is None else created_at
    host, pid, token = current_owner()
    cur = lib.conn.execute(
        "INSERT INTO campaigns (name, plan, plan_text, cells, seed, status, created_at, "
        "updated_at, label, owner_host, owner_pid, owner_token, uuid) "
        "VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)",
        (
            name,
            _dumps(dict(plan)),
            plan_text,
            _dumps([dict(c) for c in cells]),
            seed,
            now,
            now,
            label,
            host,
            pid,
            token,
            new_uuid(),
        ),
    )
    return int(cur.lastrowid or 0)


def claim_campaign(lib: Library, campaign_id: int) -> None:
    """Mark a campaign ``running`` by this process again (to resume it); ``LibraryError``
    when another live process runs it."""
    get_campaign(lib, campaign_id)
    try:
        claim_row(lib.conn, "campaigns", campaign_id, f"campaign {campaign_id}")
    except ValueError as exc:
        raise LibraryError(str(exc)) from None


def finish_campaign(
    lib: Library, campaign_id: int, status: str, *, error: str | None = None
) -> None:
    """End a campaign with this status (and the reason, for any end but completed)."""
    now = time.time()
    lib.conn.execute(
        "UPDATE campaigns SET status = ?, error = ?, ended_at = ?, updated_at = ?, paused = 0 "
        "WHERE id = ?",
        (status, error, now, now, campaign_id),
    )


def set_paused(lib: Library, campaign_id: int, paused: bool) -> None:
    """Record that a running campaign is paused (between runs) or going on."""
    lib.conn.execute(
        "UPDATE campaigns SET paused = ?, updated_at = ? WHERE id = ?",
        (int(paused), time.time(), campaign_id),
    )


def record_campaign_run(
    lib: Library,
    campaign_id: int,
    where: tuple[int, int, int, int],
    run_id: int | None,
    status: str,
    value: float | None,
    at: float,
    error: str = "",
    *,
    suite_id: int | None = None,
) -> None:
    """Store one run the campaign started (cell, pass, round, attempt), or the storage suite
    a suite-valued cell ran; a run already listed is not listed twice."""
    cell, occurrence, round_no, attempt = where
    clean = value if value is not None and value == value and abs(value) != float("inf") else None
    with write_transaction(lib.conn):
        lib.conn.execute(
            "INSERT INTO campaign_runs (campaign_id, cell, pass, round, attempt, run_id, "
            "status, value, at, error, suite_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (run_id) DO NOTHING",
            (
                campaign_id,
                cell,
                occurrence,
                round_no,
                attempt,
                run_id,
                status,
                clean,
                at,
                error,
                suite_id,
            ),
        )
        lib.conn.execute(
            "UPDATE campaigns SET updated_at = ? WHERE id = ?", (time.time(), campaign_id)
        )


def campaign_runs(lib: Library, campaign_id: int) -> list[StoredCampaignRun]:
    """The runs a campaign started, in the order they started."""
    rows = lib.conn.execute(
        "SELECT cell, pass, round, attempt, run_id, status, value, at, error, suite_id "
        "FROM campaign_runs WHERE campaign_id = ? ORDER BY at, id",
        (campaign_id,),
    ).fetchall()
    return [
        StoredCampaignRun(
            int(cell),
            int(occurrence),
            int(round_no),
            int(attempt),
            None if run_id is None else int(run_id),
            str(status),
            None if value is None else float(value),
            float(at),
            str(error),
            None if suite is None else int(suite),
        )
        for cell, occurrence, round_no, attempt, run_id, status, value, at, error, suite in rows
    ]


def tagged_runs(lib: Library, campaign_id: int) -> list[tuple[int, dict[str, str]]]:
    """Runs tagged with this campaign (id and tags) that its list does not hold yet: a run
    that ended as the program was killed, before the campaign recorded it."""
    rows = lib.conn.execute(
        "SELECT r.id, r.tags FROM runs r WHERE EXISTS (SELECT 1 FROM json_each(r.tags) t "
        "WHERE t.key = 'campaign' AND t.value = ?) AND r.status != 'running' "
        "AND NOT EXISTS (SELECT 1 FROM campaign_runs c WHERE c.run_id = r.id) ORDER BY r.id",
        (str(campaign_id),),
    ).fetchall()
    return [
        (int(run_id), {str(k): str(v) for k, v in _json(tags, dict).items()})
        for run_id, tags in rows
    ]


def skip_cell(lib: Library, campaign_id: int, cell: int, reason: str) -> None:
    """Skip a cell for the rest of the campaign, with the reason (kept if already skipped)."""
    lib.conn.execute(
        "INSERT INTO campaign_skips (campaign_id, cell, reason, at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        (campaign_id, cell, reason, time.time()),
    )


def skipped_cells(lib: Library, campaign_id: int) -> dict[int, str]:
    """The skipped cells and why."""
    rows = lib.conn.execute(
        "SELECT cell, reason FROM campaign_skips WHERE campaign_id = ? ORDER BY cell",
        (campaign_id,),
    ).fetchall()
    return {int(cell): str(reason) for cell, reason in rows}


def end_pass(lib: Library, campaign_id: int, occurrence: int, status: str, at: float) -> None:
    """Record that a pass of the schedule is done (``done``) or was missed (``missed``)."""
    lib.conn.execute(
        "INSERT INTO campaign_passes (campaign_id, pass, status, at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        (campaign_id, occurrence, status, at),
    )


def ended_passes(lib: Library, campaign_id: int) -> dict[int, str]:
    """The passes that are done or missed, and which."""
    rows = lib.conn.execute(
        "SELECT pass, status FROM campaign_passes WHERE campaign_id = ? ORDER BY pass",
        (campaign_id,),
    ).fetchall()
    return {int(p): str(s) for p, s in rows}


def _campaign(row: tuple[Any, ...]) -> StoredCampaign:
    (cid, name, plan, plan_text, cells, seed, status, paused, created, updated) = row[:10]
    ended, label, error = row[10:]
    return StoredCampaign(
        int(cid),
        str(name),
        _json(plan, dict),
        str(plan_text),
        _json(cells, list),
        int(seed),
        str(status),
        bool(paused),
        float(created),
        float(updated),
        None if ended is None else float(ended),
        str(label),
        None if error is None else str(error),
    )


def get_campaign(lib: Library, campaign_id: int) -> StoredCampaign:
    """The campaign with this id; ``LibraryError`` if there is none."""
    recover_orphaned_rows(lib.conn, "campaigns")
    row = lib.conn.execute(
        f"SELECT {_COLUMNS} FROM campaigns WHERE id = ?", (campaign_id,)
    ).fetchone()
    if row is None:
        raise LibraryError(f"no campaign with id {campaign_id}")
    return _campaign(row)


def list_campaigns(lib: Library) -> list[StoredCampaign]:
    """Every campaign, newest first."""
    recover_orphaned_rows(lib.conn, "campaigns")
    rows = lib.conn.execute(
        f"SELECT {_COLUMNS} FROM campaigns ORDER BY created_at DESC, id DESC"
    ).fetchall()
    return [_campaign(row) for row in rows]


def delete_campaign(lib: Library, campaign_id: int, *, with_runs: bool) -> list[int]:
    """Delete a campaign (not while it runs) and, with ``with_runs``, its runs; the ids of
    the runs deleted."""
    campaign = get_campaign(lib, campaign_id)
    if campaign.status == "running":
        raise LibraryError(f"campaign {campaign_id} is still running; cancel it first")
    listed = campaign_runs(lib, campaign_id)
    run_ids = [r.run_id for r in listed if r.run_id is not None]
    suites = sorted({r.suite_id for r in listed if r.suite_id is not None})
    run_ids += [
        int(run_id)
        for (run_id,) in lib.conn.execute(
            "SELECT run_id FROM suite_jobs WHERE run_id IS NOT NULL AND suite_id IN "
            "(SELECT value FROM json_each(?)) ORDER BY run_id",
            (json.dumps(suites),),
        )
    ]
    with write_transaction(lib.conn):
        lib.conn.execute("DELETE FROM campaigns WHERE id = ?", (campaign_id,))
        if with_runs:
            lib.conn.executemany("DELETE FROM suites WHERE id = ?", [(s,) for s in suites])
            lib.conn.executemany("DELETE FROM runs WHERE id = ?", [(r,) for r in run_ids])
    return run_ids if with_runs else []


def live_owner_pid(lib: Library, campaign_id: int) -> int:
    """The pid of the process on this computer running the campaign; ``LibraryError`` when
    it is not running, or runs on another computer."""
    import socket

    campaign = get_campaign(lib, campaign_id)
    if campaign.status != "running":
        raise LibraryError(f"campaign {campaign_id} is not running ({campaign.status})")
    host, pid, token = lib.conn.execute(
        "SELECT owner_host, owner_pid, owner_token FROM campaigns WHERE id = ?", (campaign_id,)
    ).fetchone()
    if str(host) != socket.gethostname():
        raise LibraryError(f"campaign {campaign_id} runs on {host}: stop it there")
    if not owner_alive(str(host), int(pid), str(token)):
        raise LibraryError(f"campaign {campaign_id}'s process {pid} is gone")
    return int(pid)
