"""Comparing runs: the runs a comparison reads (one at a time, for progress), then the model."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pairbench.analysis.compare import RunInput
from pairbench.export.selection import load_inputs
from pairbench.library import Library


def compare_inputs(lib: Library, run_ids: Sequence[int]) -> list[RunInput]:
    """Each run with its pair and series, in the order given."""
    return load_inputs(lib, run_ids)


def iter_compare_inputs(lib: Library, run_ids: Sequence[int]) -> Iterator[RunInput]:
    """The same runs one by one, so a caller can report progress and stop between runs."""
    for run_id in run_ids:
        yield from load_inputs(lib, [run_id])
