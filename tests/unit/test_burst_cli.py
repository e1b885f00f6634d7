"""``analyze burst|burst-table|fit``, stored analyses, and ``runs show`` with analyses."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pairbench.cli.cmd_analyze import _rate, _size
from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import LOCAL_HOST, HostPair, Record, RunSpec, RunStatus
from pairbench.library import Library, LibraryError, Recorder
from pairbench.library.analyses import get_analyses, get_analysis, list_analyses, store_analysis
from pairbench.library.hosts import add_pair
from pairbench.library.runs import create_run, delete_run, finish_run
from testkit import FIXTURES, require

FIXTURE = FIXTURES / "iperf3" / "tcp_t12_shaped_burst.out"


def _cli(library_path: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    status = run_cli(list(argv), env)
    return status, out.getvalue(), err.getvalue()


def _store_run(
    lib: Library, pair: str, step_t: float, *, tags: dict[str, str] | None = None
) -> int:
    """A completed run whose aggregate throughput steps from 1 Gbit/s to 200 Mbit/s."""
    run_id = create_run(lib, RunSpec(pair, "iperf3", {"duration": "60"}, tags=tags or {}))
    recorder = Recorder(lib, run_id)
    values = [1e9 if t <= step_t else 2e8 for t in range(1, 61)]
    recorder.add(
        [Record("sum", float(t), ("throughput_bps",), (v,)) for t, v in enumerate(values, 1)]
    )
    recorder.flush()
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={"throughput_bps": 4e8}, complete=True)
    return run_id


def test_analyze_burst_on_the_imported_fixture(library_path: Path) -> None:
    require(FIXTURE.is_file(), f"fixture missing: {FIXTURE}")
    status, out, err = _cli(library_path, "import", "iperf3", str(FIXTURE), "--json")
    assert status == 0, err
    run_id = json.loads(out)["id"]

    status, out, err = _cli(library_path, "analyze", "burst", str(run_id), "--json")
    assert status == 0, err
    result = json.loads(out)
    assert result["run_id"] == run_id and result["detected"] is True
    for key in ("burst_bps", "baseline_bps", "burst_seconds", "bucket_bits", "step_t"):
        assert result[key] > 0 and result[f"{key}_err"] > 0
    assert result["burst_bps"] == pytest.approx(927e6, rel=0.01)
    assert result["baseline_bps"] == pytest.approx(192.75e6, rel=0.01)

    status, out, _ = _cli(library_path, "analyze", "burst", str(run_id))
    assert status == 0
    assert "burst step confirmed" in out and "927 Mbit/s" in out and "bucket" in out
    assert "full again after" in out

    # Stored with the run: runs show gains "analyses", its other fields unchanged.
    status, out, _ = _cli(library_path, "runs", "show", str(run_id), "--json")
    shown = json.loads(out)
    assert shown["analyses"]["burst"]["detected"] is True
    assert shown["analyses"]["burst"]["bucket_bits"] == pytest.approx(result["bucket_bits"])
    assert {"id", "pair", "tool", "status", "summary", "series", "notes"} <= set(shown)
    status, out, _ = _cli(library_path, "runs", "show", str(run_id))
    assert "analysis  burst" in out and "baseline" in out


def test_runs_show_without_analyses_has_an_empty_field(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        run_id = _store_run(lib, "local", 20.0)
    status, out, _ = _cli(library_path, "runs", "show", str(run_id), "--json")
    assert status == 0 and json.loads(out)["analyses"] == {}


def test_analyze_burst_of_a_flat_run_and_of_a_run_without_throughput(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        flat = _store_run(lib, "local", 1000.0)
        empty = create_run(lib, RunSpec("local", "ping", {}))
        finish_run(lib, empty, RunStatus.COMPLETED, summary={}, complete=True)
    status, out, _ = _cli(library_path, "analyze", "burst", str(flat), "--json")
    result = json.loads(out)
    assert status == 0 and result["detected"] is False and result["baseline_bps"] is None
    status, out, _ = _cli(library_path, "analyze", "burst", str(flat))
    assert "no burst step" in out and "1.00 Gbit/s over 60 s" in out
    status, _, err = _cli(library_path, "analyze", "burst", str(empty))
    assert status == 1 and "no aggregate throughput" in err
    status, _, err = _cli(library_path, "analyze", "burst", "999")
    assert status == 1 and "no run with id 999" in err


def test_burst_table_groups_by_the_type_tag(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        add_pair(lib, HostPair("big", LOCAL_HOST, LOCAL_HOST, tags={"type": "r4.xlarge"}))
        add_pair(lib, HostPair("small", LOCAL_HOST, LOCAL_HOST, tags={"type": "r4.large"}))
        ids = [
            _store_run(lib, "small", 20.0),
            _store_run(lib, "small", 10.0),  # a half-drained start
            _store_run(lib, "big", 30.0),
            _store_run(lib, "big", 25.0, tags={"type": "r4.2xlarge"}),  # the run's own tag
            _store_run(lib, "big", 1000.0),  # no step: left out
            _store_run(lib, "small", 15.0, tags={"phase": "refill"}),  # refill: left out
        ]
    for run_id in ids:
        assert _cli(library_path, "analyze", "burst", str(run_id))[0] == 0
    status, out, _ = _cli(library_path, "analyze", "burst-table", "--json")
    assert status == 0
    rows = {row["group"]: row for row in json.loads(out)}
    assert set(rows) == {"r4.large", "r4.xlarge", "r4.2xlarge"}
    assert rows["r4.large"]["runs"] == ids[:2]
    assert rows["r4.large"]["burst_seconds"] == pytest.approx(20.0)
    assert rows["r4.large"]["bucket_bits"] == pytest.approx(8e8 * 20)
    assert rows["r4.large"]["baseline_bps"] == pytest.approx(2e8)
    assert rows["r4.xlarge"]["runs"] == [ids[2]]

    status, out, _ = _cli(library_path, "analyze", "burst-table", "--md")
    assert out.splitlines()[0] == "| type | runs | baseline | burst | bucket | max s at burst |"
    assert "| r4.large | 2 | 200 Mbit/s | 1.00 Gbit/s | 16.0 Gbit (2.00 GB) | 20 |" in out
    status, out, _ = _cli(library_path, "analyze", "burst-table")
    assert "r4.xlarge" in out and "max s at burst" in out
    header, rule, *rows = out.splitlines()
    assert set(rule) <= {"-", " "} and len(rule) == len(header)  # a ``text_table``
    large = next(row for row in rows if row.startswith("r4.large "))
    assert large.split("  ")[-1].strip() == "20" and large.endswith(" 20")  # right-aligned
    status, out, _ = _cli(library_path, "analyze", "burst-table", "--tag", "zone")
    assert "(zone not set)" in out


def test_burst_table_when_empty(library_path: Path) -> None:
    status, out, _ = _cli(library_path, "analyze", "burst-table")
    assert status == 0 and "probe burst" in out


def test_fit_command(library_path: Path) -> None:
    args = ["analyze", "fit", "--baseline", "0.75G", "--burst-rate", "10Gbit", "--bucket"]
    status, out, err = _cli(
        library_path, *args, "2700G", "--steady", "600M", "--need", "10G", "--burst-length", "10"
    )
    assert status == 0, err
    assert out.startswith("fits:") and "4.86 min" in out and "10.4 min" in out
    status, out, _ = _cli(
        library_path, *args, "337.5GB", "--steady", "600mbit", "--need", "10G", "--json"
    )
    fit = json.loads(out)
    assert fit["fits"] is True and fit["bucket_bits"] == pytest.approx(2700e9)
    assert fit["max_burst_s"] == pytest.approx(2700 / 9.25)
    status, out, _ = _cli(library_path, *args, "2700G", "--steady", "0.8G", "--need", "5G")
    assert status == 0 and out.startswith("does not fit:")
    status, _, err = _cli(library_path, *args, "2700Gb", "--steady", "0", "--need", "5G")
    assert status == 2 and "not a size" in err
    status, _, err = _cli(
        library_path, *args, "2700G", "--steady", "0", "--need", "5G", "--burst-length", "-1"
    )
    assert status == 2 and "burst length" in err


@pytest.mark.parametrize(
    ("text", "bps"),
    [("750M", 750e6), ("0.75G", 750e6), ("750mbit", 750e6), ("10Gbps", 10e9), ("8000", 8000.0)],
)
def test_rates(text: str, bps: float) -> None:
    assert _rate(text) == pytest.approx(bps)


@pytest.mark.parametrize(
    ("text", "bits"),
    [
        ("2700G", 2700e9),
        ("2700Gbit", 2700e9),
        ("337.5GB", 2700e9),
        ("500MiB", 500 * 2**20 * 8),
        ("64k", 64e3),
    ],
)
def test_sizes(text: str, bits: float) -> None:
    assert _size(text) == pytest.approx(bits)


def test_stored_analyses_replace_list_and_go_with_their_run(library: Library) -> None:
    run_id = _store_run(library, "local", 20.0)
    other = _store_run(library, "local", 30.0)
    store_analysis(library, run_id, "burst", {"detected": True, "x": float("inf")})
    store_analysis(library, run_id, "burst", {"detected": False, "nested": [1.0, float("nan")]})
    store_analysis(library, run_id, "burst_refill", {"refill_bps": 2e8})
    store_analysis(library, other, "burst", {"detected": True})
    assert get_analysis(library, run_id, "burst") == {"detected": False, "nested": [1.0, None]}
    assert set(get_analyses(library, run_id)) == {"burst", "burst_refill"}
    assert [r for r, _ in list_analyses(library, "burst")] == [run_id, other]
    assert get_analysis(library, run_id, "nothing") is None
    with pytest.raises(LibraryError):
        store_analysis(library, 999, "burst", {})
    with pytest.raises(ValueError):
        store_analysis(library, run_id, "bad kind;", {})
    delete_run(library, run_id)
    assert get_analyses(library, run_id) == {}
    assert [r for r, _ in list_analyses(library, "burst")] == [other]
