"""Storage suites and campaigns published to the team library: queued when they end or
change (or when asked), their runs published first through the runs' outbox, then each one
replacing its copy on the server; and the team's suites and campaigns listed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pairbench.library import Library
from pairbench.library.team import entity_local as local
from pairbench.library.team import local as runs_local
from pairbench.library.team.entities import publish_entity
from pairbench.library.team.entity_local import KINDS
from pairbench.library.team.entity_local import Kind as Kind
from pairbench.library.team.errors import STOPS_A_PUSH
from pairbench.library.team.store import TeamError, TeamStore

ENTITY_SCHEMA = 2  # the team server's first schema version holding suites and campaigns


@dataclass(frozen=True, slots=True)
class EntityTally:
    """Suites (or campaigns) a push stored now, found on the server as they stand, and
    left waiting."""

    pushed: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    pending: int = 0


@dataclass(frozen=True, slots=True)
class EntityPush:
    """What a push did with suites and campaigns, and why it stopped (empty if it did not)."""

    suites: EntityTally = field(default_factory=EntityTally)
    campaigns: EntityTally = field(default_factory=EntityTally)
    error: str = ""


def parse_ref(text: str) -> tuple[Kind, int] | int:
    """``12`` (a run), ``suite:3`` or ``campaign:2``; ``ValueError`` for anything else."""
    kind, sep, number = text.strip().partition(":")
    if not sep:
        return int(kind)
    if kind not in KINDS:
        raise ValueError(f"{text!r}: give a run id, suite:ID or campaign:ID")
    return ("suite" if kind == "suite" else "campaign"), int(number)


def prepare(lib: Library, refs: Sequence[tuple[Kind, int]], *, every: bool) -> EntityPush:
    """Before a push's runs go: queue the entities asked for (those published as they stand
    are counted as skipped), every ended one never published with ``every``, and those
    changed since published; then a queued campaign's suites, and the runs of every queued
    entity into the runs' outbox (so the push publishes them first). ``LibraryError`` for
    an entity that does not exist or still runs."""
    local.recover_orphaned(lib)
    skipped: dict[Kind, list[int]] = {k: [] for k in KINDS}
    for kind in KINDS:
        ids = list(dict.fromkeys(i for k, i in refs if k == kind))
        skipped[kind] = [i for i in ids if local.is_current(lib, kind, i)]
        local.queue_entities(lib, kind, [i for i in ids if i not in skipped[kind]])
    if every:
        local.queue_unpublished_entities(lib)
    local.queue_changed(lib)
    for queued in local.entity_outbox(lib):
        if queued.kind == "campaign" and _ended(lib, queued.kind, queued.entity_id):
            suites = local.campaign_suites(lib, queued.entity_id)
            ended = [s for s in suites if _ended(lib, "suite", s)]
            local.queue_entities(lib, "suite", ended)
    for queued in local.entity_outbox(lib):
        if _ended(lib, queued.kind, queued.entity_id):
            states = local.runs_states(lib, local.entity_runs(lib, queued.kind, queued.entity_id))
            waiting = [
                r for r, (status, pub, _) in states.items() if status != "running" and not pub
            ]
            runs_local.queue_runs(lib, waiting)
    return EntityPush(
        EntityTally(skipped=skipped["suite"]), EntityTally(skipped=skipped["campaign"])
    )


def _ended(lib: Library, kind: Kind, entity_id: int) -> bool:
    state = local.status_of(lib, kind, entity_id)
    return state is not None and state[0] != "running"


def blocked(lib: Library, kind: Kind, entity_id: int) -> str:
    """Why the entity cannot be published yet (a run or suite of it is not published), or
    an empty string."""
    states = local.runs_states(lib, local.entity_runs(lib, kind, entity_id))
    for run_id, (status, published, error) in sorted(states.items()):
        if status == "running":
            return f"its run {run_id} is still running"
        if not published:
            why = f": {error}" if error else ""
            return f"its run {run_id} is not published yet{why}"
    if kind == "campaign":
        for suite_id in local.campaign_suites(lib, entity_id):
            if local.published_uuid(lib, "suite", suite_id) is None:
                error = local.last_error(lib, "suite", suite_id)
                why = f": {error}" if error else ""
                return f"its suite {suite_id} is not published yet{why}"
    return ""


def publish_entities(
    lib: Library,
    store: TeamStore,
    url: str,
    *,
    ran_by: str,
    origin: str,
    prepared: EntityPush,
) -> EntityPush:
    """After a push's runs: publish the waiting suites, then campaigns, each in one
    transaction (a changed one replaces its copy). One that cannot go yet stays queued
    with the reason; a server that went away or refuses writes stops the rest."""
    pushed: dict[Kind, list[int]] = {k: [] for k in KINDS}
    skipped = {"suite": list(prepared.suites.skipped), "campaign": list(prepared.campaigns.skipped)}
    error = ""
    try:
        if store.ensure_schema(create=False) < ENTITY_SCHEMA:
            store.ensure_schema(create=True)  # the tables' owner upgrades it; others are told
    except TeamError as exc:
        _wait_all(lib, str(exc))
        return _result(lib, pushed, skipped, str(exc))
    for queued in local.entity_outbox(lib):
        kind, entity_id = queued.kind, queued.entity_id
        if not _ended(lib, kind, entity_id):
            continue  # running again (a campaign resumed): published once it ends
        why = blocked(lib, kind, entity_id)
        if why:
            # Not an error of its own: the run's own publish said what went wrong.
            local.mark_entity_waiting(lib, kind, entity_id, f"{kind} {entity_id}: {why}")
            continue
        key = local.entity_uuid(lib, kind, entity_id)
        try:
            stored, updated_at = publish_entity(
                store, lib, kind, entity_id, key, ran_by=ran_by, origin=origin
            )
        except STOPS_A_PUSH as exc:
            local.mark_entity_waiting(lib, kind, entity_id, str(exc))
            error = str(exc)
            break
        except TeamError as exc:
            local.mark_entity_waiting(lib, kind, entity_id, str(exc))
            error = error or str(exc)
            continue
        local.mark_entity_published(lib, kind, entity_id, key, url, updated_at)
        (pushed if stored else skipped)[kind].append(entity_id)
    return _result(lib, pushed, skipped, error)


def _wait_all(lib: Library, error: str) -> None:
    for queued in local.entity_outbox(lib):
        local.mark_entity_waiting(lib, queued.kind, queued.entity_id, error)


def _result(
    lib: Library, pushed: dict[Kind, list[int]], skipped: dict[str, list[int]], error: str
) -> EntityPush:
    tallies = [EntityTally(pushed[k], skipped[k], local.waiting_count(lib, k)) for k in KINDS]
    return EntityPush(tallies[0], tallies[1], error)


def waiting(lib: Library) -> dict[Kind, int]:
    """How many suites and campaigns wait to be published (ended ones only)."""
    return {k: local.waiting_count(lib, k) for k in KINDS}


def runs_of(refs: Iterable[tuple[Kind, int] | int]) -> tuple[list[int], list[tuple[Kind, int]]]:
    """Split ``parse_ref``'s results: run ids, and (kind, id) of suites and campaigns."""
    runs: list[int] = []
    entities: list[tuple[Kind, int]] = []
    for ref in refs:
        if isinstance(ref, int):
            runs.append(ref)
        else:
            entities.append(ref)
    return runs, entities
