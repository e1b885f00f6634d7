"""What keeps the suite's parallel workers apart (tests/README.md): each session's own folders
(``sessionkit``, through ``tests/conftest.py``'s hooks), each worker's lab instance
(``labkit.candidate_instances``), and the parts and times ``make test`` reports
(``suite_runner``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import labkit
import suite_runner
from pairbench.lab import LabError
from pairbench.lab.instance import ENV, MAX_INSTANCE
from testkit import REPO

pytest_plugins = ["pytester"]

# The session's conftest: the suite's own configure/unconfigure hooks, from the real file.
CONFTEST = f"""
import importlib.util
import sys

sys.path.insert(0, {str(REPO / "tests")!r})
_path = {str(REPO / "tests" / "conftest.py")!r}
_spec = importlib.util.spec_from_file_location("suite_conftest", _path)
_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_suite)
pytest_configure = _suite.pytest_configure
pytest_unconfigure = _suite.pytest_unconfigure
"""

# Each test writes down the folders it was given, and writes into its TMPDIR.
RECORD = """
import json, os, tempfile, pytest

NAMES = ("PAIRBENCH_LOCK_DIR", "TMPDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR")

@pytest.mark.parametrize("n", range(6))
def test_record(n):
    seen = {name: os.environ.get(name) for name in NAMES}
    seen["worker"] = os.environ.get("PYTEST_XDIST_WORKER", "")
    seen["gettempdir"] = tempfile.gettempdir()
    tempfile.mkstemp(prefix="left-by-a-test-")
    with open(os.environ["RECORD_TO"], "a") as out:
        out.write(json.dumps(seen) + "\\n")
"""


def _session(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *args: str
) -> list[dict[str, str]]:
    record = tmp_path / "record.jsonl"
    monkeypatch.setenv("RECORD_TO", str(record))
    # A session of its own, even when this test runs on a worker (whose marks it would inherit).
    for name in [name for name in os.environ if name.startswith("PYTEST_XDIST_")]:
        monkeypatch.delenv(name)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_record=RECORD)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
    result.assert_outcomes(passed=6)
    return [json.loads(line) for line in record.read_text().splitlines()]


def test_each_worker_has_its_own_folders_removed_at_its_end(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PAIRBENCH_LOCK_DIR", str(tmp_path / "mine"))  # a worker never shares it
    seen = _session(pytester, monkeypatch, tmp_path, "-n", "2")
    workers = {entry["worker"]: entry for entry in seen}
    assert sorted(workers) == ["gw0", "gw1"]
    for name in ("PAIRBENCH_LOCK_DIR", "TMPDIR", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR"):
        values = {entry[name] for entry in workers.values()}
        assert len(values) == 2, (name, values)  # one each
        for value in values:
            assert value != os.environ.get(name) and "/pairbench-tests-" in value, value
    for entry in seen:
        assert entry["gettempdir"] == entry["TMPDIR"]  # tempfile follows it
        root = Path(entry["TMPDIR"]).parent
        assert not root.exists(), f"{root} was left behind"  # with what the test left in it


def test_a_plain_session_keeps_the_lock_folder_it_was_given(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PAIRBENCH_LOCK_DIR", str(tmp_path / "mine"))
    seen = _session(pytester, monkeypatch, tmp_path)
    assert {entry["PAIRBENCH_LOCK_DIR"] for entry in seen} == {str(tmp_path / "mine")}
    assert len({entry["TMPDIR"] for entry in seen}) == 1
    assert not Path(seen[0]["TMPDIR"]).parent.exists()


@pytest.mark.parametrize(
    ("environ", "first"),
    [
        ({}, [0]),
        ({"PYTEST_XDIST_WORKER": "gw0"}, [1, 2, 3]),
        ({"PYTEST_XDIST_WORKER": "gw2"}, [3, 1, 2]),
    ],
)
def test_a_worker_prefers_its_own_lab_instance_then_any_free_one(
    environ: dict[str, str], first: list[int]
) -> None:
    candidates = labkit.candidate_instances(environ)
    assert candidates[: len(first)] == first
    if environ:  # every instance, once; never the default lab other sessions use
        assert sorted(candidates) == list(range(1, MAX_INSTANCE + 1))


def test_an_instance_named_by_hand_is_the_only_candidate() -> None:
    assert labkit.candidate_instances({ENV: "7", "PYTEST_XDIST_WORKER": "gw0"}) == [7]
    with pytest.raises(LabError, match=f"{ENV} must be a number"):
        labkit.candidate_instances({ENV: "seven"})
    assert labkit.tests_lock_name(0) == "pairbench-lab-tests"  # what other sessions wait on
    assert labkit.tests_lock_name(7) == "pairbench-lab-tests.i7"


def test_the_slowest_tests_come_from_every_part(tmp_path: Path) -> None:
    first, second = tmp_path / "a.xml", tmp_path / "b.xml"
    first.write_text(
        '<testsuites><testsuite><testcase classname="tests.unit.test_a" name="test_x" time="1.5"/>'
        '<testcase classname="tests.unit.test_a" name="test_y" time="9.0"/>'
        "</testsuite></testsuites>"
    )
    second.write_text(
        '<testsuites><testsuite><testcase classname="tests.faults.test_b" name="test_z" '
        'time="4.25"/></testsuite></testsuites>'
    )
    parts = [
        suite_runner.Part("tests", [], junit=first),
        suite_runner.Part("serial tests", [], junit=second),
        suite_runner.Part("lint", []),
    ]
    assert suite_runner.slowest(parts, count=2) == [
        (9.0, "tests.unit.test_a::test_y"),
        (4.25, "tests.faults.test_b::test_z"),
    ]


def test_the_parallel_part_names_every_folder_of_tests() -> None:
    folders = suite_runner.test_folders()
    assert folders[:2] == ["tests/integration", "tests/faults"]  # the slow ones start first
    having_tests = {
        f"tests/{p.relative_to(REPO / 'tests').parts[0]}"
        for p in (REPO / "tests").rglob("test_*.py")
        if p.parent != REPO / "tests" and "data" not in p.relative_to(REPO / "tests").parts[:1]
    }
    assert set(folders) == having_tests
    assert not list((REPO / "tests").glob("test_*.py"))  # none that no folder would name
