"""``pairbench campaign report`` after a real small campaign on this computer (ping over
loopback, a few seconds): the files exist and the tables hold each cell's n and mean as
``campaign show --json`` gives them."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain.units import format_value, metric_scale
from pairbench.export.charts import ChartSpec

PLAN = """
name = "loopback ping"
pairs = ["local"]
repeats = { min = 3, max = 3 }
outliers = "mad:3"
seed = 5
# This computer's host may be busy for a moment (another Pairbench test): wait and retry.
retry = { retries = 20, delay = 1, skip_pair_after = 100 }
[[tests]]
tool = "ping"
params = { count = [2, 3], interval = 0.2 }
"""


def _cli(library_path: Path, *argv: str, renderer: object = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(
        stdout=out,
        stderr=err,
        environ={"PAIRBENCH_LIBRARY": str(library_path)},
        chart_renderer=renderer,  # type: ignore[arg-type]
    )
    return run_cli(list(argv), env), out.getvalue(), err.getvalue()


def _renderer(calls: list[ChartSpec]):  # type: ignore[no-untyped-def]
    def render(spec: ChartSpec, path: Path) -> None:
        calls.append(spec)
        path.write_bytes(b"chart")

    return render


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    """One real campaign: 2 cells × 3 pings runs on ``local``; its ``show --json``."""
    root = tmp_path_factory.mktemp("campaign")
    library_path = root / "library.sqlite"
    plan = root / "plan.toml"
    plan.write_text(PLAN, encoding="utf-8")
    status, out, err = _cli(library_path, "campaign", "run", str(plan))
    assert status == 0, err + out
    status, out, err = _cli(library_path, "campaign", "show", "1", "--json")
    assert status == 0, err
    return library_path, json.loads(out)


def test_report_files_and_numbers_match_show(
    campaign: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    library_path, shown = campaign
    cells = shown["cells"]
    assert isinstance(cells, list) and len(cells) == 2
    calls: list[ChartSpec] = []
    out_dir = tmp_path / "report"
    status, out, err = _cli(
        library_path,
        "campaign",
        "report",
        "1",
        "--out",
        str(out_dir),
        "--json",
        renderer=_renderer(calls),
    )
    assert status == 0, err
    payload = json.loads(out)
    written = [Path(p) for p in payload["written"]]
    assert all(p.is_file() for p in written)
    names = {p.name for p in written}
    assert {"index.html", "campaign.md", "campaign.csv"} <= names
    assert {"groups-ping-count-2.png", "groups-ping-count-3.svg"} <= names, names
    assert len(calls) == 2 * 2  # two columns, PNG and SVG each
    rows = {
        r["test"]: r for r in csv.DictReader(io.StringIO((out_dir / "campaign.csv").read_text()))
    }
    markdown = (out_dir / "campaign.md").read_text(encoding="utf-8")
    page = (out_dir / "index.html").read_text(encoding="utf-8")
    for cell in cells:
        column = f"{cell['test']} " + " ".join(f"{k}={v}" for k, v in cell["axes"].items())
        row = rows[column]
        assert row["group"] == cell["pair"] == "local"
        assert int(row["n"]) == cell["n"] == 3
        assert float(row["mean"]) == pytest.approx(cell["mean"])
        assert int(row["discarded"]) == len(cell["discarded"])
        # The Markdown and HTML grids show the same mean in the column's unit.
        means = [c["mean"] for c in cells if c["test"] == cell["test"]]
        scale = metric_scale(cell["metric"], sorted(means)[0])
        shown_mean = format_value(cell["metric"], cell["mean"], scale=scale, unit=False)
        assert shown_mean in markdown and shown_mean in page
    summary = {(c["group"], c["test"]): c for c in payload["cells"]}
    for cell in cells:
        column = f"{cell['test']} " + " ".join(f"{k}={v}" for k, v in cell["axes"].items())
        assert summary[("local", column)]["n"] == cell["n"]
        assert summary[("local", column)]["mean"] == pytest.approx(cell["mean"])


def test_report_refusals(campaign: tuple[Path, dict[str, object]], tmp_path: Path) -> None:
    library_path, _shown = campaign
    calls: list[ChartSpec] = []
    status, _out, err = _cli(
        library_path, "campaign", "report", "1", "--out", str(tmp_path / "r"), "--baseline", "x"
    )
    assert status != 0 and "no chart renderer" in err
    status, _out, err = _cli(
        library_path,
        "campaign",
        "report",
        "1",
        "--out",
        str(tmp_path / "r"),
        "--baseline",
        "x",
        renderer=_renderer(calls),
    )
    assert status != 0 and "no group 'x'" in err and "local" in err
    status, _out, err = _cli(
        library_path,
        "campaign",
        "report",
        "9",
        "--out",
        str(tmp_path / "r"),
        renderer=_renderer(calls),
    )
    assert status != 0 and "9" in err
    status, out, err = _cli(
        library_path,
        "campaign",
        "report",
        "1",
        "--out",
        str(tmp_path / "z"),
        "--group-by",
        "zone",
        "--json",
        renderer=_renderer(calls),
    )
    assert status == 0, err
    assert json.loads(out)["groups"] == ["no zone"]  # the local pair has no zone tag
    assert not calls or all(isinstance(c, ChartSpec) for c in calls)
