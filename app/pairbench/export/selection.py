"""Choosing runs from the library for a comparison, and loading them as ``RunInput``s.

A selector is a run id (``12``), a range (``12-17``), or every run of a pair, label or tag
(``pair:NAME``, ``label:TEXT``, ``tag:KEY=VALUE``). The CLI and the compare view both use
this, so "every run with a tag" means the same in both.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pairbench.analysis.compare_runs import RunInput
from pairbench.domain import HostPair, Run, RunStatus
from pairbench.domain.diagnosis import DIAGNOSIS_KIND, from_payload
from pairbench.library import Library, LibraryError
from pairbench.library.analyses import get_analysis
from pairbench.library.hosts import get_pair
from pairbench.library.runs import RunFilter, get_run, list_runs
from pairbench.library.series import load_series

MAX_RANGE = 10_000


class SelectionError(ValueError):
    """A selector that matches nothing or cannot be read."""


def select_run_ids(lib: Library, selectors: Iterable[str]) -> list[int]:
    """The run ids the selectors name, in order, without repeats.

    A pair, label or tag selector takes finished runs only (oldest first), so a repeat
    series reads in the order it was run; an explicit id is taken as it is.
    """
    ids: list[int] = []
    for selector in selectors:
        for run_id in _one(lib, selector.strip()):
            if run_id not in ids:
                ids.append(run_id)
    if not ids:
        raise SelectionError("no runs selected")
    return ids


def _one(lib: Library, selector: str) -> list[int]:
    if selector.isdigit():
        return [int(selector)]
    first, dash, last = selector.partition("-")
    if dash and first.isdigit() and last.isdigit():
        lo, hi = int(first), int(last)
        if hi < lo or hi - lo > MAX_RANGE:
            raise SelectionError(f"bad run range {selector!r}")
        existing = {r.id for r in list_runs(lib)}
        return [i for i in range(lo, hi + 1) if i in existing]
    kind, colon, value = selector.partition(":")
    if not colon or not value:
        raise SelectionError(
            f"cannot read {selector!r}: give run ids (12, 12-17) or pair:NAME, label:TEXT, "
            "tag:KEY=VALUE"
        )
    runs = [r for r in list_runs(lib, RunFilter()) if r.status is not RunStatus.RUNNING]
    runs.sort(key=lambda r: (r.started_at, r.id))
    if kind == "pair":
        matched = [r.id for r in runs if r.spec.pair == value]
    elif kind == "label":
        matched = [r.id for r in runs if r.label == value]
    elif kind == "tag":
        key, eq, wanted = value.partition("=")
        if not eq:
            raise SelectionError(f"a tag selector looks like tag:KEY=VALUE, got {selector!r}")
        pairs = _pairs(lib)
        matched = [r.id for r in runs if _tag(r, pairs.get(r.spec.pair), key) == wanted]
    else:
        raise SelectionError(f"unknown selector {kind!r} in {selector!r}: use pair, label or tag")
    if not matched:
        raise SelectionError(f"no finished run matches {selector!r}")
    return matched


def _pairs(lib: Library) -> dict[str, HostPair]:
    from pairbench.library.hosts import list_pairs

    return {p.name: p for p in list_pairs(lib)}


def _tag(run: Run, pair: HostPair | None, key: str) -> str | None:
    if key in run.tags:
        return run.tags[key]
    if pair is not None:
        return pair.tags.get(key, pair.client.tags.get(key))
    return None


def load_inputs(lib: Library, run_ids: Sequence[int], *, series: bool = True) -> list[RunInput]:
    """Each run with its pair (None when the pair was removed) and, if asked, its series."""
    pairs: dict[str, HostPair | None] = {}
    inputs: list[RunInput] = []
    for run_id in run_ids:
        run = get_run(lib, run_id)
        name = run.spec.pair
        if name not in pairs:
            try:
                pairs[name] = get_pair(lib, name)
            except LibraryError:
                pairs[name] = None
        loaded = load_series(lib, run_id) if series else []
        verdict = from_payload(get_analysis(lib, run_id, DIAGNOSIS_KIND))
        inputs.append(RunInput(run, pairs[name], loaded, diagnosis=verdict))
    return inputs
