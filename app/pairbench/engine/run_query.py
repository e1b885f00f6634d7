"""Finding runs for a browser (pair, tool, status, text, tag, dates) and loading one in full."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pairbench.domain import Run, RunStatus
from pairbench.library import Library
from pairbench.library.hosts import list_pairs
from pairbench.library.runs import RunFilter, get_run, list_runs
from pairbench.library.series import SeriesArrays, load_raw_output, load_series
from pairbench.tools.registry import TOOLS

MAX_RAW_CHARS = 20_000_000  # what a detail view shows of a run's raw output


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


def find_runs(lib: Library, query: RunQuery) -> RunListing:
    """Runs matching ``query``, newest first, with the filter choices."""
    runs = list_runs(
        lib,
        RunFilter(
            pair=query.pair or None,
            tool=query.tool or None,
            status=query.status,
            text=(query.text or "").strip() or None,
            since=query.since,
            until=query.until,
            tags=(query.tag,) if query.tag and query.tag.strip() else (),
        ),
    )  # every filter in SQL, on the indexes (``library.runs``), as ``tag_matches`` reads tags
    pairs = sorted({p.name for p in list_pairs(lib)} | {run.spec.pair for run in runs})
    tools = sorted(set(TOOLS) | {run.spec.tool for run in runs})
    return RunListing(runs, pairs, tools)


@dataclass(frozen=True, slots=True)
class RunDetail:
    """One run with its series and raw output (as one text, headed per source)."""

    run: Run
    series: list[SeriesArrays] = field(default_factory=list)
    raw_text: str = ""
    raw_truncated: bool = False


def load_run_detail(lib: Library, run_id: int, max_raw_chars: int = MAX_RAW_CHARS) -> RunDetail:
    """Everything a detail view shows of one run (``LibraryError`` if it is gone)."""
    run = get_run(lib, run_id)
    series = load_series(lib, run_id)
    chunks = load_raw_output(lib, run_id)
    sources = list(dict.fromkeys(source for source, _ in chunks))
    parts: list[str] = []
    size = 0
    truncated = False
    for source in sources:
        text = "\n".join(t for s, t in chunks if s == source)
        if len(sources) > 1:
            text = f"── {source} ──\n{text}"
        if size + len(text) > max_raw_chars:
            text = text[: max(0, max_raw_chars - size)]
            truncated = True
        parts.append(text)
        size += len(text)
        if truncated:
            break
    return RunDetail(run, series, "\n\n".join(parts), truncated)
