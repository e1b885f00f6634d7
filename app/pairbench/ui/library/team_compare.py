"""Comparing team runs from the Library tab's Team source: the selected rows as ``TeamRef``s
(the run as listed and who ran it, so only its series are fetched, once per session)."""

from __future__ import annotations

from pairbench.domain import Run
from pairbench.services.compare_refs import RunRef, TeamRef
from pairbench.ui.library.runs_model import RunsTableModel


def team_refs(model: RunsTableModel, runs: list[Run]) -> list[RunRef]:
    """The selected team runs as a comparison names them (rows without an origin are left
    out: they are not the team's)."""
    refs: list[RunRef] = []
    for run in runs:
        origin = model.origin_of(run.id)
        if origin is not None:
            refs.append(TeamRef(origin.uuid, run, origin))
    return refs
