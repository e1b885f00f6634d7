"""``pairbench runs list`` options: dates, id ranges, filters, order, pages, count, JSON."""

from __future__ import annotations

import gc
import io
import json
from datetime import datetime
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import RunSpec, RunStatus
from pairbench.export.run_json import run_fields
from pairbench.library import Library
from pairbench.library.runs import create_run, finish_run, list_runs
from pairbench.services import runs_json

# Local times, as the CLI reads and prints them.
STARTS = [
    datetime(2026, 11, 1, 9, 0),
    datetime(2026, 11, 2, 23, 59, 30),
    datetime(2026, 11, 3, 0, 0),
    datetime(2026, 11, 20, 12, 0),
    datetime(2026, 12, 1, 8, 0),
]
PAIRS = ["local", "wan", "local", "lab", "wan"]


def _cli(library_path: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    status = run_cli(list(argv), env)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def ids(library_path: Path) -> list[int]:
    made = []
    with Library.open(library_path) as lib:
        for n, (start, pair) in enumerate(zip(STARTS, PAIRS, strict=True)):
            spec = RunSpec(pair, "iperf3", label=f"run {n}", tags={"zone": "ab"[n % 2]})
            run_id = create_run(lib, spec, started_at=start.timestamp())
            finish_run(
                lib,
                run_id,
                RunStatus.COMPLETED if n % 2 == 0 else RunStatus.FAILED,
                summary={"throughput_bps": 1e9 + n, "retransmits": n},
                complete=True,
                ended_at=start.timestamp() + 10,
            )
            made.append(run_id)
    return made


def _listed(library_path: Path, *options: str) -> list[int]:
    status, out, err = _cli(library_path, "runs", "list", "--json", *options)
    assert status == 0, err
    return [run["id"] for run in json.loads(out)]


def _newest_first(ids: list[int], keep: list[int]) -> list[int]:
    return sorted((ids[i] for i in keep), key=lambda i: (STARTS[ids.index(i)], i), reverse=True)


def test_json_output_is_unchanged(library_path: Path, ids: list[int]) -> None:
    status, out, _ = _cli(library_path, "runs", "list", "--json")
    with Library.open(library_path) as lib:
        expected = json.dumps([run_fields(run) for run in list_runs(lib)])
    assert status == 0 and out == expected + "\n"


def test_since_and_until_take_dates_and_times(library_path: Path, ids: list[int]) -> None:
    assert _listed(library_path, "--since", "2026-11-03") == _newest_first(ids, [2, 3, 4])
    # A date alone as --until means up to the end of that day.
    assert _listed(library_path, "--until", "2026-11-02") == _newest_first(ids, [0, 1])
    assert _listed(library_path, "--since", "2026-11-02", "--until", "2026-11-30") == (
        _newest_first(ids, [1, 2, 3])
    )
    assert _listed(library_path, "--until", "2026-11-02T23:59:30") == _newest_first(ids, [0])
    assert _listed(library_path, "--since", "2026-11-02 23:59:30") == _newest_first(
        ids, [1, 2, 3, 4]
    )


def test_id_ranges(library_path: Path, ids: list[int]) -> None:
    a, b, c, d, e = ids
    assert _listed(library_path, "--id", f"{b}-{d}") == _newest_first(ids, [1, 2, 3])
    assert _listed(library_path, "--id", f"{a},{e}") == _newest_first(ids, [0, 4])
    assert _listed(library_path, "--id", f"{d}-") == _newest_first(ids, [3, 4])
    assert _listed(library_path, "--id", str(a), "--id", f"{c}-{d}") == _newest_first(
        ids, [0, 2, 3]
    )


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--id", "12-x", "expected ids such as"),
        ("--id", "40-12", "empty id range"),
        ("--since", "yesterday", "expected an ISO date"),
        ("--until", "2026-13-01", "expected an ISO date"),
        ("--limit", "-1", "expected 0 or more"),
        ("--sort", "summary", "invalid choice"),
    ],
)
def test_bad_option_values_are_usage_errors(
    library_path: Path, option: str, value: str, message: str
) -> None:
    status, out, err = _cli(library_path, "runs", "list", f"{option}={value}")
    assert status == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_filters_order_pages_and_count(library_path: Path, ids: list[int]) -> None:
    assert _listed(library_path, "--pair", "wan") == _newest_first(ids, [1, 4])
    assert _listed(library_path, "--status", "failed") == _newest_first(ids, [1, 3])
    assert _listed(library_path, "--tag", "zone=B") == _newest_first(ids, [1, 3])
    assert _listed(library_path, "--label", "run 2") == [ids[2]]
    assert _listed(library_path, "--search", "RUN 4") == [ids[4]]
    assert _listed(library_path, "--sort", "id", "--ascending") == ids
    by_pair = sorted(ids, key=lambda i: (PAIRS[ids.index(i)], STARTS[ids.index(i)], i))
    assert _listed(library_path, "--sort", "pair", "--ascending") == by_pair
    assert _listed(library_path, "--limit", "2", "--offset", "1") == _newest_first(ids, [3, 2])
    status, out, _ = _cli(library_path, "runs", "list", "--count", "--pair", "local")
    assert (status, out) == (0, "2\n")
    status, out, _ = _cli(library_path, "runs", "list", "--count", "--json", "--limit", "1")
    assert (status, json.loads(out)) == (0, {"count": 5})


def test_text_list_says_when_nothing_matches(library_path: Path, ids: list[int]) -> None:
    status, out, _ = _cli(library_path, "runs", "list", "--pair", "nowhere")
    assert (status, out) == (0, "no runs match\n")
    status, out, _ = _cli(library_path, "runs", "list", "--since", "2026-11-20")
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["ID", "STARTED"]
    assert set(lines[1]) <= {"-", " "}  # the rule under the headers
    assert [int(line.split()[0]) for line in lines[2:]] == _newest_first(ids, [3, 4])


def test_help_documents_the_filters(library_path: Path) -> None:
    status, out, _ = _cli(library_path, "runs", "list", "--help")
    assert status == 0
    for option in ("--since", "--until", "--id", "--sort", "--limit", "--count", "12-40"):
        assert option in out


def test_json_output_written_in_parts_is_the_same(
    library_path: Path, ids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, whole, _ = _cli(library_path, "runs", "list", "--json")
    monkeypatch.setattr(runs_json, "PER_PART", 2)  # 5 runs: written in 3 parts
    status, out, _ = _cli(library_path, "runs", "list", "--json")
    assert status == 0 and out == whole and len(json.loads(out)) == len(ids)
    assert gc.isenabled()  # paused while the rows were read and written, not after
