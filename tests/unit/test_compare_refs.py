"""Naming a comparison's runs on this computer or in the team library (no server needed):
``team:UUID`` selectors, team runs' ids in a comparison, a team run as the baseline, the
``ran_by`` grouping, ``compare --json``'s runs; a library without a team library says so."""

from __future__ import annotations

import dataclasses
import uuid

import pytest

from pairbench.analysis.compare import compare
from pairbench.analysis.compare_runs import CompareError, GroupBy, GroupKind
from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.export.selection import SelectionError
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run, finish_run
from pairbench.services.compare import compare_inputs
from pairbench.services.compare_refs import (
    CompareInputs,
    TeamRef,
    load_compare_inputs,
    parse_refs,
    resolve_baseline,
    runs_payload,
    team_compare_id,
)
from pairbench.services.team_browser import Published


def _run(lib: Library, label: str, values: list[float]) -> int:
    run_id = create_run(
        lib, RunSpec("p", "iperf3", {}, label=label), started_at=1000.0 + len(label)
    )
    rec = Recorder(lib, run_id)
    rec.add([Record("sum", i + 1.0, ("throughput_bps",), (v,)) for i, v in enumerate(values)])
    rec.flush()
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={}, complete=True)
    return run_id


def test_team_selectors_mix_with_local_ones_in_order_without_repeats(library: Library) -> None:
    ids = [_run(library, f"r{k}", [1.0, 2.0]) for k in range(3)]
    one, two = str(uuid.uuid4()), str(uuid.uuid4())
    refs = parse_refs(
        library,
        [f"{ids[0]}-{ids[1]}", f"TEAM:{one.upper()}", str(ids[0]), f"team:{two}", f"team:{one}"],
    )
    assert refs == [ids[0], ids[1], TeamRef(one), TeamRef(two)]
    with pytest.raises(SelectionError, match="team:UUID"):
        parse_refs(library, ["team:not-a-uuid"])
    with pytest.raises(SelectionError, match="no team library"):
        load_compare_inputs(library, [ids[0], TeamRef(one)])


def test_a_local_only_comparison_loads_as_before(library: Library) -> None:
    ids = [_run(library, f"r{k}", [float(k + 1), float(2 * k + 3)]) for k in range(3)]
    loaded = load_compare_inputs(library, parse_refs(library, [str(i) for i in ids]))
    assert loaded.team == {}
    assert all(item.ran_by == "" for item in loaded.inputs)
    got = compare(loaded.inputs).groups
    want = compare(compare_inputs(library, ids)).groups
    assert [g.stats for g in got] == [g.stats for g in want]
    assert [r["source"] for r in runs_payload(loaded)] == ["local"] * len(ids)


def _mixed(library: Library) -> CompareInputs:
    """A local run by bob and a team run (as if listed by the server) by alice."""
    ids = [_run(library, "mine", [10.0, 12.0]), _run(library, "theirs", [20.0, 22.0, 24.0])]
    mine, theirs = compare_inputs(library, ids)
    published = Published(str(uuid.uuid4()), "alice", "laptop", 5.0)
    tid = team_compare_id(theirs.run.id)
    inputs = [
        dataclasses.replace(mine, ran_by="bob"),
        dataclasses.replace(theirs, run=dataclasses.replace(theirs.run, id=tid), ran_by="alice"),
    ]
    return CompareInputs(inputs, {tid: published})


def test_team_runs_are_negative_ids_that_a_baseline_and_the_json_name(library: Library) -> None:
    loaded = _mixed(library)
    team_id, published = next(iter(loaded.team.items()))
    assert team_id < 0 and team_compare_id(-team_id) == team_id
    by = GroupBy.parse("label")
    assert resolve_baseline(loaded, f"team:{published.uuid.upper()}", by) == "theirs"
    assert resolve_baseline(loaded, f"#{team_id}", by) == "theirs"
    assert resolve_baseline(loaded, "mine", by) == "mine"
    assert resolve_baseline(loaded, None, by) is None
    payload = runs_payload(loaded)
    assert payload[0] == {
        "id": loaded.inputs[0].run.id,
        "label": "mine",
        "pair": "p",
        "ran_by": "bob",
        "source": "local",
    }
    assert payload[1]["uuid"] == published.uuid and payload[1]["ran_by"] == "alice"
    assert payload[1]["team_id"] == -team_id


def test_grouping_by_who_ran_them(library: Library) -> None:
    loaded = _mixed(library)
    by = GroupBy.parse("ran_by")
    assert by.kind is GroupKind.RAN_BY and str(by) == "ran_by"
    cmp = compare(loaded.inputs, metric="throughput_bps", group_by=by)
    assert [g.name for g in cmp.groups] == [i.ran_by for i in loaded.inputs]
    assert any(row.field == "ran by" for row in cmp.diff.rows)
    with pytest.raises(CompareError, match="ran_by"):
        GroupBy.parse("who")
