"""A real throughput suite on this computer (fio, a small test file, 1 s rounds) with
``--steady-state cloudharmony``, checked against CloudHarmony's own code (PHP,
``tests/reference``) on the very fio results the suite stored: each stage's verdict and
round, every CloudHarmony-named column and ``ss_*`` field equal; the 128 KiB stage
preconditioned again first, as theirs; and ``storage run --json`` is what ``storage show
--json`` prints. (Mixed read/write jobs from real fio runs: tests/unit/
test_cloudharmony_reference.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pairbench.domain.storage import StorageTest
from reference.cloudharmony import run_reference
from reference.fio_docs import stored_documents
from testkit import require_program

ROUNDS = 5  # the window: the rule decides at round 5 (steady, or out of rounds)
# A file in RAM on a shared 2-core machine swings by half: wide limits (CloudHarmony's
# ss_verification 40: slope 40 %, data 80 % of the mean) make steady windows, so their
# ss_* fields are compared too. Exact arithmetic at the limits: tests/unit.


def _cli(library: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PAIRBENCH_LIBRARY=str(library))
    argv = [sys.executable, "-m", "pairbench", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.timeout(900)
def test_a_real_throughput_suite_agrees_with_cloudharmonys_code(tmp_path: Path) -> None:
    require_program("fio")
    library = tmp_path / "library.sqlite"
    target = tmp_path / "target"
    target.mkdir()
    run = _cli(
        library, "storage", "run", "--host", "local", "--test", "throughput",
        "--target", str(target), "--size", "8MiB", "--round-seconds", "1",
        "--max-rounds", str(ROUNDS), "--precondition-passes", "1", "--threads", "1",
        "--iodepth", "4", "--steady-state", "cloudharmony", "--slope-excursion", "40", "--json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    final = json.loads(run.stdout.strip().splitlines()[-1])
    shown = _cli(library, "storage", "show", str(final["id"]), "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == final  # one shape, one content
    assert final["status"] == "completed" and final["steady_state"]["rule"] == "cloudharmony"
    assert [s["rule"] for s in final["stages"]] == ["cloudharmony"] * 2
    assert all(s["rounds"] == ROUNDS for s in final["stages"])
    # One preconditioning pass before each stage: the 128 KiB stage's own, as CloudHarmony's.
    jobs = [(j["stage"], j["round"]) for j in final["jobs"]]
    assert jobs[0] == ("precondition", 1) and jobs[2 * ROUNDS + 1] == (
        "precondition throughput 128k",
        1,
    )
    assert len(jobs) == 2 + 2 * 2 * ROUNDS
    # Purged again in the suite's private directory: its test file removed there, fio's next
    # job made it anew; every job ran on that file, and the directory went at the end.
    test_file = f"{final['facts']['test_dir']}/test.dat"
    assert final["facts"]["purge before throughput 128k"] == (
        f"a new test file ({test_file} removed; the next job makes it anew)"
    )
    runs = json.loads(
        _cli(library, "runs", "list", "--tag", f"suite={final['id']}", "--json").stdout
    )
    assert len(runs) == len(jobs) and {r["params"]["file"] for r in runs} == {test_file}
    assert list(target.iterdir()) == []

    documents = stored_documents(library, final["id"], StorageTest.THROUGHPUT)
    assert len(documents) == 2 * 2 * ROUNDS
    request = {
        "kind": "suite",
        "test": "throughput",
        "max_rounds": ROUNDS,
        "verification": round(final["params"]["slope_excursion"] * 100, 9),
        "rounds": 0,
        "default": {},
        "jobs": documents,
    }
    (theirs,) = run_reference([request], tmp_path / "reference")
    for stage, their_stage in zip(final["stages"], theirs["stages"], strict=True):
        assert their_stage["complete"] == ROUNDS  # steady at 5, or out of rounds at 5
        assert their_stage["status"] is stage["reached"]
    columns = final["columns"]
    count = len(theirs["metrics"]) + len(theirs["options"])
    ours = {name: columns[name] for name in theirs["metrics"]}
    assert list(ours.items()) == list(theirs["metrics"].items())
    assert {k: v for k, v in columns.items() if k.startswith("ss_")} == theirs["options"]
    options = ("ss_max_rounds", "ss_verification")
    for stage, their_stage in zip(final["stages"], theirs["stages"], strict=True):
        window_fields = {k: v for k, v in their_stage["options"].items() if k not in options}
        assert stage["cloudharmony"] == window_fields  # each stage's (their row: the last's)
        count += len(window_fields)
    # Pairbench's own figures stay beside theirs, under names of their own.
    assert {"throughput_1024k_100_0_bytes_per_s", "throughput_128k_0_100_bytes_per_s"} <= set(
        columns
    )
    print(f"CloudHarmony agreement on a real throughput suite: verdicts 2/2, "
          f"columns and ss_* fields {count}/{count}")  # fmt: skip
