"""A comparison's runs named on this computer (``12``) or in the team library (``team:UUID``),
loaded as the compare model's inputs.

Only the input side differs for a team run: its run as published (label, tags, pair, host
facts), no local pair (pairs are not published), its series through a ``TeamSeriesCache``
(fetched from the server the first time only). In the comparison a team run's id is ``-N``
(N: its id on the team server), so it never clashes with this computer's runs (ids ≥ 1);
``CompareInputs.team`` says which runs those are, their UUID and who ran them. Every run of a
mix knows who ran it (this computer's: the name it publishes under), so ``ran_by`` groups.
"""

from __future__ import annotations

import dataclasses
import uuid as uuidlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pairbench.analysis.compare_runs import GroupBy, RunInput
from pairbench.domain import Run
from pairbench.export.selection import SelectionError, select_run_ids
from pairbench.library import Library
from pairbench.services.compare import compare_inputs, with_defaults
from pairbench.services.team_browser import BROWSE_TIMEOUT_S, Published, TeamSeriesCache

TEAM_PREFIX = "team:"


@dataclass(frozen=True, slots=True)
class TeamRef:
    """A team run to compare: its UUID, and the run as listed and where it comes from when
    the caller has them (the window's Team list), so only its series are fetched."""

    uuid: str
    listed: Run | None = None
    published: Published | None = None


RunRef = int | TeamRef  # a run of this computer (its id) or of the team library


@dataclass(frozen=True, slots=True)
class CompareInputs:
    """The runs of a comparison, in the order named; ``team`` maps the comparison id of each
    team run (``-N``) to where it comes from."""

    inputs: list[RunInput]
    team: dict[int, Published] = field(default_factory=dict)


def team_compare_id(server_id: int) -> int:
    """A team run's id in a comparison: its id on the server, negated."""
    return -abs(server_id)


def parse_refs(lib: Library, selectors: Iterable[str]) -> list[RunRef]:
    """The runs the selectors name, in order, without repeats: ``team:UUID`` names a team
    run; anything else is a selector of this library's runs (``export.selection``)."""
    refs: list[RunRef] = []
    for selector in selectors:
        text = selector.strip()
        if text.lower().startswith(TEAM_PREFIX):
            raw = text[len(TEAM_PREFIX) :].strip()
            try:
                ref: RunRef = TeamRef(str(uuidlib.UUID(raw)))
            except ValueError:
                raise SelectionError(
                    f"{text!r}: a team run is named team:UUID (its UUID as `pairbench runs "
                    f"list --team --json` shows it)"
                ) from None
            if ref not in refs:
                refs.append(ref)
            continue
        refs += [i for i in select_run_ids(lib, [text]) if i not in refs]
    if not refs:
        raise SelectionError("no runs selected")
    return refs


def team_inputs(
    url: str,
    refs: Sequence[TeamRef],
    cache: TeamSeriesCache,
    *,
    timeout_s: float = BROWSE_TIMEOUT_S,
) -> list[tuple[RunInput, Published]]:
    """Team runs as compare inputs (network: call it off the GUI and engine threads): the
    runs not listed yet are read from the server, their series come from ``cache``."""
    from pairbench.library.team.store import TeamError, TeamUnreachableError
    from pairbench.services.team import open_store

    wanted = [r.uuid for r in refs if r.listed is None or r.published is None]
    found: dict[str, tuple[Run, Published]] = {}
    try:
        if wanted:
            with open_store(url, timeout_s=timeout_s) as store:
                store.ensure_schema(create=False)
                for key, t in store.runs_by_uuid(wanted).items():
                    found[key] = (t.run, Published(t.uuid, t.ran_by, t.origin, t.published_at))
        out: list[tuple[RunInput, Published]] = []
        for ref in refs:
            if ref.listed is not None and ref.published is not None:
                run, published = ref.listed, ref.published
            elif ref.uuid in found:
                run, published = found[ref.uuid]
            else:
                raise SelectionError(f"the team library has no run {ref.uuid}")
            series = cache.series(url, ref.uuid, timeout_s=timeout_s)
            run = dataclasses.replace(run, id=team_compare_id(run.id))
            item = RunInput(run, None, series, ran_by=published.ran_by)
            out.append((with_defaults(item), published))
    except TeamError as exc:
        reason = str(exc).split("; runs wait in the outbox")[0]  # said of publishing, not here
        kind = TeamUnreachableError if isinstance(exc, TeamUnreachableError) else TeamError
        raise kind(f"cannot load the team runs to compare: {reason}") from exc
    return out


def iter_inputs(
    lib: Library, refs: Sequence[RunRef], cache: TeamSeriesCache
) -> Iterator[tuple[RunInput, Published | None]]:
    """Each run of ``refs`` in order (with where a team run comes from), one at a time so a
    caller can report progress; team runs from this library's team server."""
    url: str | None = None
    me = local_name(lib) if any(isinstance(ref, TeamRef) for ref in refs) else ""
    for ref in refs:
        if isinstance(ref, TeamRef):
            if url is None:
                url = team_url(lib)
            yield team_inputs(url, [ref], cache)[0]
        else:
            yield local_input(lib, ref, ran_by=me), None


def local_input(lib: Library, run_id: int, *, ran_by: str = "") -> RunInput:
    """A run of this computer as a compare input (its pair, its series; ``ran_by``: who ran
    it, in a comparison with team runs)."""
    return dataclasses.replace(compare_inputs(lib, [run_id])[0], ran_by=ran_by)


def local_name(lib: Library) -> str:
    """Who runs this library's runs, as its published runs name them."""
    from pairbench.library.team import local
    from pairbench.services.team import default_name

    return local.get_setting(lib, local.NAME) or default_name()


def team_url(lib: Library) -> str:
    """This library's team server (read on the engine thread); ``SelectionError`` when it
    has none."""
    from pairbench.services.team import TeamSetupError, configured_url

    try:
        return configured_url(lib)
    except TeamSetupError as exc:
        raise SelectionError(f"cannot compare team runs: {exc}") from exc


def load_compare_inputs(
    lib: Library, refs: Sequence[RunRef], cache: TeamSeriesCache | None = None
) -> CompareInputs:
    """Every run of ``refs`` (a mix of this computer's and the team's) as compare inputs."""
    cache = cache if cache is not None else TeamSeriesCache()
    inputs: list[RunInput] = []
    team: dict[int, Published] = {}
    for item, published in iter_inputs(lib, refs, cache):
        inputs.append(item)
        if published is not None:
            team[item.run.id] = published
    return CompareInputs(inputs, team)


@dataclass(frozen=True, slots=True)
class ComparePlan:
    """What a comparison picked in several places (the window's pinned runs and selection)
    compares: ``refs`` each run once, in the order picked; ``missing``: this computer's runs
    no longer in the library (deleted meanwhile); ``merged``: team runs that are a run of
    this computer also picked (the same UUID), compared once as this computer's run."""

    refs: list[RunRef]
    missing: list[int] = field(default_factory=list)
    merged: dict[str, int] = field(default_factory=dict)  # team run UUID → this computer's id


def plan_compare(lib: Library, refs: Sequence[RunRef]) -> ComparePlan:
    """``refs`` without repeats: a run of this computer named twice, a team run named twice,
    and a team run published from this library (its UUID is a local run's ``runs.uuid``)
    next to that local run count once; the local copy stays (its series are read here, not
    fetched, and it keeps its pair). Runs of this computer that are gone are left out and
    listed in ``missing``. Reads the library (the engine thread), never the network."""
    from pairbench.library import LibraryError
    from pairbench.library.runs import get_run
    from pairbench.library.team import local

    mixed = any(isinstance(ref, TeamRef) for ref in refs)
    local_ids: list[int] = []
    missing: list[int] = []
    by_uuid: dict[str, int] = {}
    for ref in refs:
        if isinstance(ref, TeamRef) or ref in local_ids or ref in missing:
            continue
        try:
            get_run(lib, ref)
            if mixed:  # only a UUID a team run may share matters (given now if it has none)
                by_uuid[local.run_uuid(lib, ref).lower()] = ref
        except LibraryError:
            missing.append(ref)
            continue
        local_ids.append(ref)
    out: list[RunRef] = []
    seen: set[str] = set()
    merged: dict[str, int] = {}
    for ref in refs:
        if not isinstance(ref, TeamRef):
            if ref in local_ids and ref not in out:
                out.append(ref)
            continue
        key = ref.uuid.lower()
        if key in by_uuid:
            merged[ref.uuid] = by_uuid[key]
            if by_uuid[key] not in out:  # in the team run's place when picked first
                out.append(by_uuid[key])
        elif key not in seen:
            seen.add(key)
            out.append(ref)
    return ComparePlan(out, missing, merged)


def resolve_baseline(loaded: CompareInputs, wanted: str | None, by: GroupBy) -> str | None:
    """``--baseline`` as the compare model takes it: ``team:UUID`` or a team run's ``-N``
    (``#-N``) become that run's group; anything else is passed on as given."""
    if wanted is None:
        return None
    text = wanted.strip()
    key = text.removeprefix("#")
    for item in loaded.inputs:
        published = loaded.team.get(item.run.id)
        if published is not None and text.lower().startswith(TEAM_PREFIX):
            if text[len(TEAM_PREFIX) :].strip().lower() == published.uuid.lower():
                return by.name_of(item)
        elif key == str(item.run.id) and item.run.id < 0:
            return by.name_of(item)
    return wanted


def runs_payload(loaded: CompareInputs) -> list[dict[str, Any]]:
    """Each compared run for ``compare --json``: its id in the comparison, label, pair, who
    ran it (when known), and for a team run its UUID, on which computer it ran and its id on
    the server."""
    out: list[dict[str, Any]] = []
    for item in loaded.inputs:
        run = item.run
        published = loaded.team.get(run.id)
        entry: dict[str, Any] = {
            "id": run.id,
            "label": run.label,
            "pair": run.spec.pair,
            "ran_by": item.ran_by or None,
        }
        if published is None:
            entry["source"] = "local"
        else:
            entry |= {
                "source": "team",
                "uuid": published.uuid,
                "origin": published.origin,
                "team_id": -run.id,
            }
        out.append(entry)
    return out
