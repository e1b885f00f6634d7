"""Storage suites and campaigns as the Library lists them: one row per study with how many
runs it holds, and the counts the run list names when it shows single runs only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pairbench.library import Library
from pairbench.library.studies import campaign_run_counts, study_totals, suite_run_counts
from pairbench.services.campaigns import list_all
from pairbench.services.storage import KIND as SUITE_KIND
from pairbench.services.storage import storage_suites

StudyKind = Literal["suite", "campaign"]


@dataclass(frozen=True, slots=True)
class Study:
    """One storage suite or campaign in the Library's list."""

    kind: StudyKind
    id: int
    title: str  # the suite's test and target, the campaign's name
    where: str  # the suite's host, the campaign's pairs
    label: str
    status: str
    created_at: float
    runs: int  # runs of it the library holds
    result: str  # the suite's verdicts, the campaign's cells

    @property
    def name(self) -> str:
        """``storage suite #3`` or ``campaign #2``."""
        return f"{'storage suite' if self.kind == 'suite' else 'campaign'} #{self.id}"


@dataclass(frozen=True, slots=True)
class StudyCounts:
    """How many suites and campaigns there are, and the runs they hold."""

    suites: int = 0
    suite_runs: int = 0
    campaigns: int = 0
    campaign_runs: int = 0


def _verdicts(verdicts: dict[str, object]) -> str:
    """``latency: not steady in 5 rounds``; one clause per stage."""
    parts = []
    for stage, value in verdicts.items():
        if not isinstance(value, dict):
            continue
        rounds = value.get("rounds")
        if value.get("reached"):
            parts.append(f"{stage}: steady at round {value.get('round')}")
        else:
            parts.append(f"{stage}: not steady in {rounds} rounds")
    return "; ".join(parts)


def list_studies(lib: Library, kind: StudyKind) -> list[Study]:
    """Every storage suite (``kind`` suite) or campaign, newest first, with its run count."""
    if kind == "suite":
        counts = suite_run_counts(lib)
        return [
            Study(
                "suite",
                s.id,
                f"{s.params.get('test', '')} on {s.params.get('target', '')}",
                s.host,
                s.label,
                s.status,
                s.created_at,
                counts.get(s.id, 0),
                _verdicts(s.verdicts),
            )
            for s in storage_suites(lib)
        ]
    counts = campaign_run_counts(lib)
    studies = []
    for c in list_all(lib):
        pairs = list(dict.fromkeys(str(cell.get("pair", "")) for cell in c.cells))
        studies.append(
            Study(
                "campaign",
                c.id,
                c.name,
                ", ".join(p for p in pairs if p),
                c.label,
                c.status,
                c.created_at,
                counts.get(c.id, 0),
                f"{len(c.cells)} cell{'s' if len(c.cells) != 1 else ''}",
            )
        )
    return studies


def study_counts(lib: Library) -> StudyCounts:
    """The suites and campaigns with the runs they hold (the single-run list names them)."""
    suites, campaigns = study_totals(lib, SUITE_KIND)
    return StudyCounts(
        suites,
        sum(suite_run_counts(lib).values()),
        campaigns,
        sum(campaign_run_counts(lib).values()),
    )
