"""Campaigns on this computer (the ``local`` pair, real ping and fio): the CLI runs a plan to
its verdicts; failures are retried then skipped with the reason; a SIGKILL of the program in
the middle loses only the run in flight and resume finishes without a duplicate; a detached
campaign keeps going without its terminal and stops on ``campaign cancel``; a schedule of
passes runs each pass at its time."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from local_run_helpers import PAIRBENCH, cli_json, start_cli
from pairbench.library import Library
from pairbench.library.runs import list_runs
from pairbench.services.campaign_plan import parse_plan
from pairbench.services.campaigns import show_campaign, start_campaign

PING = 'tool = "ping"\nparams = {{ count = {count}, interval = 0.2 }}\n'


def _plan(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "plan.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _wait_for(what: str, check: Any, timeout_s: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _shown(library: Path, campaign_id: int) -> dict[str, Any]:
    shown: dict[str, Any] = cli_json(library, "campaign", "show", str(campaign_id), "--json")
    return shown


def _campaign_runs(library: Path, campaign_id: int) -> list[Any]:
    with Library.open(library) as lib:
        return [r for r in list_runs(lib) if r.tags.get("campaign") == str(campaign_id)]


def test_a_plan_runs_to_its_verdicts_and_says_so_in_json(tmp_path: Path) -> None:
    library = tmp_path / "library.sqlite"
    plan = _plan(
        tmp_path,
        'name = "two counts"\npairs = ["local"]\nrepeats = 2\nseed = 5\n[[tests]]\n'
        'tool = "ping"\nparams = { count = [2, 3], interval = 0.2 }\n',
    )
    result = subprocess.run(
        [*PAIRBENCH, "--library", str(library), "campaign", "run", str(plan), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    end = json.loads(result.stdout.strip().splitlines()[-1])
    assert end["status"] == "completed" and len(end["runs"]) == 4
    shown = _shown(library, end["id"])
    assert [(c["params"]["count"], c["n"], c["status"]) for c in shown["cells"]] == [
        ("2", 2, "done"),
        ("3", 2, "done"),
    ]
    runs = {r.id: r for r in _campaign_runs(library, end["id"])}
    assert sorted(runs) == sorted(end["runs"])
    for cell in shown["cells"]:
        values = [runs[i].summary["rtt_avg_ms"] for i in cell["runs"]]
        assert abs(cell["mean"] - sum(values) / len(values)) < 1e-9
        assert all(runs[i].spec.params["count"] == cell["params"]["count"] for i in cell["runs"])
    tags = [runs[i].tags for i in end["runs"]]
    assert sorted((t["campaign_cell"], t["campaign_round"]) for t in tags) == [
        ("0", "1"),
        ("0", "2"),
        ("1", "1"),
        ("1", "2"),
    ]


def test_a_failing_cell_is_retried_then_skipped_with_the_reason(tmp_path: Path) -> None:
    library = tmp_path / "library.sqlite"
    # fio refuses to run a block larger than the file (its checks pass Pairbench's own).
    target = tmp_path / "target"
    target.mkdir()
    plan = _plan(
        tmp_path,
        'name = "one bad"\npairs = ["local"]\nrepeats = 1\norder = "sequential"\n'
        'retry = { retries = 1, delay = "0.2s", skip_pair_after = 0 }\n'
        f'[[tests]]\ntool = "fio"\nparams = {{ directory = "{target}", size = "4k", '
        'bs = "1m", runtime = 1, rw = "read" }\n[[tests]]\n' + PING.format(count=2),
    )
    result = subprocess.run(
        [*PAIRBENCH, "--library", str(library), "campaign", "run", str(plan), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    end = json.loads(result.stdout.strip().splitlines()[-1])
    assert end["status"] == "completed", result.stderr
    shown = _shown(library, end["id"])
    fio, ping = shown["cells"]
    assert fio["status"] == "skipped" and "failed 2 time(s)" in fio["reason"], fio
    assert fio["failures"] == 2 and fio["n"] == 0
    assert ping["status"] == "done" and ping["n"] == 1
    assert list(target.iterdir()) == []  # each failed run's work directory removed


def test_sigkill_mid_campaign_then_resume_loses_only_the_run_in_flight(tmp_path: Path) -> None:
    library = tmp_path / "library.sqlite"
    plan = _plan(
        tmp_path,
        'name = "kill me"\npairs = ["local"]\nrepeats = 2\n[[tests]]\n'
        'tool = "ping"\nparams = { count = [4, 5, 6], interval = 0.25 }\n',
    )
    id_file = tmp_path / "campaign.id"
    child = start_cli(library, "campaign", "run", str(plan), "--id-file", str(id_file))
    try:

        def two_done() -> bool:
            if not library.exists():
                return False
            with Library.open(library) as lib:
                runs = list_runs(lib)
            return sum(r.status.value == "completed" for r in runs) >= 2 and any(
                r.status.value == "running" for r in runs
            )

        _wait_for("two runs done and a third in flight", two_done)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate(timeout=10)
    listed = cli_json(library, "campaign", "list", "--json")
    assert [c["status"] for c in listed] == ["interrupted"]
    campaign_id = listed[0]["id"]
    assert id_file.read_text().strip() == str(campaign_id)
    # The same command again (as systemd would after a reboot) goes on with that campaign.
    result = subprocess.run(
        [
            *PAIRBENCH,
            "--library",
            str(library),
            "campaign",
            "run",
            str(plan),
            "--id-file",
            str(id_file),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert f"campaign {campaign_id}" in result.stderr and "resuming" in result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1])["id"] == campaign_id
    assert len(cli_json(library, "campaign", "list", "--json")) == 1
    shown = _shown(library, campaign_id)
    assert [c["n"] for c in shown["cells"]] == [2, 2, 2]  # no cell ran a third time
    runs = _campaign_runs(library, campaign_id)
    statuses = sorted(r.status.value for r in runs)
    assert statuses == ["completed"] * 6 + ["interrupted"]  # the one in flight, kept as it was
    counted = {i for c in shown["cells"] for i in c["runs"]}
    assert len(counted) == 6 and all(r.id in counted for r in runs if r.status.value == "completed")


def test_a_detached_campaign_runs_on_and_stops_on_cancel(tmp_path: Path) -> None:
    library = tmp_path / "library.sqlite"
    plan = _plan(
        tmp_path,
        'name = "background"\npairs = ["local"]\nrepeats = 3\n[[tests]]\n'
        'tool = "ping"\nparams = { count = [8, 9], interval = 0.25 }\n',
    )
    started = cli_json(library, "campaign", "run", str(plan), "--detach", "--json")
    campaign_id, pid = started["id"], started["pid"]
    assert Path(started["log"]).parent == library.parent
    _wait_for("a finished run", lambda: _shown(library, campaign_id)["runs"] >= 1)
    assert _shown(library, campaign_id)["status"] == "running"
    result = subprocess.run(
        [*PAIRBENCH, "--library", str(library), "campaign", "cancel", str(campaign_id)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and str(pid) in result.stdout, result.stderr
    ended = _wait_for(
        "the campaign to stop",
        lambda: (s := _shown(library, campaign_id))["status"] != "running" and s,
    )
    assert ended["status"] == "cancelled"
    runs = _campaign_runs(library, campaign_id)
    done = [r for r in runs if r.status.value == "completed"]
    assert len(done) == ended["runs"] >= 1 and len(done) < 6
    assert [r.status.value for r in runs if r.status.value != "completed"] in (["cancelled"], [])
    _wait_for("the background process to end", lambda: not Path(f"/proc/{pid}").exists(), 30)
    resumed = cli_json(library, "campaign", "resume", str(campaign_id), "--json")
    assert resumed["status"] == "completed" and len(resumed["runs"]) == len(runs) + (6 - len(done))
    assert [c["n"] for c in _shown(library, campaign_id)["cells"]] == [3, 3]


def test_a_scheduled_campaign_runs_each_pass_at_its_time(tmp_path: Path) -> None:
    """Every minute for 10 minutes, on a clock the test drives (the runs are real)."""
    now = [1_800_000_000.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds
        await asyncio.sleep(0)

    plan = parse_plan(
        'name = "by the minute"\npairs = ["local"]\nrepeats = 1\n'
        'schedule = { every = "1min", for = "10min" }\n[[tests]]\n' + PING.format(count=1)
    )
    with Library.open(tmp_path / "library.sqlite") as lib:

        def clock() -> float:
            return now[0]

        outcome = asyncio.run(start_campaign(lib, plan, clock=clock, sleep=sleep))
        assert outcome.status.value == "completed" and len(outcome.run_ids) == 10
        shown = show_campaign(lib, outcome.campaign_id)
        created = shown.campaign.created_at
        starts = sorted(a.at for a in shown.attempts)
        assert len(starts) == 10 and shown.passes == 10 and len(shown.passes_ended) == 10
        for k, at in enumerate(starts):
            assert created + 60 * k <= at < created + 60 * k + 60  # in its own minute
        assert shown.rows[0].verdict.n == 10
    out = tmp_path / "report"
    report = cli_json(
        tmp_path / "library.sqlite", "campaign", "report", "1", "--out", str(out), "--json"
    )
    assert report["time_of_day"] is True and report["time_of_day_by"] == "minute"
    charts = sorted(out.glob("time-of-day-*.png"))
    assert len(charts) == 1 and charts[0].stat().st_size > 10_000
    assert str(charts[0]) in report["written"]


def test_a_busy_host_is_waited_for_not_counted_as_a_failure(tmp_path: Path) -> None:
    """Another run holds this computer when the campaign starts: its first run is refused as
    busy, waited for (no retry spent, the pair not skipped), and runs once the host is free."""
    from pairbench.domain import LOCAL_HOST
    from pairbench.engine.host_lock import HostLocks

    plan = parse_plan(
        'name = "waits"\npairs = ["local"]\nrepeats = 1\n'
        'retry = { retries = 0, delay = "0.1s", skip_pair_after = 1 }\n[[tests]]\n'
        + PING.format(count=1)
    )
    held = HostLocks([LOCAL_HOST], {"program": "the test", "pid": os.getpid()})
    held.acquire()

    async def campaign(lib: Library) -> Any:
        async def free_later() -> None:
            await asyncio.sleep(1.0)
            held.release()

        releaser = asyncio.ensure_future(free_later())
        try:
            return await start_campaign(lib, plan)
        finally:
            await releaser

    with Library.open(tmp_path / "library.sqlite") as lib:
        try:
            outcome = asyncio.run(campaign(lib))
        finally:
            held.release()
        shown = show_campaign(lib, outcome.campaign_id)
    assert outcome.status.value == "completed"
    [row] = shown.rows
    assert row.status == "done" and row.verdict.n == 1 and row.failures == 0
    statuses = [a.status for a in shown.attempts]
    assert statuses[0] == "busy" and statuses[-1] == "completed"
