"""Stored runs' verdicts as table cells: what limited each run of a campaign or a suite."""

from __future__ import annotations

from collections.abc import Iterable

from pairbench.domain.diagnosis import DIAGNOSIS_KIND, from_payload
from pairbench.library import Library
from pairbench.library.analyses import get_analysis


def run_verdicts(lib: Library, run_ids: Iterable[int]) -> dict[int, str]:
    """Each run's stored verdict as a table cell ("cpu (client)"); runs without one left out."""
    found = {}
    for run_id in run_ids:
        verdict = from_payload(get_analysis(lib, run_id, DIAGNOSIS_KIND))
        if verdict is not None:
            found[run_id] = verdict.label()
    return found
