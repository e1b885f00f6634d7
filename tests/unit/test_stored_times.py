"""Run times (issue 26, §3): a library that already holds an odd start or end time (written by
an older or hostile program: milliseconds, negative, 1e20, infinite, text) lists, filters,
shows and exports every run without a traceback, showing "(invalid time)" and writing JSON
null; an import refuses such a time, saying what it read."""

from __future__ import annotations

import csv
import io
import json
import math
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.export.run_json import run_fields
from pairbench.library import Library
from pairbench.library.runs import get_run, list_runs
from pairbench.services.importing import import_output
from testkit import FIXTURES

INVALID = "(invalid time)"  # how a time no calendar shows is shown
# What a start time may be in a library nobody checked.
ODD = [1.7953e12, -1e10, 1e20, math.inf, -math.inf, "soon", b"\x00"]


def _cli(library: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library)})
    status = run_cli(list(argv), env)  # an exception here is the traceback a user would see
    return status, out.getvalue(), err.getvalue()


def _strict(text: str) -> object:
    """JSON as the standard reads it: NaN and Infinity are not JSON."""

    def refuse(name: str) -> object:
        raise AssertionError(f"{name} in JSON output")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture
def odd_library(library_path: Path) -> Iterator[Path]:
    """A good run, then one run per odd time (start and end), written as SQL writes them."""
    text = (FIXTURES / "iperf3" / "tcp_t5_json.out").read_text(encoding="utf-8")
    with Library.open(library_path) as lib:
        for _ in range(len(ODD) + 1):
            import_output(lib, "iperf3", text, label="run")
    conn = sqlite3.connect(library_path)
    with conn:
        for run_id, value in enumerate(ODD, start=2):
            conn.execute(
                "UPDATE runs SET started_at = ?, ended_at = ? WHERE id = ?",
                (value, value, run_id),
            )
    conn.close()
    yield library_path


def test_odd_stored_times_read_as_floats(odd_library: Path) -> None:
    with Library.open(odd_library) as lib:
        listed = {run.id: run for run in list_runs(lib)}
        for run_id in range(1, len(ODD) + 2):
            one = get_run(lib, run_id)
            assert type(one.started_at) is float and type(listed[run_id].started_at) is float
            assert one == listed[run_id]  # the fast listing reads what get_run reads
    assert math.isnan(listed[len(ODD) + 1].started_at)  # bytes: no number


def test_every_listing_showing_and_export_survives_odd_times(
    odd_library: Path, tmp_path: Path
) -> None:
    status, out, err = _cli(odd_library, "runs", "list")
    assert status == 0, err
    assert out.count(INVALID) == len(ODD) - 1  # -1e10 is 1653, a date a calendar shows
    assert "1653-" in out
    status, out, _ = _cli(odd_library, "runs", "list", "--since", "2026-01-01")
    assert status == 0 and "2026-11-21" in out and "1653-" not in out  # SQL's comparison
    status, out, _ = _cli(odd_library, "runs", "list", "--json")
    listed = _strict(out)
    assert isinstance(listed, list) and len(listed) == len(ODD) + 1
    by_id = {item["id"]: item for item in listed}
    assert by_id[1]["started_at"] == 1795300068.0
    assert [by_id[i]["started_at"] for i in range(2, len(ODD) + 2)] == [
        1.7953e12,
        -1e10,
        1e20,
        None,  # infinite
        None,
        None,  # text
        None,  # bytes
    ]
    with Library.open(odd_library) as lib:  # the fast JSON is json.dumps of run_fields
        assert json.loads(out) == json.loads(json.dumps([run_fields(r) for r in list_runs(lib)]))
    for run_id in range(2, len(ODD) + 2):
        status, out, err = _cli(odd_library, "runs", "show", str(run_id))
        assert status == 0 and "Traceback" not in err, err
        shown = _strict(_cli(odd_library, "runs", "show", str(run_id), "--json")[1])
        assert isinstance(shown, dict) and shown["id"] == run_id
    assert f"started   {INVALID}" in _cli(odd_library, "runs", "show", "4")[1]
    ids = f"1-{len(ODD) + 1}"
    for fmt in ("bundle", "json", "csv"):
        out_path = tmp_path / f"export.{fmt}"
        status, _, err = _cli(odd_library, "export", ids, "--format", fmt, "--out", str(out_path))
        assert status == 0, err
    _strict((tmp_path / "export.json").read_text(encoding="utf-8"))
    with (tmp_path / "export.csv").open(newline="", encoding="utf-8") as handle:
        assert len(list(csv.reader(handle))) > len(ODD)
    status, out, err = _cli(odd_library, "compare", "1", "4", "--json")
    assert status == 0, err
    _strict(out)


def test_a_bundle_of_odd_times_is_refused_whole(odd_library: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "odd.zip"
    ids = f"1-{len(ODD) + 1}"
    assert _cli(odd_library, "export", ids, "--format", "bundle", "--out", str(bundle))[0] == 0
    other = tmp_path / "other.sqlite"
    status, _, err = _cli(other, "import-bundle", str(bundle))
    assert status == 1 and "runs/0002/run.json: start time 1.795e+12 s" in err
    assert "(milliseconds?)" in err and "nothing imported" in err
    assert _cli(other, "runs", "list", "--count")[1].strip() == "0"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (1.7953e12, "start time 1.795e+12 s is not a date between 1990 and 2100 (milliseconds?)"),
        (1.7953e15, "(microseconds?)"),
        (1.7953e18, "(nanoseconds?)"),
        (-1.0, "start time -1 s is not a date between 1990 and 2100"),
        (1e20, "start time 1e+20 s is not"),
        (math.nan, "start time is not a number (NaN)"),
        (math.inf, "start time inf s is not"),
        (10**400, "start time of 401 digits is not"),
        ("1795300068", "is not a number of seconds"),
        (631_151_999.0, "is not a date between 1990 and 2100"),  # 1989-12-31 23:59:59
        (4_102_444_800.0, "is not a date between 1990 and 2100"),  # 2100-01-01
    ],
)
def test_implausible_times_say_what_was_read(value: object, said: str) -> None:
    from pairbench.domain.timestamps import implausible_time

    problem = implausible_time(value)
    assert problem is not None and said in problem


def test_the_bounds_are_dates_of_1990_and_2100() -> None:
    from pairbench.domain.timestamps import implausible_time, time_text

    assert implausible_time(631_152_000.0) is None  # 1990-01-01 00:00 UTC
    assert implausible_time(4_102_444_799.0) is None
    assert time_text(631_152_000.0, "%Y-%m-%d", utc=True) == "1990-01-01"
    assert time_text(4_102_444_799.0, "%Y", utc=True) == "2099"
    for odd in (1.7953e12, 1e20, math.inf, math.nan):
        assert time_text(odd) == INVALID
    assert time_text(None) == ""


def test_an_accepted_time_is_kept_exactly(library: Library) -> None:
    """The boundary is not a rounding: a JSON whose start is the first second of 1990."""
    document = json.loads((FIXTURES / "iperf3" / "tcp_t5_json.out").read_text(encoding="utf-8"))
    document["start"]["timestamp"]["timesecs"] = 631_152_000
    run = import_output(library, "iperf3", json.dumps(document))
    assert run.started_at == 631_152_000.0 and run.ended_at is not None
    assert run.ended_at - run.started_at == pytest.approx(5.0, abs=0.01)
