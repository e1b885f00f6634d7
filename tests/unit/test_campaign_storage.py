"""Campaign cells that run a storage suite: the plan's storage parameters checked before
anything runs, each cell's metric a column of the suite's report (in the tables' own units),
a suite a killed campaign left behind taken up again, and a deleted campaign taking its
suites and their job runs with it."""

from __future__ import annotations

import asyncio
import json

import pytest

from pairbench.analysis.campaign_cells import PlanError, main_metric
from pairbench.analysis.compare_runs import lower_is_better
from pairbench.analysis.storage_columns import (
    HEADLINE,
    column_names,
    named_values,
    suite_columns,
    suite_value,
)
from pairbench.analysis.storage_suite import suite_progress
from pairbench.analysis.storage_tables import suite_tables
from pairbench.domain import LOCAL_PAIR
from pairbench.domain.campaign import Cell, RunKey
from pairbench.domain.metrics import metric_unit
from pairbench.domain.storage import StorageTest, stages_of
from pairbench.domain.units import format_value
from pairbench.engine.storage_suite import done_jobs
from pairbench.library import Library
from pairbench.library import campaigns as stored
from pairbench.library.runs import list_runs
from pairbench.library.suites import get_suite, list_suites, suite_jobs
from pairbench.services.campaign_plan import parse_plan
from pairbench.services.campaign_storage import StorageCellRunner
from pairbench.services.campaigns import create_from_plan, delete_campaign, preview_plan
from storage_suites import params_of, store_suite

PLAN = """
name = "disks"
pairs = ["local"]
[[tests]]
tool = "fio"
probe = "storage"
params = {{ test = ["iops", "latency", "throughput"], target = "/var/tmp", size = "1GiB"{extra} }}
{metric}
"""


def _plan(extra: str = "", metric: str = "") -> str:
    return PLAN.format(extra=extra, metric=metric)


def test_a_storage_test_makes_a_cell_per_suite_with_its_headline_metric(library: Library) -> None:
    plan = parse_plan(_plan(", threads = 4, round_seconds = 30"))
    preview = preview_plan(library, plan)
    by_test = {c.params["test"]: c for c in preview.cells}
    assert sorted(by_test) == ["iops", "latency", "throughput"]
    for test, cell in by_test.items():
        assert cell.probe == "storage" and cell.tool == "fio"
        assert cell.metric == HEADLINE[StorageTest(test)]
        assert cell.metric == main_metric("fio", cell.params, "storage")
        assert cell.metric in column_names(StorageTest(test))
    # At most every stage to its last round, the default 25 rounds of 30 s each.
    jobs = {t: sum(len(s.jobs) for s in stages_of(StorageTest(t))) for t in by_test}
    assert preview.seconds_max >= sum(25 * 30 * n for n in jobs.values())


@pytest.mark.parametrize(
    ("extra", "metric", "words"),
    [
        (", thraeds = 4", "", "unknown storage parameter 'thraeds' (did you mean 'threads'?)"),
        (", iodepth = 0", "", "iodepth: 1..4096"),
        (', on = "middle"', "", "on: 'server' or 'client'"),
        (", purge = 3", "", "purge: true or false"),
        (", max_rounds = 3", "", "max rounds: 5..1000"),
        ("", 'metric = "iops_4k"', "metric 'iops_4k' is not a column of the suite"),
    ],
)
def test_a_storage_test_with_a_bad_parameter_is_refused_before_anything_runs(
    extra: str, metric: str, words: str
) -> None:
    with pytest.raises(PlanError) as caught:
        parse_plan(_plan(extra, metric))
    assert words in str(caught.value) and "storage suite" in str(caught.value)


def test_a_device_target_needs_its_confirmation_in_the_plan() -> None:
    device = _plan().replace('target = "/var/tmp", size = "1GiB"', 'target = "/dev/nvme9n1"')
    with pytest.raises(PlanError, match="DESTROYS"):
        parse_plan(device)
    confirmed = device.replace('"/dev/nvme9n1"', '"/dev/nvme9n1", confirm = "/dev/nvme9n1"')
    assert parse_plan(confirmed).tests[0].axes["confirm"] == ("/dev/nvme9n1",)
    with pytest.raises(PlanError, match="runs fio"):
        parse_plan(_plan().replace('tool = "fio"', 'tool = "iperf3"'))
    with pytest.raises(PlanError, match='"burst" or "storage"'):
        parse_plan(_plan().replace('probe = "storage"', 'probe = "disk"'))


@pytest.mark.parametrize("test", list(StorageTest))
def test_a_cells_value_is_a_report_column_in_the_tables_own_units(
    library: Library, test: StorageTest
) -> None:
    params = params_of(test)
    suite_id = store_suite(library, params, rounds=6)
    done = done_jobs(library, suite_id)
    progress = suite_progress(params, done)
    named = named_values(params, progress, done)
    # Every column, named alike (these stored jobs have no latency maxima: no peak column).
    assert sorted(named) == sorted(n for n in column_names(test) if not n.endswith("_peak_us"))
    columns = suite_columns(params, progress, done, suite_tables(params, progress, done))
    # CloudHarmony's columns are in its units (ms, MiB/s labelled MB/s); a cell keeps them in
    # the tables' (µs, B/s). Pairbench's own are in the tables' units already.
    per_unit = {"iops": 1.0, "latency": 1000.0, "throughput": 2.0**20}[test.value]
    own = ("_iops", "_us", "_bytes_per_s")
    for name, value in named.items():
        assert suite_value(params, done, name) == value
        factor = 1.0 if name.endswith(own) else per_unit
        assert value == columns[name] * factor
    headline = HEADLINE[test]
    unit = {"iops": "IO/s", "latency": "µs", "throughput": "B/s"}[test.value]
    assert metric_unit(headline) == unit and format_value(headline, named[headline]).endswith(
        {"IO/s": "IO/s", "µs": "s", "B/s": "B/s"}[unit]
    )
    assert lower_is_better(headline) is (test is StorageTest.LATENCY)
    assert suite_value(params, done, "iops_3k_1_99") is None


def _storage_campaign(library: Library) -> tuple[int, Cell]:
    plan = parse_plan(_plan().replace('["iops", "latency", "throughput"]', '"iops"'))
    campaign_id = create_from_plan(library, plan)
    [cell] = [Cell.from_json(c) for c in stored.get_campaign(library, campaign_id).cells]
    return campaign_id, cell


def test_a_suite_a_killed_campaign_finished_is_taken_not_run_again(library: Library) -> None:
    campaign_id, cell = _storage_campaign(library)
    key = RunKey(cell.index, 0, 1, 1)
    # A suite of this cell's round that completed as the program was killed: listed by no one.
    params = params_of(StorageTest.IOPS)
    suite_id = store_suite(library, params, rounds=5)
    library.conn.execute(
        "UPDATE suites SET tags = ? WHERE id = ?",
        (json.dumps(key.tags(campaign_id)), suite_id),
    )
    assert get_suite(library, suite_id).tags["campaign"] == str(campaign_id)
    runner = StorageCellRunner(library)
    outcome = asyncio.run(
        runner.run(campaign_id, key, cell, LOCAL_PAIR, observer=None, cancel=asyncio.Event())
    )
    assert (outcome.status, outcome.suite_id, outcome.run) == ("completed", suite_id, None)
    assert outcome.value == suite_value(params, done_jobs(library, suite_id), cell.metric)
    assert len(list_suites(library)) == 1  # nothing started


def test_deleting_a_campaign_with_its_runs_deletes_its_suites_and_their_jobs(
    library: Library,
) -> None:
    campaign_id, cell = _storage_campaign(library)
    kept = store_suite(library, params_of(StorageTest.IOPS), rounds=5)  # not the campaign's
    ours = store_suite(library, params_of(StorageTest.IOPS), rounds=5)
    stored.record_campaign_run(
        library, campaign_id, (cell.index, 0, 1, 1), None, "completed", 1.0, 0.0, suite_id=ours
    )
    [listed] = stored.campaign_runs(library, campaign_id)
    assert listed.suite_id == ours and listed.run_id is None
    stored.finish_campaign(library, campaign_id, "completed")
    runs_before = {r.id for r in list_runs(library)}
    jobs = {j.run_id for j in suite_jobs(library, ours)}
    deleted = delete_campaign(library, campaign_id, with_runs=True)
    assert set(deleted) == jobs and jobs < runs_before
    assert [s.id for s in list_suites(library)] == [kept]
    left = {r.id for r in list_runs(library)}
    assert left == runs_before - set(deleted) and left  # the other suite's jobs stay
