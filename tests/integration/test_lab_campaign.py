"""A campaign over three lab pairs with known shaping: iperf3 and ping, interleaved repeats
with a CV target, the program SIGKILLed in the middle and resumed. Nothing is lost, no cell
gets a run too many, each pair's rate and delay come back within the lab's tolerances, and the
report ranks the pairs as their shaping does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from labkit import PairsLab, lab_pairs
from local_run_helpers import PAIRBENCH
from pairbench.lab.shaping import parse_rate, parse_time
from pairbench.library import Library
from pairbench.library.runs import list_runs

pytestmark = pytest.mark.lab

# Neither ranking follows the pairs' order: lab2 is fastest and nearest, lab1 the farthest.
RATES = ["100mbit", "200mbit", "50mbit"]
DELAYS = ["10ms", "1ms", "5ms"]
# The single lab's tolerances (test_lab.py): rate within 5 %, round trip within 1 ms.
RATE_REL = 0.05
RTT_ABS_MS = 1.0
REPEATS = (2, 3)
PLAN = f"""
name = "three shaped pairs"
pairs = {{ lab = "multi" }}
repeats = {{ min = {REPEATS[0]}, max = {REPEATS[1]}, cv = 0.05 }}
order = "interleaved"
seed = 2026

[[tests]]
name = "tcp"
tool = "iperf3"
params = {{ duration = 2, omit = 1 }}

[[tests]]
name = "rtt"
tool = "ping"
params = {{ count = 5, interval = 0.2 }}
"""


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PairsLab]:
    library = tmp_path_factory.mktemp("campaign") / "library.sqlite"
    with lab_pairs(len(RATES), library, RATES, DELAYS) as lab:
        yield lab


def _cli(lab: PairsLab, *args: str, timeout: float = 300) -> Any:
    result = subprocess.run(
        [*PAIRBENCH, "--library", str(lab.library), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, (args, result.stderr[-2000:])
    return json.loads(result.stdout.strip().splitlines()[-1])


def _runs(library: Path, campaign_id: int) -> list[Any]:
    with Library.open(library) as lib:
        return [r for r in list_runs(lib) if r.tags.get("campaign") == str(campaign_id)]


def _kill_when(lab: PairsLab, plan: Path, ready: Callable[[Library], bool], what: str) -> None:
    """Start the campaign in a child process; SIGKILL it once ``ready(library)`` holds
    (bounded: 180 s, else ``what`` did not happen)."""
    child = subprocess.Popen(
        [*PAIRBENCH, "--library", str(lab.library), "campaign", "run", str(plan)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            with Library.open(lab.library) as lib:
                if ready(lib):
                    os.kill(child.pid, signal.SIGKILL)
                    break
            assert child.poll() is None, child.communicate()[1]
            time.sleep(0.1)
        else:
            raise AssertionError(f"{what} in 180 s")
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate(timeout=30)


def _three_done_and_one_running(lib: Library) -> bool:
    runs = [r for r in list_runs(lib) if "campaign" in r.tags]
    done = sum(r.status.value == "completed" for r in runs)
    return done >= 3 and any(r.status.value == "running" for r in runs)


def test_a_killed_campaign_resumes_and_recovers_the_shaping(
    pairs: PairsLab, tmp_path: Path
) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN, encoding="utf-8")
    checked = _cli(pairs, "campaign", "check", str(plan), "--json")
    assert checked["cells"] == 3 * 2 and checked["runs_min"] == 3 * 2 * REPEATS[0]
    _kill_when(pairs, plan, _three_done_and_one_running, "no fourth run")
    [listed] = _cli(pairs, "campaign", "list", "--json")
    assert listed["status"] == "interrupted"
    campaign_id = listed["id"]
    before = {r.id: r.status.value for r in _runs(pairs.library, campaign_id)}
    ended = _cli(pairs, "campaign", "resume", str(campaign_id), "--json")
    assert ended["status"] == "completed"

    shown = _cli(pairs, "campaign", "show", str(campaign_id), "--json")
    runs = {r.id: r for r in _runs(pairs.library, campaign_id)}
    # Nothing lost: every run the first process finished is still there and counted.
    for run_id, status in before.items():
        if status == "completed":
            assert runs[run_id].status.value == "completed"
    killed = [r for r in runs.values() if r.status.value == "interrupted"]
    assert len(killed) == 1 and killed[0].id in before  # the one in flight, kept as it was
    counted: list[int] = [i for cell in shown["cells"] for i in cell["runs"]]
    completed = sorted(r.id for r in runs.values() if r.status.value == "completed")
    assert sorted(counted) == completed  # each completed run counted once, in one cell
    for cell in shown["cells"]:
        assert REPEATS[0] <= cell["n"] <= REPEATS[1], cell  # never past the maximum
        if cell["n"] > REPEATS[0]:
            assert "CV" in cell["reason"] or cell["reason"] == "maximum"

    by_pair = {p["pair"]: p for p in pairs.pairs}
    means: dict[str, dict[str, float]] = {}
    for cell in shown["cells"]:
        means.setdefault(cell["test"], {})[cell["pair"]] = cell["mean"]
        shaping = by_pair[cell["pair"]]["shaping"]
        if cell["test"] == "tcp":
            rate = parse_rate(shaping["rate"])
            assert abs(cell["mean"] - rate) <= RATE_REL * rate, (cell["pair"], cell["mean"])
        else:
            rtt_ms = 2 * parse_time(shaping["delay"]) / 1000
            assert abs(cell["mean"] - rtt_ms) <= RTT_ABS_MS, (cell["pair"], cell["mean"])
    expected_tcp = sorted(by_pair, key=lambda p: -parse_rate(by_pair[p]["shaping"]["rate"]))
    expected_rtt = sorted(by_pair, key=lambda p: parse_time(by_pair[p]["shaping"]["delay"]))
    assert sorted(means["tcp"], key=lambda p: -means["tcp"][p]) == expected_tcp
    assert sorted(means["rtt"], key=lambda p: means["rtt"][p]) == expected_rtt
    _check_report(pairs, campaign_id, tmp_path / "report", expected_tcp, expected_rtt)


def _check_report(
    lab: PairsLab, campaign_id: int, out: Path, tcp: list[str], rtt: list[str]
) -> None:
    """The report's ranks per column follow the shaping (best first)."""
    written = _cli(lab, "campaign", "report", str(campaign_id), "--out", str(out), "--json")
    assert (out / "index.html").is_file() and written["written"]
    ranked: dict[str, list[tuple[int, str]]] = {}
    for cell in written["cells"]:
        ranked.setdefault(cell["test"], []).append((cell["rank"], cell["group"]))
    assert [g for _, g in sorted(ranked["tcp"])] == tcp
    assert [g for _, g in sorted(ranked["rtt"])] == rtt
    assert {c["n"] for c in written["cells"]} <= set(range(REPEATS[0], REPEATS[1] + 1))


def test_the_same_study_runs_from_the_window_on_the_lab_pairs(qtbot: Any, pairs: PairsLab) -> None:
    """The Campaigns tab on the lab pairs: the tag selector picks the three pairs, the grid
    fills with each pair's figures, and they rank as the shaping does."""
    from campaign_kit import CAMPAIGN_MS, campaign_tab, ended, start

    from pairbench.services.campaigns import show_campaign

    with campaign_tab(qtbot, pairs.library) as panel:
        form = panel.editor.form
        form.name_edit.setText("window study")
        form.pairs.by_tags.setChecked(True)
        form.pairs.tags_edit.setText("lab=multi")
        box = form.tests.boxes[0]
        box.tool_combo.setCurrentText("ping")
        box.params_edit.setPlainText("count = 5\ninterval = 0.2")
        form.min_spin.setValue(2)
        form.max_spin.setValue(2)
        follower = start(qtbot, panel)
        qtbot.waitUntil(lambda: ended(follower), timeout=CAMPAIGN_MS)
        assert follower.error is None and follower.outcome is not None
        assert follower.outcome.status.value == "completed"
        with Library.open(pairs.library) as lib:
            shown = show_campaign(lib, follower.outcome.campaign_id)
        qtbot.waitUntil(lambda: panel.live.model.pairs == sorted(pairs.names), timeout=20_000)
    by_pair = {p["pair"]: p for p in pairs.pairs}
    means = {row.cell.pair: row.verdict.stats.mean for row in shown.rows if row.verdict.stats}
    assert sorted(means) == sorted(pairs.names)
    for name, mean in means.items():
        rtt_ms = 2 * parse_time(by_pair[name]["shaping"]["delay"]) / 1000
        assert abs(mean - rtt_ms) <= RTT_ABS_MS, (name, mean)
    expected = sorted(by_pair, key=lambda p: parse_time(by_pair[p]["shaping"]["delay"]))
    assert sorted(means, key=means.__getitem__) == expected


STORAGE_PLAN = """
name = "storage on two hosts"
pairs = ["lab1", "lab2"]
repeats = 1
parallel = 2

[[tests]]
name = "disk"
tool = "fio"
probe = "storage"
[tests.params]
test = "throughput"
target = "{target}"
size = "8MiB"
threads = 1
iodepth = 4
round_seconds = 1
max_rounds = 5
precondition_passes = 0
data_excursion = 60
slope_excursion = 40
"""


def _suites_with_jobs(jobs: int) -> Callable[[Library], bool]:
    """Both of the campaign's suites have ``jobs`` finished jobs each."""
    from pairbench.library.suites import list_suites, suite_jobs

    def ready(lib: Library) -> bool:
        done = [len(suite_jobs(lib, s.id)) for s in list_suites(lib) if "campaign" in s.tags]
        return len(done) == 2 and min(done) >= jobs

    return ready


def test_a_storage_suite_per_host_killed_and_resumed_goes_on_with_the_same_suites(
    pairs: PairsLab, tmp_path: Path
) -> None:
    """Two storage cells (a throughput suite on each pair's server host, both at once), the
    program SIGKILLed mid-suite: resume goes on with the same two suites (no third), each
    cell's value is its suite's headline figure, and the report lists them."""
    target = tmp_path / "disk"
    target.mkdir()
    plan = tmp_path / "storage.toml"
    plan.write_text(STORAGE_PLAN.format(target=target), encoding="utf-8")
    _kill_when(pairs, plan, _suites_with_jobs(3), "the suites did not reach 3 jobs each")
    [listed] = [
        c for c in _cli(pairs, "campaign", "list", "--json") if c["name"] == "storage on two hosts"
    ]
    assert listed["status"] == "interrupted"
    campaign_id = listed["id"]
    suites_before = json.loads(pairs.cli("storage", "list", "--json").stdout)
    ours = {s["id"]: s for s in suites_before if s["label"].startswith(f"campaign {campaign_id}:")}
    assert len(ours) == 2 and {s["status"] for s in ours.values()} == {"interrupted"}
    ended = _cli(pairs, "campaign", "resume", str(campaign_id), "--json", timeout=600)
    assert ended["status"] == "completed" and ended["runs"] == []
    assert sorted(ended["suites"]) == sorted(ours)  # the same suites went on; no new one

    shown = _cli(pairs, "campaign", "show", str(campaign_id), "--json")
    servers = {p["pair"]: p["server"]["name"] for p in pairs.pairs}
    for cell in shown["cells"]:
        [suite_id] = cell["suites"]
        suite = _cli(pairs, "storage", "show", str(suite_id), "--json")
        assert suite["status"] == "completed"
        assert suite["host"] == servers[cell["pair"]]  # the suite ran on the pair's server
        # The cell's value is the suite's headline column (CloudHarmony's MiB/s, "MB/s",
        # there; B/s here).
        headline = suite["columns"]["throughput_1024k_100_0"] * 2**20
        assert cell["metric"] == "throughput_1024k_100_0" and cell["n"] == 1
        assert abs(cell["mean"] - headline) <= 1e-6 * headline
        # Jobs finished before the kill were kept, not run again: one completed run per job,
        # and at most the job in flight interrupted.
        runs = json.loads(pairs.cli("runs", "list", "--tag", f"suite={suite_id}", "--json").stdout)
        statuses = [r["status"] for r in runs]
        assert statuses.count("completed") == len(suite["jobs"])
        assert statuses.count("interrupted") <= 1
    assert list(target.iterdir()) == []  # each suite's private directory removed at its end
    out = tmp_path / "report"
    written = _cli(pairs, "campaign", "report", str(campaign_id), "--out", str(out), "--json")
    assert {c["group"] for c in written["cells"]} == {"lab1", "lab2"}
    assert (out / "campaign.md").is_file()
