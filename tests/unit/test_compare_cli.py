"""``pairbench compare``, ``export`` and ``import-bundle`` run in-process on a temp library."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from compare_runs import two_shapes
from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.export.charts import ChartKind, ChartRenderer, ChartSpec, ChartUnavailable
from pairbench.library import Library
from pairbench.library.runs import list_runs


def _cli(
    library_path: Path, *argv: str, renderer: ChartRenderer | None = None
) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(
        stdout=out,
        stderr=err,
        environ={"PAIRBENCH_LIBRARY": str(library_path)},
        chart_renderer=renderer,
    )
    return run_cli(list(argv), env), out.getvalue(), err.getvalue()


@pytest.fixture
def shapes(library_path: Path) -> tuple[list[int], list[int]]:
    with Library.open(library_path) as lib:
        return two_shapes(lib, seconds=5)


def test_compare_prints_table_stats_welch_and_diff(
    library_path: Path, shapes: tuple[list[int], list[int]]
) -> None:
    a, b = shapes
    ids = [str(i) for i in a + b]
    status, out, err = _cli(library_path, "compare", *ids, "--group-by", "pair")
    assert status == 0, err
    assert "Throughput (Mbit/s), grouped by pair" in out
    assert "Environment" in out and "vs baseline" in out and "baseline" in out
    assert "95 % CI" in out and "cross-zone − same-zone" in out and "p" in out
    assert "What differs" in out and "client kernel" in out and "6.1.0-21-amd64" in out


def test_compare_json_and_files(
    library_path: Path, shapes: tuple[list[int], list[int]], tmp_path: Path
) -> None:
    a, b = shapes
    for suffix in (".md", ".csv", ".html"):
        table = tmp_path / f"table{suffix}"
        status, out, err = _cli(
            library_path,
            "compare",
            "pair:same-zone",
            "pair:cross-zone",
            "--group-by",
            "tag:shape",
            "--metric",
            "latency_avg_us",
            "--baseline",
            str(b[0]),
            "--outliers",
            "iqr",
            "--table",
            str(table),
            "--json",
        )
        assert status == 0, err
        payload = json.loads(out)
        assert payload["files"] == [str(table)]
        assert table.is_file() and table.stat().st_size > 100
    assert payload["metric"]["name"] == "latency_avg_us"
    assert payload["baseline"] == "B" and payload["outliers"] == "iqr:1.5"
    groups = {g["name"]: g for g in payload["groups"]}
    assert groups["A"]["runs"] == a and groups["A"]["stats"]["n"] == 3
    assert groups["A"]["vs_baseline"]["p_value"] is not None
    assert groups["B"]["vs_baseline"] is None
    assert (tmp_path / "table.md").read_text().startswith("# Mean latency (µs), grouped by tag")
    assert (tmp_path / "table.html").read_text().startswith("<!DOCTYPE html>")


def test_compare_chart_goes_through_the_injected_renderer(
    library_path: Path, shapes: tuple[list[int], list[int]], tmp_path: Path
) -> None:
    drawn: list[tuple[ChartSpec, Path]] = []

    def renderer(spec: ChartSpec, path: Path) -> None:
        drawn.append((spec, path))
        path.write_bytes(b"png")

    out_path = tmp_path / "chart.png"
    status, out, err = _cli(
        library_path,
        "compare",
        *map(str, shapes[0] + shapes[1]),
        "--group-by",
        "pair",
        "--chart",
        str(out_path),
        "--chart-kind",
        "overlay",
        "--size",
        "800x500",
        "--dpi",
        "150",
        "--title",
        "Zones",
        renderer=renderer,
    )
    assert status == 0, err
    [(spec, path)] = drawn
    assert path == out_path and f"wrote {out_path}" in out
    assert (spec.kind, spec.width, spec.height, spec.dpi, spec.title) == (
        ChartKind.OVERLAY,
        800,
        500,
        150,
        "Zones",
    )
    assert len(spec.curves) == 6 and [c.legend for c in spec.curves if c.legend] == [
        "same-zone (3 runs)",
        "cross-zone (3 runs)",
    ]
    assert spec.y_label == "Throughput (Mbit/s)"
    assert spec.footer.startswith("Pairs: cross-zone, same-zone · Tools: iperf3 3.12")


def test_compare_without_a_renderer_says_so(
    library_path: Path, shapes: tuple[list[int], list[int]], tmp_path: Path
) -> None:
    status, _, err = _cli(library_path, "compare", "1", "2", "--chart", str(tmp_path / "c.png"))
    assert status == 1 and "no chart renderer" in err and "Traceback" not in err

    def unavailable(spec: ChartSpec, path: Path) -> None:
        raise ChartUnavailable("charts need Qt (PySide6) and pyqtgraph: libEGL.so.1 missing")

    status, out, err = _cli(
        library_path,
        "compare",
        "1",
        "2",
        "--chart",
        str(tmp_path / "c.png"),
        renderer=unavailable,
    )
    assert status == 1 and "libEGL.so.1 missing" in err
    assert "Comparison" in out  # the table is still printed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--outliers", "zscore"], "unknown outlier policy"),
        (["--group-by", "zone"], "unknown grouping"),
        (["--chart", "c.gif"], "chart format"),
        (["--table", "t.xlsx"], "table format"),
        (["--size", "big"], "--size"),
        (["--confidence", "95"], "--confidence"),
    ],
)
def test_compare_usage_errors(
    library_path: Path, shapes: tuple[list[int], list[int]], args: list[str], message: str
) -> None:
    status, _, err = _cli(library_path, "compare", "1", "2", *args)
    assert status == 2 and message in err


def test_compare_data_errors(library_path: Path, shapes: tuple[list[int], list[int]]) -> None:
    for argv, message in (
        (["99"], "no run with id 99"),
        (["pair:nowhere"], "no finished run matches"),
        (["1", "--metric", "read_iops"], "no compared run has the metric"),
        (["1", "2", "--baseline", "7"], "neither a compared run nor a group"),
    ):
        status, _, err = _cli(library_path, "compare", *argv)
        assert status == 1 and message in err, argv


def test_export_formats_and_bundle_round_trip(
    library_path: Path, shapes: tuple[list[int], list[int]], tmp_path: Path
) -> None:
    a, b = shapes
    ids = [str(i) for i in a + b]
    status, out, err = _cli(
        library_path, "export", *ids, "--format", "json", "--out", str(tmp_path / "r.json")
    )
    assert status == 0, err
    assert len(json.loads((tmp_path / "r.json").read_text())["runs"]) == 6
    status, _, err = _cli(
        library_path, "export", "1", "--format", "csv", "--out", str(tmp_path / "r.csv")
    )
    assert status == 0 and (tmp_path / "r.csv").read_text().startswith("run_id,section,")
    bundle = tmp_path / "b.zip"
    status, out, err = _cli(
        library_path, "export", *ids, "--format", "bundle", "--out", str(bundle)
    )
    assert status == 0 and f"wrote 6 run(s) to {bundle}" in out
    assert "no chart renderer" in out  # said, not silently left out
    other = tmp_path / "other.sqlite"
    status, out, err = _cli(other, "import-bundle", str(bundle), "--json")
    assert status == 0, err
    result = json.loads(out)
    assert [r["bundled_id"] for r in result["imported"]] == a + b
    assert result["pairs_added"] == ["same-zone", "cross-zone"]
    status, out, _ = _cli(other, "import-bundle", str(bundle))
    assert status == 0 and out.count("skipped run") == 6
    with Library.open(other) as lib:
        assert len(list_runs(lib)) == 6
    status, _, err = _cli(other, "import-bundle", str(tmp_path / "r.json"))
    assert status == 1 and "not a zip file" in err


def test_export_errors(
    library_path: Path, shapes: tuple[list[int], list[int]], tmp_path: Path
) -> None:
    status, _, err = _cli(library_path, "export", "1", "--format", "xml", "--out", "x")
    assert status == 2
    status, _, err = _cli(
        library_path, "export", "label:none", "--format", "csv", "--out", str(tmp_path / "x.csv")
    )
    assert status == 1 and "no finished run matches" in err
    (tmp_path / "dir.csv").mkdir()
    status, _, err = _cli(
        library_path, "export", "1", "--format", "csv", "--out", str(tmp_path / "dir.csv")
    )
    assert status == 1 and "cannot write" in err


def test_compare_imported_tool_outputs(library_path: Path, fixtures_dir: Path) -> None:
    """Real iperf3 outputs imported with engine.importing: TCP repeats against UDP."""
    from pairbench.services.importing import import_output

    with Library.open(library_path) as lib:
        ids = [
            import_output(
                lib, "iperf3", (fixtures_dir / "iperf3" / name).read_text(), label=label
            ).id
            for name, label in (
                ("tcp_t5.out", "tcp"),
                ("tcp_t5_P2.out", "tcp"),
                ("udp_b50M_l1400.out", "udp"),
                ("udp_b2G_l8000_loss.out", "udp"),
            )
        ]
    status, out, err = _cli(
        library_path,
        "compare",
        *map(str, ids),
        "--group-by",
        "label",
        "--baseline",
        "udp",
        "--json",
    )
    assert status == 0, err
    payload = json.loads(out)
    assert payload["metric"]["name"] == "throughput_bps" and payload["baseline"] == "udp"
    tcp = next(g for g in payload["groups"] if g["name"] == "tcp")
    assert tcp["stats"]["n"] == 2 and tcp["vs_baseline"]["p_value"] is not None
    columns = [c["metric"] for c in payload["table"]["columns"]]
    assert {"throughput_bps", "jitter_ms", "lost_percent"} <= set(columns)
    udp_row = next(r for r in payload["table"]["rows"] if r["group"] == "udp")
    assert udp_row["cells"]["lost_percent"]["n"] == 2
    tcp_row = next(r for r in payload["table"]["rows"] if r["group"] == "tcp")
    assert tcp_row["cells"]["jitter_ms"]["mean"] is None  # TCP has no jitter: "—"
    fields = {f["field"] for f in payload["diff"]["fields"]}
    assert fields == {"label"}  # same pair, tool and (unknown) version: only the label differs


def test_cli_without_qt_says_so(
    library_path: Path,
    shapes: tuple[list[int], list[int]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from pairbench.main import cli_environment

    monkeypatch.setitem(sys.modules, "pairbench.ui.compare.render", None)  # import fails
    env = cli_environment()
    env.stdout, env.stderr = io.StringIO(), io.StringIO()
    env.environ = {"PAIRBENCH_LIBRARY": str(library_path)}
    status = run_cli(["compare", "1", "2", "--chart", str(tmp_path / "c.png")], env)
    assert status == 1
    assert "charts need Qt (PySide6) and pyqtgraph" in env.stderr.getvalue()
    assert "Comparison" in env.stdout.getvalue() and not (tmp_path / "c.png").exists()
