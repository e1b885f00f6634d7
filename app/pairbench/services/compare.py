"""Comparing runs: the runs a comparison reads (one at a time, for progress), each with its
tool's parameter defaults (what a run that recorded none of them ran with)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence

from pairbench.analysis.compare_runs import RunInput
from pairbench.export.selection import load_inputs
from pairbench.library import Library
from pairbench.tools.registry import TOOLS


def param_defaults(tool: str) -> Mapping[str, str]:
    """A tool's parameters' defaults as text (none for a tool Pairbench does not know)."""
    known = TOOLS.get(tool)
    return {} if known is None else {name: p.default for name, p in known.params.items()}


def with_defaults(item: RunInput) -> RunInput:
    """The input with its tool's parameter defaults (for the metadata diff)."""
    return dataclasses.replace(item, param_defaults=param_defaults(item.run.spec.tool))


def compare_inputs(lib: Library, run_ids: Sequence[int]) -> list[RunInput]:
    """Each run with its pair and series, in the order given."""
    return [with_defaults(item) for item in load_inputs(lib, run_ids)]


def iter_compare_inputs(lib: Library, run_ids: Sequence[int]) -> Iterator[RunInput]:
    """The same runs one by one, so a caller can report progress and stop between runs."""
    for run_id in run_ids:
        yield from compare_inputs(lib, [run_id])
