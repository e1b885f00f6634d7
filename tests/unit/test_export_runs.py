"""Runs out of the library and back: JSON, long CSV, and the evidence bundle round trip."""

from __future__ import annotations

import csv
import io
import json
import uuid
import zipfile
from pathlib import Path

import numpy as np
import pytest

from compare_runs import DAY, add_lab_pair, store_run, two_shapes
from pairbench.domain import LineSource, RunStatus
from pairbench.export.bundle import BundleError, write_bundle
from pairbench.export.bundle_import import import_bundle
from pairbench.export.charts import ChartSpec, ChartUnavailable
from pairbench.export.run_json import pair_from_payload, pair_payload, runs_document
from pairbench.export.runs_csv import runs_csv
from pairbench.export.selection import load_inputs
from pairbench.library import Library
from pairbench.library.analyses import get_analyses, store_analysis
from pairbench.library.hosts import get_pair
from pairbench.library.runs import get_run, list_runs
from pairbench.library.series import load_raw_output, load_series


def _rich_run(lib: Library) -> int:
    """A run with every kind of field filled, odd floats and several raw chunks."""
    add_lab_pair(lib, "aws-pg", "AWS, same placement group", {"cloud": "aws", "zone": "1a"})
    t = np.arange(1.0, 8.0)
    v = np.array([9.79e9, 9.8e9, np.nan, -0.0, 1e-300, 9.81e9, 2.0**-1074])
    return store_run(
        lib,
        pair="aws-pg",
        tool="uperf",
        label="netperf · run 1",
        summary={"latency_avg_us": 70.79, "throughput_bps": 9.79e9, "odd": float("inf")},
        series={"throughput_bps": (t, v)},
        streams={"thr 1": {"ops_per_s": (t + 0.5, t * 3.3)}},
        params={"profile": "netperf", "nthr": "8"},
        tags={"placement": "pg-1", "note": "ünïcode ✓"},
        facts={
            "client": {"kernel": "3.10.0-693.el7", "nic_driver": "ixgbevf", "mtu": "9001"},
            "server": {"kernel": "3.10.0-693.el7", "nic_driver": "ixgbevf", "mtu": "9001"},
        },
        tool_version="1.0.8",
        started_at=DAY + 0.123456789,
        duration=32.33,
        raw=[
            (LineSource.CLIENT_OUT, "Starting 8 threads\nTxn1 0 /1.00(s) = 0"),
            (LineSource.SERVER_ERR, "warning: \u00e9\u00e8 \x00 odd bytes"),
            (LineSource.CLIENT_OUT, "Total 29.10GB / 32.33(s) = 7.73Gb/s 117959op/s"),
        ],
        status=RunStatus.INTERRUPTED,
        notes="placement group test\nsecond line",
    )


def test_bundle_round_trip_keeps_every_field(library: Library, tmp_path: Path) -> None:
    run_id = _rich_run(library)
    store_analysis(library, run_id, "burst", {"state": "none", "burst_bps": 9.8e9})
    path = tmp_path / "evidence.zip"
    written = write_bundle(library, [run_id], path)
    assert written.run_ids == (run_id,) and path.is_file()
    with Library.open(tmp_path / "other.sqlite") as other:
        result = import_bundle(other, path)
        [(old, new)] = result.imported
        assert old == run_id and result.pairs_added == ("aws-pg",)
        a, b = get_run(library, run_id), get_run(other, new)
        assert b.id == new
        for field in RUN_FIELDS:
            assert getattr(a, field) == getattr(b, field), field
        assert a.summary.keys() == b.summary.keys()
        assert get_pair(other, "aws-pg") == get_pair(library, "aws-pg")
        series_a, series_b = load_series(library, run_id), load_series(other, new)
        assert [(s.stream, s.metric, s.unit) for s in series_a] == [
            (s.stream, s.metric, s.unit) for s in series_b
        ]
        for sa, sb in zip(series_a, series_b, strict=True):
            assert sa.t.tobytes() == sb.t.tobytes()  # bit for bit, NaN and -0.0 included
            assert sa.v.tobytes() == sb.v.tobytes()
        assert load_raw_output(other, new) == load_raw_output(library, run_id)
        assert get_analyses(other, new) == get_analyses(library, run_id)


RUN_FIELDS = (
    "spec",
    "status",
    "started_at",
    "ended_at",
    "tool_version",
    "summary_complete",
    "host_facts",
    "label",
    "tags",
    "notes",
    "error",
)


def test_summary_with_infinity_round_trips(library: Library, tmp_path: Path) -> None:
    run_id = _rich_run(library)
    write_bundle(library, [run_id], tmp_path / "b.zip")
    with Library.open(tmp_path / "other.sqlite") as other:
        [(_, new)] = import_bundle(other, tmp_path / "b.zip").imported
        assert get_run(other, new).summary == get_run(library, run_id).summary
        assert get_run(other, new).summary["odd"] == float("inf")


def test_bundle_contents_are_readable(library: Library, tmp_path: Path) -> None:
    a, b = two_shapes(library, seconds=5)
    drawn: list[ChartSpec] = []

    def renderer(spec: ChartSpec, path: Path) -> None:
        drawn.append(spec)
        path.write_bytes(b"chart " + path.suffix.encode())

    written = write_bundle(library, a + b, tmp_path / "b.zip", chart_renderer=renderer)
    assert written.charts == (
        "charts/overlay.png",
        "charts/overlay.svg",
        "charts/summary.png",
        "charts/summary.svg",
    )
    with zipfile.ZipFile(tmp_path / "b.zip") as zf:
        names = set(zf.namelist())
        assert {"README.md", "manifest.json", "tables/comparison.md"} <= names
        readme = zf.read("README.md").decode()
        assert "pairbench import-bundle" in readme and "same-zone" in readme
        manifest = json.loads(zf.read("manifest.json"))
        assert manifest["format"] == "pairbench-bundle" and len(manifest["runs"]) == 6
        record = json.loads(zf.read(f"runs/{a[0]:04d}/run.json"))
        assert record["host_facts"]["client"]["mtu"] == "1500"
        t = np.frombuffer(zf.read(f"runs/{a[0]:04d}/" + record["series"][0]["t"]), "<f8")
        assert t.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
        assert "sample,sum,throughput_bps" in zf.read(f"runs/{a[0]:04d}/series.csv").decode()
        assert zf.read("charts/overlay.svg") == b"chart .svg"


def test_bundle_without_charts_says_why(library: Library, tmp_path: Path) -> None:
    t = np.arange(3.0)
    run_id = store_run(library, summary={"throughput_bps": 1.0}, series={"throughput_bps": (t, t)})

    def broken(spec: ChartSpec, path: Path) -> None:
        raise ChartUnavailable("Qt cannot be loaded here")

    written = write_bundle(library, [run_id], tmp_path / "b.zip", chart_renderer=broken)
    assert written.charts == () and any("Qt cannot be loaded" in n for n in written.notes)
    with zipfile.ZipFile(tmp_path / "b.zip") as zf:
        assert "Qt cannot be loaded" in zf.read("README.md").decode()


def test_import_twice_skips_what_is_there(library: Library, tmp_path: Path) -> None:
    a, _ = two_shapes(library, seconds=3)
    write_bundle(library, a, tmp_path / "b.zip")
    again = import_bundle(library, tmp_path / "b.zip")
    assert again.imported == () and [old for old, _ in again.skipped] == a
    assert [existing for _, existing in again.skipped] == a
    forced = import_bundle(library, tmp_path / "b.zip", allow_duplicates=True)
    assert len(forced.imported) == 3 and len(list_runs(library)) == 9


def test_bad_bundles_are_refused(library: Library, tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="no such file"):
        import_bundle(library, tmp_path / "missing.zip")
    (tmp_path / "text.zip").write_text("not a zip")
    with pytest.raises(BundleError, match="not a zip"):
        import_bundle(library, tmp_path / "text.zip")
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as zf:
        zf.writestr("manifest.json", json.dumps({"format": "something else"}))
    with pytest.raises(BundleError, match="not a Pairbench evidence bundle"):
        import_bundle(library, tmp_path / "other.zip")
    with zipfile.ZipFile(tmp_path / "newer.zip", "w") as zf:
        zf.writestr("manifest.json", json.dumps({"format": "pairbench-bundle", "version": 99}))
    with pytest.raises(BundleError, match="newer than this Pairbench"):
        import_bundle(library, tmp_path / "newer.zip")


def test_truncated_series_is_refused_and_nothing_stays(library: Library, tmp_path: Path) -> None:
    run_id = store_run(
        library,
        summary={"throughput_bps": 1.0},
        series={"throughput_bps": (np.arange(3.0), np.ones(3))},
    )
    write_bundle(library, [run_id], tmp_path / "b.zip")
    with (
        zipfile.ZipFile(tmp_path / "b.zip") as src,
        zipfile.ZipFile(tmp_path / "cut.zip", "w") as dst,
    ):
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info.filename, data[:-8] if info.filename.endswith(".v.f64") else data)
    with Library.open(tmp_path / "other.sqlite") as other:
        with pytest.raises(BundleError, match="not 3 float64 values"):
            import_bundle(other, tmp_path / "cut.zip")
        assert list_runs(other) == []


def test_running_runs_are_not_bundled(library: Library, tmp_path: Path) -> None:
    from pairbench.domain import RunSpec
    from pairbench.library.runs import create_run

    run_id = create_run(library, RunSpec("local", "iperf3"))
    with pytest.raises(BundleError, match="still running"):
        write_bundle(library, [run_id], tmp_path / "b.zip")
    assert not (tmp_path / "b.zip").exists()


# A bundle written before run.json's fields were named in one place (export/run_json.py's
# run_fields): _rich_run with a burst analysis, run 1 of a fresh library, no charts.
OLD_BUNDLE = Path(__file__).resolve().parents[1] / "data" / "bundles" / "v1_rich_run.zip"


def test_an_old_bundle_imports_and_bundles_again_byte_for_byte(tmp_path: Path) -> None:
    with Library.open(tmp_path / "other.sqlite") as other:
        [(old_id, new_id)] = import_bundle(other, OLD_BUNDLE).imported
        assert old_id == new_id == 1  # a fresh library: the run gets its bundled id back
        assert get_run(other, new_id).summary["odd"] == float("inf")
        write_bundle(other, [new_id], tmp_path / "again.zip")
    with zipfile.ZipFile(OLD_BUNDLE) as old, zipfile.ZipFile(tmp_path / "again.zip") as again:
        members = [n for n in old.namelist() if n.startswith("runs/")]
        assert members == [n for n in again.namelist() if n.startswith("runs/")]
        assert "runs/0001/run.json" in members and "runs/0001/analyses.json" in members
        for name in members:
            data = again.read(name)
            if name.endswith("run.json"):  # now with the run's UUID, and else as it was
                record = json.loads(data)
                assert str(uuid.UUID(record.pop("uuid"))) == get_uuid(tmp_path / "other.sqlite")
                data = json.dumps(record, indent=1).encode()
            assert old.read(name) == data, name


def get_uuid(path: Path) -> str:
    with Library.open(path) as lib:
        [(key,)] = lib.conn.execute("SELECT uuid FROM runs").fetchall()
    return str(key)


def test_json_document_has_runs_with_pairs_and_series(library: Library) -> None:
    run_id = _rich_run(library)
    [item] = load_inputs(library, [run_id])
    from pairbench.domain import Series

    series = [Series(s.stream, s.metric, s.unit, tuple(s.t), tuple(s.v)) for s in item.series]
    doc = runs_document([(item.run, item.pair, series)], pairbench_version="0.1.0")
    text = json.dumps(doc, allow_nan=False)  # strict JSON: NaN became null
    [run] = json.loads(text)["runs"]
    assert run["pair_detail"]["client"]["name"] == "aws-pg-c"
    assert run["summary"]["odd"] is None
    assert run["series"][0]["v"][2] is None
    assert pair_from_payload(pair_payload(item.pair)) == item.pair


def test_long_csv_reads_back(library: Library) -> None:
    run_id = _rich_run(library)
    [item] = load_inputs(library, [run_id])
    rows = list(csv.DictReader(io.StringIO(runs_csv([(item.run, item.series)]))))
    by_section: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        by_section.setdefault(row["section"], []).append(row)
    fields = {r["key"]: r["value"] for r in by_section["run"]}
    assert fields["pair"] == "aws-pg" and fields["notes"] == "placement group test\nsecond line"
    assert float(fields["started_at"]) == item.run.started_at
    assert {r["key"]: r["value"] for r in by_section["param"]} == {
        "nthr": "8",
        "profile": "netperf",
    }
    facts = {(r["stream"], r["key"]): r["value"] for r in by_section["host_fact"]}
    assert facts[("server", "nic_driver")] == "ixgbevf"
    samples = [r for r in by_section["sample"] if r["stream"] == "sum"]
    values = np.array([float(r["value"]) for r in samples])
    sum_series = next(s for s in item.series if s.stream == "sum")
    assert values.tobytes() == sum_series.v.tobytes()
    assert {r["unit"] for r in samples} == {"bit/s"}
