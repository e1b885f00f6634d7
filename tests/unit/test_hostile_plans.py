"""Hostile campaign plans (issue 26, §3): each is refused by `campaign check` and by
`campaign run` in one line, nothing stored, nothing run, in bounded time; a FIFO plan does
not block, in a process of its own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hostilekit import (
    MARK,
    assert_refused,
    copy_library,
    make_template,
    not_regular_files,
    refused_here,
    run_here_unblocking,
    run_process,
    snapshot,
)

HEAD = 'name = "hostile"\npairs = ["p1"]\n'
PING = '[[tests]]\ntool = "ping"\nparams = { count = 1 }\n'


def _plan(top: str = "", tests: str = PING) -> str:
    return HEAD + top + ("\n" if top and not top.endswith("\n") else "") + tests


def _values(count: int, start: int = 1) -> str:
    return ", ".join(str(i) for i in range(start, start + count))


# name → the plan's text, or bytes (what a file holds); {M} is replaced by the marker's path.
PLANS: dict[str, str | bytes] = {
    "nested arrays 5000 deep": _plan("label = " + "[" * 5000 + "]" * 5000),
    "nested inline tables 3000 deep": _plan("label = " + "{a=" * 3000 + "1" + "}" * 3000),
    "nested arrays 20 deep in params": _plan(
        tests='[[tests]]\ntool = "ping"\nparams = { count = ' + "[" * 20 + "1" + "]" * 20 + " }\n"
    ),
    "filter of 3000 unary minuses": _plan('filter = "' + "-" * 3000 + '1"'),
    "filter of 1990 unary minuses": _plan('filter = "' + "-" * 1990 + '1"'),
    "filter of 50000 + terms": _plan('filter = "' + "+".join(["1"] * 50000) + ' > 0"'),
    "filter of 999 + terms": _plan('filter = "' + "+".join(["1"] * 999) + ' > 0"'),
    "filter of 490 nots": _plan('filter = "' + "not " * 490 + '1"'),
    "filter repeating text 1e11 times": _plan("filter = \"'x' * 100000000000 == 'x'\""),
    "filter formatting a huge width": _plan("filter = \"'%9999999999s' % 1 == 'x'\""),
    "filter repeating a list": _plan('filter = "[1] * 99999999999 == [1]"'),
    "filter negating text": _plan("filter = \"-pair.name == 'x'\""),
    "filter with a power": _plan('filter = "count ** 99999999 > 1"'),
    "filter calling os.system": _plan("filter = \"__import__('os').system('touch {M}') == 0\""),
    "filter with a lambda": _plan('filter = "(lambda: 1)() == 1"'),
    "filter reaching dunders": _plan('filter = "().__class__.__bases__ == 1"'),
    "filter of 400-digit number times itself": _plan(
        'filter = "' + "9" * 400 + " * " + "9" * 400 + ' > 0"'
    ),
    "filter 5000 characters long": _plan('filter = "count == ' + "1" * 4990 + '"'),
    "filter not an expression": _plan('filter = "count =="'),
    "seed of 400 digits": _plan("seed = " + "9" * 400),
    "seed beyond 64 bits": _plan(f"seed = {2**64 + 5}"),
    "seed negative": _plan("seed = -1"),
    "pause of 400 digits": _plan("pause = " + "9" * 400),
    "pause of 30 digits": _plan("pause = " + "9" * 30),
    "pause 1e400 (infinite)": _plan("pause = 1e400"),
    "pause nan": _plan("pause = nan"),
    "pause 1e30 seconds": _plan("pause = 1e30"),
    "pause 999999999 hours": _plan('pause = "999999999h"'),
    "schedule days of 30 digits": _plan('schedule = { at = ["08:00"], days = ' + "9" * 30 + " }"),
    "schedule days 367": _plan('schedule = { at = ["08:00"], days = 367 }'),
    "schedule days 0": _plan('schedule = { at = ["08:00"], days = 0 }'),
    "schedule every second for 300 days": _plan('schedule = { every = "1s", for = "300d" }'),
    "schedule for 1e30 s": _plan('schedule = { every = "1h", for = 1e30 }'),
    "schedule at 1440 times for 7 days": _plan(
        "schedule = { at = ["
        + ", ".join(f'"{h:02d}:{m:02d}"' for h in range(24) for m in range(60))
        + "], days = 7 }"
    ),
    "schedule at 25:99": _plan('schedule = { at = ["25:99"] }'),
    "repeats 10^18": _plan("repeats = " + "1" + "0" * 18),
    "repeats max 10^12": _plan("repeats = { min = 1, max = 1000000000000 }"),
    "parallel 10^9": _plan("parallel = 1000000000"),
    "retries 10^9": _plan("retry = { retries = 1000000000 }"),
    "retry delay 1e400 s": _plan('retry = { delay = "1e400s" }'),
    "unknown metric": _plan(tests='[[tests]]\ntool = "ping"\nmetric = "nope"\n'),
    "misspelt metric": _plan(tests='[[tests]]\ntool = "ping"\nmetric = "rtt_avg"\n'),
    "metric not text": _plan(tests='[[tests]]\ntool = "ping"\nmetric = 5\n'),
    "two tests named ping": _plan(tests=PING + PING),
    "two tests named A and a": _plan(
        tests='[[tests]]\nname = "A"\ntool = "ping"\n[[tests]]\nname = "a"\ntool = "ping"\n'
    ),
    "axes of a million sets": _plan(
        tests='[[tests]]\ntool = "ping"\nparams = { count = ['
        + _values(100)
        + "], size = ["
        + _values(100, 16)
        + "], deadline = ["
        + _values(100)
        + "] }\n"
    ),
    "tool is a shell payload": _plan(tests='[[tests]]\ntool = "$(touch {M})"\n'),
    "pair is a shell payload": 'name = "x"\npairs = ["$(touch {M})"]\n' + PING,
    "count is a shell payload": _plan(
        tests='[[tests]]\ntool = "ping"\nparams = { count = "1; touch {M}" }\n'
    ),
    "size in backticks": _plan(
        tests='[[tests]]\ntool = "ping"\nparams = { size = "`touch {M}`" }\n'
    ),
    "label of 100000 characters": _plan('label = "' + "x" * 100_000 + '"'),
    "key of 5000 characters": _plan("k" * 5000 + " = 1"),
    "tests is a number": HEAD + "tests = 5\n",
    "zip of an unknown axis": _plan(tests='[[tests]]\ntool = "ping"\nzip = [["nope"]]\n'),
    "order random": _plan('order = "random"'),
    "outliers iqr:1e999": _plan('outliers = "iqr:1e999"'),
    "not TOML (random bytes)": bytes(range(256)) * 8,
    "TOML with NUL bytes": _plan().encode() + b"\x00\x00label = 1\n",
    "not UTF-8 (Latin-1)": _plan('label = "Z\xfcrich"').encode("latin-1"),
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_template(tmp_path_factory.mktemp("hostile-plans"))


def _write(folder: Path, content: str | bytes) -> Path:
    path = folder / "plan.toml"
    if isinstance(content, str):
        content = content.replace("{M}", str(folder / MARK)).encode("utf-8")
    path.write_bytes(content)
    return path


def test_there_are_at_least_fifty_hostile_plans() -> None:
    assert len(PLANS) >= 50


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", list(PLANS))
def test_a_hostile_plan_is_refused_by_check_and_run(
    name: str, template: Path, tmp_path: Path
) -> None:
    plan = str(_write(tmp_path, PLANS[name]))
    refused_here(template, tmp_path, ("campaign", "check", plan), ("campaign", "run", plan))


# Files that are not plans at all: refused by what they are, never read (or read in full).
SPECIAL = not_regular_files(2048)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", list(SPECIAL))
def test_a_plan_that_is_no_regular_file_is_refused(
    name: str, template: Path, tmp_path: Path
) -> None:
    plan = str(SPECIAL[name](tmp_path))
    for outcome in refused_here(
        template, tmp_path, ("campaign", "check", plan), ("campaign", "run", plan)
    ):
        assert "not a regular file" in outcome.err or "larger than" in outcome.err


@pytest.mark.timeout(60)
def test_a_fifo_plan_does_not_block_check_or_run(template: Path, tmp_path: Path) -> None:
    library = copy_library(template, tmp_path)
    fifo = tmp_path / "plan.toml"
    os.mkfifo(fifo)
    before = snapshot(library)
    outcome = run_process(library, "campaign", "check", str(fifo))  # a real process
    assert_refused(outcome, before, library, tmp_path)
    assert "named pipe (FIFO)" in outcome.err
    outcome = run_here_unblocking(library, fifo, "campaign", "run", str(fifo))
    assert_refused(outcome, before, library, tmp_path)


@pytest.mark.timeout(60)
def test_a_fifo_id_file_does_not_block_a_run(template: Path, tmp_path: Path) -> None:
    library = copy_library(template, tmp_path)
    plan = _write(tmp_path, _plan())
    fifo = tmp_path / "campaign.id"
    os.mkfifo(fifo)
    before = snapshot(library)
    outcome = run_here_unblocking(
        library, fifo, "campaign", "run", str(plan), "--id-file", str(fifo)
    )
    assert_refused(outcome, before, library, tmp_path)
    assert "named pipe (FIFO)" in outcome.err
