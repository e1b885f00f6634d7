"""Which runs belong to a storage suite or a campaign (issue 28, point 2): ``RunFilter.member``
keeps single runs, a suite's jobs or a campaign's runs (its storage cells' suite jobs
included), in SQL on the indexes; the studies' run counts agree with it."""

from __future__ import annotations

import pytest

from pairbench.domain import RunSpec, RunStatus
from pairbench.domain.storage import StorageTest
from pairbench.engine.storage_suite import verdicts
from pairbench.library import Library
from pairbench.library.campaigns import create_campaign, finish_campaign, record_campaign_run
from pairbench.library.runs import (
    RunFilter,
    count_runs,
    create_run,
    finish_run,
    list_runs,
    query_plan,
)
from pairbench.library.suites import set_suite_verdicts, suite_jobs
from pairbench.library.team.filter import where_clause as team_where
from pairbench.services.storage import show_suite
from pairbench.services.studies import list_studies, study_counts
from storage_suites import params_of, store_suite


def _run(lib: Library, tool: str = "ping", tags: dict[str, str] | None = None) -> int:
    run_id = create_run(lib, RunSpec("local", tool, {}, tags=tags or {}))
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={"rtt_avg_ms": 0.05}, complete=True)
    return run_id


@pytest.fixture
def world(library: Library) -> dict[str, object]:
    """Two single runs (one tagged suite=… by hand: a tag makes no membership), a latency
    suite, a campaign of three runs, and a campaign whose storage cell ran another suite."""
    singles = [_run(library), _run(library, tags={"suite": "1"})]
    suite = store_suite(library, params_of(StorageTest.LATENCY, max_rounds=5), 1)
    campaign = create_campaign(library, "pings", {}, [{"pair": "local"}], 1)
    campaign_runs = []
    for attempt in range(3):
        run_id = _run(library, tags={"campaign": str(campaign)})
        record_campaign_run(library, campaign, (0, 0, 1, attempt), run_id, "completed", 0.05, 1.0)
        campaign_runs.append(run_id)
    finish_campaign(library, campaign, "completed")
    cell_suite = store_suite(library, params_of(StorageTest.LATENCY, max_rounds=5), 1)
    storage_campaign = create_campaign(library, "disks", {}, [{"pair": "local"}], 2)
    record_campaign_run(
        library, storage_campaign, (0, 0, 1, 0), None, "completed", 9.0, 1.0, suite_id=cell_suite
    )
    finish_campaign(library, storage_campaign, "completed")
    jobs = {s: {j.run_id for j in suite_jobs(library, s)} for s in (suite, cell_suite)}
    return {
        "singles": set(singles),
        "suite": suite,
        "suite_runs": jobs[suite],
        "campaign": campaign,
        "campaign_runs": set(campaign_runs),
        "cell_suite": cell_suite,
        "cell_suite_runs": jobs[cell_suite],
        "storage_campaign": storage_campaign,
    }


def _ids(lib: Library, **kwargs: object) -> set[int]:
    flt = RunFilter(**kwargs)  # type: ignore[arg-type]
    ids = {run.id for run in list_runs(lib, flt)}
    if flt.limit is None:
        assert count_runs(lib, flt) == len(ids)
    return ids


def test_membership_splits_the_library(library: Library, world: dict[str, object]) -> None:
    suite_runs, cell_runs = world["suite_runs"], world["cell_suite_runs"]
    assert isinstance(suite_runs, set) and isinstance(cell_runs, set)
    assert len(suite_runs) == len(cell_runs) > 12  # preconditioning + a round of 12 jobs
    everything = _ids(library)
    assert _ids(library, member="single") == world["singles"]
    assert _ids(library, member="suite") == suite_runs | cell_runs
    assert _ids(library, member="suite", member_id=world["suite"]) == suite_runs
    assert _ids(library, member="campaign") == world["campaign_runs"] | cell_runs
    assert _ids(library, member="campaign", member_id=world["campaign"]) == world["campaign_runs"]
    assert _ids(library, member="campaign", member_id=world["storage_campaign"]) == cell_runs
    single = _ids(library, member="single")
    assert single | _ids(library, member="suite") | _ids(library, member="campaign") == everything
    # Combined with the other criteria and paging, as any filter.
    assert _ids(library, member="single", tool="fio") == set()
    page = _ids(library, member="suite", member_id=world["suite"], limit=5, offset=5)
    assert len(page) == 5 and page <= suite_runs


def test_membership_searches_the_indexes(library: Library, world: dict[str, object]) -> None:
    for member in ("single", "suite", "campaign"):
        plan = " ".join(query_plan(library, RunFilter(member=member)))  # type: ignore[arg-type]
        assert "INDEX suite_jobs_run (run_id=?)" in plan, plan
        if member != "suite":
            assert "INDEX campaign_runs_run (run_id=?)" in plan, plan
        assert "SCAN sj" not in plan and "SCAN cr" not in plan, plan


def test_the_studies_count_what_the_filter_lists(
    library: Library, world: dict[str, object]
) -> None:
    # The verdicts as the scheduler stores them after a round (engine.storage_suite).
    progress = show_suite(library, world["suite"]).progress  # type: ignore[arg-type]
    set_suite_verdicts(library, world["suite"], verdicts(progress))  # type: ignore[arg-type]
    suites = {s.id: s for s in list_studies(library, "suite")}
    campaigns = {c.id: c for c in list_studies(library, "campaign")}
    for suite_id, study in suites.items():
        assert study.runs == len(_ids(library, member="suite", member_id=suite_id))
    [stage] = progress.stages
    assert stage.verdict.reached_at is None
    expected = f"{stage.stage.name}: not steady in {len(stage.values)} rounds"
    assert suites[world["suite"]].result == expected  # type: ignore[index]
    assert suites[world["cell_suite"]].result == ""  # type: ignore[index]  # none stored
    for campaign_id, study in campaigns.items():
        assert study.runs == len(_ids(library, member="campaign", member_id=campaign_id))
    assert campaigns[world["storage_campaign"]].where == "local"  # type: ignore[index]
    counts = study_counts(library)
    assert (counts.suites, counts.campaigns) == (2, 2)
    assert counts.suite_runs == len(_ids(library, member="suite"))
    assert counts.campaign_runs == len(_ids(library, member="campaign"))


def test_bad_membership_and_the_team_library_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown membership"):
        RunFilter(member="studies")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="member_id names a suite or a campaign"):
        RunFilter(member="single", member_id=3)
    with pytest.raises(ValueError, match="no grouping by suite or campaign"):
        team_where(RunFilter(member="single"))
    assert team_where(RunFilter(member="any")) == ("", [])
