"""The comparison model: groups, values, outliers listed, baseline, table, metadata diff."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from compare_runs import two_shapes
from pairbench.analysis.compare import compare, median_curve, metadata_diff
from pairbench.analysis.compare_runs import (
    CompareError,
    GroupBy,
    GroupKind,
    RunInput,
    default_metric,
)
from pairbench.analysis.outliers import OutlierPolicy
from pairbench.analysis.stats import describe, welch
from pairbench.domain import AuthMethod, Host, HostPair, Run, RunSpec, RunStatus
from pairbench.export.selection import SelectionError, load_inputs, select_run_ids
from pairbench.library import Library
from pairbench.library.runs import create_run, finish_run
from testkit import FIXTURES


@dataclass(frozen=True)
class _S:
    stream: str
    metric: str
    unit: str
    t: np.ndarray
    v: np.ndarray


def _run(
    run_id: int,
    value: float | None,
    *,
    label: str = "",
    pair: str = "p",
    tags: dict[str, str] | None = None,
    facts: dict[str, dict[str, str]] | None = None,
    version: str = "3.12",
    params: dict[str, str] | None = None,
    status: RunStatus = RunStatus.COMPLETED,
    extra: dict[str, float] | None = None,
) -> Run:
    summary = {} if value is None else {"throughput_bps": value}
    summary.update(extra or {})
    spec = RunSpec(pair, "iperf3", params or {}, label=label, tags=tags or {})
    return Run(
        run_id,
        spec,
        status,
        1e9 + run_id,
        1e9 + run_id + 10,
        version,
        summary,
        True,
        facts or {},
        label,
        tags or {},
    )


def _inputs(*runs: Run) -> list[RunInput]:
    return [RunInput(r) for r in runs]


def test_per_run_comparison_has_one_group_per_run() -> None:
    cmp = compare(_inputs(_run(1, 9e8, label="a"), _run(2, 8e8)))
    assert [g.name for g in cmp.groups] == ["#1 a", "#2"]
    assert cmp.metric.name == "throughput_bps" and cmp.metric.unit == "bit/s"
    assert cmp.baseline == "#1 a"
    g = cmp.group("#2")
    assert g.stats is not None and g.stats.n == 1 and g.stats.ci is None
    d = cmp.differences["#2"]
    assert d.difference == pytest.approx(-1e8) and d.relative == pytest.approx(-1 / 9)
    assert d.p_value is None  # one run per group: no test, and the note says why
    assert "≥ 2 runs" in d.note


def test_groups_by_label_with_stats_and_welch() -> None:
    a = [9.41e8, 9.38e8, 9.44e8]
    b = [8.2e8, 8.3e8, 8.25e8, 8.1e8]
    runs = [_run(i + 1, v, label="A") for i, v in enumerate(a)]
    runs += [_run(i + 10, v, label="B") for i, v in enumerate(b)]
    cmp = compare(_inputs(*runs), group_by=GroupBy.parse("label"), baseline="A")
    assert [g.name for g in cmp.groups] == ["A", "B"]
    assert cmp.group("A").stats == describe(a)
    assert cmp.differences["B"] == welch(b, a)
    row_b = cmp.table.rows[1]
    assert row_b.group == "B" and row_b.n == 4 and not row_b.is_baseline
    cell = row_b.cells[[c.metric for c in cmp.table.columns].index("throughput_bps")]
    assert cell.mean == pytest.approx(np.mean(b))
    assert cell.vs_baseline == pytest.approx((np.mean(b) - np.mean(a)) / np.mean(a))
    assert cmp.table.rows[0].is_baseline


def test_baseline_by_run_id_picks_its_group() -> None:
    runs = [_run(1, 1.0, label="x"), _run(2, 2.0, label="y"), _run(3, 2.1, label="y")]
    cmp = compare(_inputs(*runs), group_by=GroupBy.parse("label"), baseline="#3")
    assert cmp.baseline == "y"
    with pytest.raises(CompareError, match="neither a compared run nor a group"):
        compare(_inputs(*runs), baseline="nope")


def test_outliers_are_listed_per_group_and_leave_every_column() -> None:
    values = [941.0, 938.0, 944.0, 610.0, 940.0, 939.0]
    runs = [
        _run(i + 1, v * 1e6, label="A", extra={"latency_avg_us": 70.0 + i})
        for i, v in enumerate(values)
    ]
    cmp = compare(
        _inputs(*runs), group_by=GroupBy(GroupKind.LABEL), policy=OutlierPolicy.parse("iqr")
    )
    group = cmp.group("A")
    assert [(d.run_id, d.value) for d in group.discarded] == [(4, 610e6)]
    assert "below Q1" in group.discarded[0].reason
    assert group.kept_ids == (1, 2, 3, 5, 6)
    assert group.stats is not None and group.stats.n == 5
    latency = [c.metric for c in cmp.table.columns].index("latency_avg_us")
    assert cmp.table.rows[0].cells[latency].mean == pytest.approx(np.mean([70, 71, 72, 74, 75]))
    assert cmp.discarded == group.discarded


def test_tag_groups_fall_back_to_pair_tags() -> None:
    host = Host("h", "10.0.0.1", auth=AuthMethod.AGENT, tags={"zone": "c"})
    pair_a = HostPair("pa", host, host, tags={"zone": "a"})
    pair_b = HostPair("pb", host, host)
    items = [
        RunInput(_run(1, 1.0, pair="pa"), pair_a),
        RunInput(_run(2, 2.0, pair="pb"), pair_b),  # from the client host's tags
        RunInput(_run(3, 3.0, pair="pb", tags={"zone": "z"}), pair_b),  # the run's own
        RunInput(_run(4, 4.0, pair="gone")),
    ]
    cmp = compare(items, group_by=GroupBy.parse("tag:zone"))
    assert [g.name for g in cmp.groups] == ["a", "c", "z", "(no zone)"]


def test_missing_metric_is_warned_and_series_mean_is_the_fallback() -> None:
    series = _S("sum", "throughput_bps", "bit/s", np.arange(3.0), np.array([1.0, 2.0, 6.0]))
    items = [
        RunInput(_run(1, 5.0)),
        RunInput(_run(2, None), series=[series]),
        RunInput(_run(3, None, extra={"rtt_avg_ms": 1.0})),
    ]
    cmp = compare(items, metric="throughput_bps", group_by=GroupBy(GroupKind.LABEL))
    group = cmp.groups[0]
    assert [(v.run_id, v.value, v.source) for v in group.values] == [
        (1, 5.0, "summary"),
        (2, 3.0, "series mean"),
    ]
    assert group.missing == (3,)
    assert any("have no throughput_bps" in w for w in cmp.warnings)


def test_nan_summary_value_is_not_averaged() -> None:
    cmp = compare(_inputs(_run(1, math.nan), _run(2, 4.0)), group_by=GroupBy.parse("label"))
    assert cmp.groups[0].missing == (1,)
    assert cmp.groups[0].stats is not None and cmp.groups[0].stats.mean == 4.0


def test_default_metric_and_errors() -> None:
    items = _inputs(
        _run(1, None, extra={"latency_avg_us": 70.0}), _run(2, 1.0, extra={"latency_avg_us": 71})
    )
    assert default_metric(items) == "latency_avg_us"  # the first that every run has
    with pytest.raises(CompareError, match="no compared run has the metric"):
        compare(items, metric="read_iops")
    with pytest.raises(CompareError, match="no runs"):
        compare([])
    with pytest.raises(CompareError, match="listed twice"):
        compare(_inputs(_run(1, 1.0), _run(1, 1.0)))
    for bad in ("zone", "tag:", "label:x"):
        with pytest.raises(CompareError):
            GroupBy.parse(bad)


def test_non_completed_runs_are_warned() -> None:
    cmp = compare(_inputs(_run(1, 1.0, status=RunStatus.INTERRUPTED), _run(2, 2.0)))
    assert "run 1 is interrupted" in cmp.warnings


def test_metadata_diff_shows_only_differing_fields() -> None:
    facts_a = {"client": {"kernel": "6.1.0-18", "mtu": "1500", "rmem_max": "212992"}}
    facts_b = {"client": {"kernel": "6.1.0-21", "mtu": "1500", "rmem_max": "212992"}}
    items = _inputs(
        _run(1, 1.0, facts=facts_a, params={"duration": "10", "streams": "1"}),
        _run(2, 1.0, facts=facts_b, params={"duration": "10", "streams": "2"}, version="3.16"),
    )
    diff = metadata_diff(items, ["A", "B"])
    fields = {row.field: row.values for row in diff.rows}
    assert fields == {
        "tool version": ("3.12", "3.16"),
        "param streams": ("1", "2"),
        "client kernel": ("6.1.0-18", "6.1.0-21"),
    }
    assert diff.same > 0
    # Parameters explain a difference best: they come first, then the tool, then host facts.
    assert [field for field, _ in diff.by_group()] == [
        "param streams",
        "tool version",
        "client kernel",
    ]


def test_metadata_diff_marks_absent_fields_and_mixed_groups() -> None:
    items = _inputs(
        _run(1, 1.0, facts={"client": {"nic_driver": "ena"}}),
        _run(2, 1.0, facts={"client": {"nic_driver": "vif"}}),
        _run(3, 1.0),
    )
    diff = metadata_diff(items, ["A", "A", "B"])
    assert diff.rows[0].values == ("ena", "vif", "—")
    assert dict(diff.by_group())["client nic_driver"] == {"A": "ena | vif", "B": "—"}


def test_metadata_diff_hides_unset_against_empty_or_default(library: Library) -> None:
    """An import (no parameters recorded) against a run storing every iperf3 parameter (as
    the engine does: defaults included, ``affinity`` empty) differs only where the run's
    value is not iperf3's own default; the rest is counted as hidden, not listed."""
    from pairbench.services.compare import compare_inputs
    from pairbench.services.importing import import_output
    from pairbench.tools.params import resolve_params
    from pairbench.tools.registry import TOOLS

    text = (FIXTURES / "iperf3" / "tcp_t12_shaped_burst.out").read_text()
    imported = import_output(library, "iperf3", text, label="imported")
    schema = TOOLS["iperf3"].params
    params = resolve_params(schema, {"streams": "4", "duration": "12"})
    assert params["affinity"] == "" and params["window"] == "0"  # what a stored run holds
    ran = create_run(library, RunSpec("local", "iperf3", params, label="ran"))
    finish_run(library, ran, RunStatus.COMPLETED, summary={"throughput_bps": 9e8}, complete=True)
    cmp = compare(compare_inputs(library, [imported.id, ran]))
    params_shown = [r.field for r in cmp.diff.rows if r.field.startswith("param ")]
    # Only the values other than iperf3's defaults (read from its parameter list) remain.
    expected = sorted(f"param {k}" for k, v in params.items() if v not in ("", schema[k].default))
    assert params_shown == expected == ["param duration", "param streams"]
    assert cmp.diff.rows[0].field == "param duration"  # real differences first
    assert cmp.diff.hidden >= len(params) - 2
    # Without the tool's defaults (a caller that does not know them) only blanks hide.
    bare = compare(
        [RunInput(i.run, i.pair, i.series) for i in compare_inputs(library, [imported.id, ran])]
    )
    assert "param window" in [r.field for r in bare.diff.rows]
    assert "param affinity" not in [r.field for r in bare.diff.rows]


def test_curves_and_their_median() -> None:
    t = np.arange(1.0, 6.0)
    items = [
        RunInput(_run(i, 1.0), series=[_S("sum", "throughput_bps", "bit/s", t, t * k)])
        for i, k in ((1, 1.0), (2, 2.0), (3, 4.0))
    ]
    cmp = compare(items)
    assert [c.run_id for c in cmp.curves] == [1, 2, 3]
    assert cmp.curves[0].label == "p · #1"
    grid, median = median_curve(cmp.curves)
    assert grid.tolist() == t.tolist()
    assert median.tolist() == (t * 2.0).tolist()


def test_library_selection_and_loading(library: Library) -> None:
    a, b = two_shapes(library, seconds=5)
    assert select_run_ids(library, ["pair:cross-zone", str(a[0])]) == [*b, a[0]]
    assert select_run_ids(library, [f"{a[0]}-{b[-1]}"]) == a + b
    assert select_run_ids(library, ["tag:zone=a"]) == a  # a pair's tag
    assert select_run_ids(library, ["label:repeat 2"]) == [a[1], b[1]]
    for bad in ("pair:nope", "x:y", "12-3", "tag:zone", "abc"):
        with pytest.raises(SelectionError):
            select_run_ids(library, [bad])
    inputs = load_inputs(library, a + b)
    assert inputs[0].pair is not None and inputs[0].pair.description == "Same zone, 1 ms"
    cmp = compare(inputs, group_by=GroupBy.parse("pair"), policy=OutlierPolicy.parse("mad"))
    assert [g.name for g in cmp.groups] == ["same-zone", "cross-zone"]
    assert cmp.table.rows[1].description == "Cross zone, 10 ms · iperf3"
    diff_fields = {row.field for row in cmp.diff.rows}
    assert {"client kernel", "client mtu", "client tcp_congestion_control"} <= diff_fields
    assert "client rmem_max" not in diff_fields  # identical everywhere
    assert cmp.differences["cross-zone"].p_value is not None
    assert cmp.differences["cross-zone"].p_value < 0.001


def test_peak_envelope_keeps_every_extreme_in_order() -> None:
    from pairbench.export.charts import peak_envelope

    rng = np.random.default_rng(5)
    t = np.arange(86_400.0)
    v = rng.normal(0, 1, t.size)
    et, ev = peak_envelope(t, v, 1200)
    assert ev.size <= 2 * 1200 + 2
    assert np.all(np.diff(et) > 0)  # time order, no repeats
    assert ev.max() == v.max() and ev.min() == v.min()
    k = -(-t.size // 1200)
    for start in range(0, t.size, k * 97):  # every bucket keeps its own min and max
        block = v[start : start + k]
        assert block.max() in ev and block.min() in ev
    short_t, short_v = np.arange(10.0), np.arange(10.0)
    assert peak_envelope(short_t, short_v, 1200)[0] is short_t
    nan_v = v.copy()
    nan_v[5] = np.nan
    assert peak_envelope(t, nan_v, 1200)[1] is nan_v
