"""One interface for reading runs (``RunStore``) and its two stores: this computer's library
(``LocalRunStore``) and the team library on PostgreSQL (``TeamRunStore``).

Both list, count and page runs for the same ``RunFilter`` with the same meaning, name the
pairs and tools their runs hold, and load a listed run's series as the same arrays. A run
is keyed by the run as its store listed it: ids are the store's own (a team run's id is the
server's), so a run listed by one store is loaded from that store only. Neither adapter
holds logic of its own: each calls its library's functions. psycopg and numpy are imported
only by what a store does, not by this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pairbench.library import runs as local
from pairbench.library.run_choices import run_pairs, run_tools
from pairbench.library.run_filter import IdRange, RunFilter

if TYPE_CHECKING:
    from pairbench.domain import Run
    from pairbench.library.connection import Library
    from pairbench.library.series import SeriesArrays
    from pairbench.library.team.store import TeamRun, TeamStore


class RunStore(Protocol):
    """Where runs are read from: a library on this computer, or the team's server."""

    def list_runs(self, flt: RunFilter | None = None) -> list[Run]:
        """The runs matching ``flt``, in its order, one page of them (its offset, limit)."""
        ...

    def count_runs(self, flt: RunFilter | None = None) -> int:
        """How many runs match ``flt`` (its order, limit and offset aside)."""
        ...

    def run_choices(self) -> tuple[list[str], list[str]]:
        """The pairs and the tools the store's runs name, each sorted."""
        ...

    def load_series(self, run: Run) -> list[SeriesArrays]:
        """The series of a run this store listed ("sum" first, then by stream and metric)."""
        ...


class LocalRunStore:
    """A local library (``Library``) as a ``RunStore``."""

    def __init__(self, lib: Library) -> None:
        self.lib = lib

    def list_runs(self, flt: RunFilter | None = None) -> list[Run]:
        return local.list_runs(self.lib, flt)

    def count_runs(self, flt: RunFilter | None = None) -> int:
        return local.count_runs(self.lib, flt)

    def run_choices(self) -> tuple[list[str], list[str]]:
        return run_pairs(self.lib), run_tools(self.lib)

    def load_series(self, run: Run) -> list[SeriesArrays]:
        from pairbench.library.series import load_series

        return load_series(self.lib, run.id)


class TeamRunStore:
    """A connection to the team library (``TeamStore``) as a ``RunStore``; ``published``
    says where a run it listed comes from (its UUID, who ran it, where, when published)."""

    def __init__(self, store: TeamStore) -> None:
        self.store = store
        self._listed: dict[int, TeamRun] = {}  # by the server's id: what was listed

    def list_team_runs(self, flt: RunFilter | None = None) -> list[TeamRun]:
        """``list_runs``, each run with where it comes from."""
        found = self.store.list_runs(flt=flt)
        self._listed.update((t.run.id, t) for t in found)
        return found

    def list_runs(self, flt: RunFilter | None = None) -> list[Run]:
        return [t.run for t in self.list_team_runs(flt)]

    def count_runs(self, flt: RunFilter | None = None) -> int:
        return self.store.count_runs(flt)

    def run_choices(self) -> tuple[list[str], list[str]]:
        return self.store.run_choices()

    def published(self, run: Run) -> TeamRun:
        """Where a run of the team library comes from (read from the server when this store
        did not list it); ``TeamError`` when the server has no run of its id."""
        found = self._listed.get(run.id)
        if found is None:
            self.list_team_runs(RunFilter(ids=(IdRange(run.id, run.id),)))
            found = self._listed.get(run.id)
        if found is None:
            from pairbench.library.team.store import TeamError

            raise TeamError(f"the team library {self.store.target} has no run {run.id}")
        return found

    def load_series(self, run: Run) -> list[SeriesArrays]:
        return self.store.load_series(self.published(run).uuid)
