"""Browsing runs in the window: a page of a query (filtered, sorted and paged in SQL), the
filter choices, and one run in full."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pairbench.analysis.burst import BurstEstimate
from pairbench.domain import Run, RunStatus
from pairbench.domain.diagnosis import Diagnosis
from pairbench.library import Library
from pairbench.library.analyses import get_analyses
from pairbench.library.hosts import list_pairs
from pairbench.library.run_filter import Member as Member
from pairbench.library.run_store import LocalRunStore, RunStore
from pairbench.library.runs import RunFilter, SortKey, get_run, list_runs
from pairbench.library.series import SeriesArrays as SeriesArrays
from pairbench.library.series import load_raw_output
from pairbench.library.series import load_series as load_series
from pairbench.tools.registry import TOOLS

if TYPE_CHECKING:
    from pairbench.services.studies import StudyCounts

MAX_RAW_CHARS = 20_000_000  # what a detail view shows of a run's raw output
PAGE_SIZE = 200  # rows a browser loads at a time (more as the user scrolls)


@dataclass(frozen=True, slots=True)
class RunQuery:
    """What to show; None or empty means "any". ``since``/``until`` are epoch seconds."""

    pair: str | None = None
    tool: str | None = None
    status: RunStatus | None = None
    text: str | None = None
    tag: str | None = None  # "key" or "key=value"
    since: float | None = None
    until: float | None = None
    member: Member = "any"  # single runs, a suite's or a campaign's (``RunFilter.member``)
    member_id: int | None = None  # that one suite's or campaign's

    def is_empty(self) -> bool:
        """True when nothing is filtered."""
        return not any(
            (self.pair, self.tool, self.status, (self.text or "").strip(), (self.tag or "").strip())
        ) and (self.since, self.until) == (None, None)


@dataclass(frozen=True, slots=True)
class RunListing:
    """Runs matching a query, and the choices its filters offer."""

    runs: list[Run]
    pairs: list[str]
    tools: list[str]


def tag_matches(tags: Mapping[str, str], wanted: str) -> bool:
    """``key`` matches any run with that tag; ``key=value`` needs the value too (any case)."""
    key, sep, value = wanted.strip().partition("=")
    key = key.strip()
    if key not in tags:
        return False
    return not sep or tags[key].casefold() == value.strip().casefold()


def query_filter(
    query: RunQuery,
    *,
    sort: SortKey = "started",
    descending: bool = True,
    offset: int = 0,
    limit: int | None = None,
) -> RunFilter:
    """The library's filter for a query: every criterion in SQL, on the indexes."""
    return RunFilter(
        pair=query.pair or None,
        tool=query.tool or None,
        status=query.status,
        text=(query.text or "").strip() or None,
        since=query.since,
        until=query.until,
        tags=(query.tag,) if query.tag and query.tag.strip() else (),
        sort=sort,
        descending=descending,
        offset=offset,
        limit=limit,
        member=query.member,
        member_id=query.member_id,
    )


def _choices(store: RunStore, known_pairs: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """(pairs, tools) a browser's filters offer: the pairs and tools the store's runs name,
    with ``known_pairs`` (the library's own pairs) and every tool Pairbench runs."""
    pairs, tools = store.run_choices()
    return sorted(set(known_pairs) | set(pairs)), sorted(set(TOOLS) | set(tools))


def _local_choices(lib: Library) -> tuple[list[str], list[str]]:
    return _choices(LocalRunStore(lib), (p.name for p in list_pairs(lib)))


def run_listing(lib: Library, query: RunQuery) -> RunListing:
    """Every run matching ``query``, newest first, with the filter choices."""
    pairs, tools = _local_choices(lib)
    return RunListing(list_runs(lib, query_filter(query)), pairs, tools)


@dataclass(frozen=True, slots=True)
class RunPage:
    """Runs ``offset`` .. ``offset + len(runs)`` of a query in its order, how many match in
    all, and the filter choices; ``bursts``: the stored burst analyses of the page's runs
    that found a step (their headline is burst → baseline, not one mean)."""

    runs: list[Run]
    total: int
    offset: int = 0
    pairs: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    bursts: dict[int, BurstEstimate] = field(default_factory=dict)
    # With single runs listed: the suites and campaigns their runs are grouped under.
    studies: StudyCounts | None = None


def browse_runs(
    lib: Library,
    query: RunQuery,
    *,
    sort: SortKey = "started",
    descending: bool = True,
    offset: int = 0,
    limit: int = PAGE_SIZE,
    choices: bool = True,
) -> RunPage:
    """One page of the runs matching ``query`` in the given order (filtered, sorted and
    paged in SQL), the number matching, and (with ``choices``) the filter choices."""
    known = [p.name for p in list_pairs(lib)] if choices else []
    page = browse_store(
        LocalRunStore(lib),
        query,
        sort=sort,
        descending=descending,
        offset=offset,
        limit=limit,
        choices=choices,
        known_pairs=known,
    )
    from pairbench.services.burst import stored_steps  # the engine's modules, when browsed
    from pairbench.services.studies import study_counts

    page.bursts.update(stored_steps(lib, [run.id for run in page.runs]))
    if choices and query.member == "single":
        page = dataclasses.replace(page, studies=study_counts(lib))
    return page


def browse_store(
    store: RunStore,
    query: RunQuery,
    *,
    sort: SortKey = "started",
    descending: bool = True,
    offset: int = 0,
    limit: int = PAGE_SIZE,
    choices: bool = True,
    known_pairs: Iterable[str] = (),
) -> RunPage:
    """``browse_runs`` on any store: one page of its runs matching ``query``, how many match
    (counted only when the page may not hold them all), and (with ``choices``) the pairs
    and tools its runs name with ``known_pairs`` and every tool Pairbench runs."""
    flt = query_filter(query, sort=sort, descending=descending, offset=offset, limit=limit)
    runs = store.list_runs(flt)
    total = store.count_runs(flt) if (offset or len(runs) >= limit) else len(runs)
    pairs, tools = _choices(store, known_pairs) if choices else ([], [])
    return RunPage(runs, total, offset, pairs, tools)


@dataclass(frozen=True, slots=True)
class RunDetail:
    """One run with its series and raw output (as one text, headed per source)."""

    run: Run
    series: list[SeriesArrays] = field(default_factory=list)
    raw_text: str = ""
    raw_truncated: bool = False
    analyses: dict[str, dict[str, Any]] = field(default_factory=dict)  # kind → its JSON

    def verdict(self) -> Diagnosis:
        """What limited the run: stored with it, else what its series and telemetry give."""
        from pairbench.engine.diagnose import verdict_of

        return verdict_of(self.run, self.series, self.analyses)


def load_run_detail(lib: Library, run_id: int, max_raw_chars: int = MAX_RAW_CHARS) -> RunDetail:
    """Everything a detail view shows of one run (``LibraryError`` if it is gone)."""
    run = get_run(lib, run_id)
    series = load_series(lib, run_id)
    text, truncated = raw_text(load_raw_output(lib, run_id), max_raw_chars)
    return RunDetail(run, series, text, truncated, get_analyses(lib, run_id))


def raw_text(chunks: Sequence[tuple[str, str]], max_chars: int = MAX_RAW_CHARS) -> tuple[str, bool]:
    """A run's raw output chunks (source, text) as one text, headed per source when there
    are several, at most ``max_chars`` long; and whether it was cut."""
    sources = list(dict.fromkeys(source for source, _ in chunks))
    parts: list[str] = []
    size = 0
    truncated = False
    for source in sources:
        text = "\n".join(t for s, t in chunks if s == source)
        if len(sources) > 1:
            text = f"── {source} ──\n{text}"
        if size + len(text) > max_chars:
            text = text[: max(0, max_chars - size)]
            truncated = True
        parts.append(text)
        size += len(text)
        if truncated:
            break
    return "\n\n".join(parts), truncated
