"""The storage suite on the lab's server host over real SSH, with real fio on a real block
device (a loop device over a file in RAM that each test makes): a throughput suite to
steady state, a suite killed mid-job and resumed, and targets refused before anything is
written."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from labkit import lab_pids
from local_run_helpers import start_cli, wait_for_lines
from testkit import require

pytestmark = pytest.mark.lab

SUITE = [
    "--host",
    "lab-server",
    "--test",
    "throughput",
    "--round-seconds",
    "1",
    "--max-rounds",
    "25",  # a noisy machine may need more rounds to see 5 in a row within the limits
    "--threads",
    "1",
    "--iodepth",
    "4",
    "--size",
    "48MiB",
    "--precondition-passes",
    "1",
    # The drive here is RAM behind a loop device on a shared 2-core machine: its throughput
    # dips by half whenever another process takes a core, so the window's limits are wide.
    # The rule's arithmetic is tested exactly on worked examples (tests/unit).
    "--data-excursion",
    "60",
    "--slope-excursion",
    "40",
]


def _loop_device(size_mib: int, sector: int = 512) -> Iterator[str]:
    require(shutil.which("losetup") is not None, "losetup is not installed")
    require(os.path.exists("/dev/loop-control"), "this machine has no loop devices")
    folder = Path("/dev/shm") if os.access("/dev/shm", os.W_OK) else Path("/var/tmp")
    backing = folder / f"pairbench-test-{uuid.uuid4().hex[:8]}.img"
    with backing.open("wb") as handle:
        handle.truncate(size_mib * 2**20)
    made = subprocess.run(
        ["losetup", "--sector-size", str(sector), "--find", "--show", str(backing)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    try:
        assert made.returncode == 0, made.stderr
        yield made.stdout.strip()
    finally:
        if made.returncode == 0:
            subprocess.run(["losetup", "-d", made.stdout.strip()], timeout=30, check=False)
        backing.unlink()


@pytest.fixture
def loop_device() -> Iterator[str]:
    yield from _loop_device(64)


@pytest.fixture(scope="module")
def steady_suite(lab: Any) -> Iterator[tuple[dict[str, Any], dict[str, Any], str]]:
    """One throughput suite run to the end on a loop device: (run --json, show --json, dev)."""
    for device in _loop_device(64):
        result = lab.cli(
            "storage",
            "run",
            *SUITE,
            "--target",
            device,
            "--confirm",
            device,
            "--json",
            timeout=600,
        )
        assert result.returncode == 0, result.stderr
        final = json.loads(result.stdout.strip().splitlines()[-1])
        shown = lab.cli("storage", "show", str(final["id"]), "--json")
        assert shown.returncode == 0, shown.stderr
        yield final, json.loads(shown.stdout), device


def _structure(shown: dict[str, Any]) -> tuple[int, dict[str, int], dict[str, list[Any]]]:
    """Jobs, complete rounds per stage (every job of each round present and completed), and
    the tables' cells (block size and mix) — what a resumed suite must share with an
    uninterrupted one."""
    assert all(job["status"] == "completed" for job in shown["jobs"])
    rounds: dict[str, int] = {}
    for stage in shown["stages"]:
        name = stage["stage"]
        per_round = [j for j in shown["jobs"] if j["stage"] == name]
        count = stage["rounds"]
        assert sorted((j["round"], j["mix"]) for j in per_round) == sorted(
            (r, mix) for r in range(1, count + 1) for mix in ("100/0", "0/100")
        )
        rounds[name] = count
    cells = {
        name: sorted((c["block_size"], c["read_pct"]) for c in cells)
        for name, cells in shown["tables"].items()
    }
    return len(shown["jobs"]), rounds, cells


# Steady state on a RAM-backed loop device: its throughput dips whenever another process takes a
# core (a resumed suite once found no 5 steady rounds in 25 beside two busy workers): alone.
@pytest.mark.serial
def test_a_throughput_suite_reaches_steady_state_on_a_block_device(
    lab: Any, steady_suite: tuple[dict[str, Any], dict[str, Any], str]
) -> None:
    final, shown, device = steady_suite
    assert final["status"] == "completed" and final["test"] == "throughput"
    assert final["steady_state"]["reached"] is True, final["stages"]
    assert [s["stage"] for s in final["stages"]] == ["throughput 1m", "throughput 128k"]
    for stage in final["stages"]:
        window = stage["window"]
        assert stage["round"] == window["end_round"] >= 5
        assert window["data_excursion"] <= window["data_limit"]
        assert window["slope_excursion"] <= window["slope_limit"]
    jobs, rounds, cells = _structure(shown)
    assert jobs == 1 + 2 * sum(rounds.values())  # one preconditioning pass
    assert cells == {
        "throughput 1m": [("1m", 0), ("1m", 100)],
        "throughput 128k": [("128k", 0), ("128k", 100)],
    }
    assert set(shown["columns"]) == {
        "throughput_1024k_100_0",
        "throughput_1024k_0_100",
        "throughput_128k_100_0",
        "throughput_128k_0_100",
    }
    assert all(v > 0 for v in shown["columns"].values())
    facts = shown["facts"]
    assert facts["kind"] == "device" and facts["size_bytes"] == str(64 * 2**20)
    assert facts["fio"].startswith("fio-") and "purge" in facts
    # Every job is a run of its own on the lab's server host, tagged with its place.
    runs = json.loads(lab.cli("runs", "list", "--tag", f"suite={final['id']}", "--json").stdout)
    assert len(runs) == jobs
    assert {r["pair"] for r in runs} == {"lab-server"} and {r["tool"] for r in runs} == {"fio"}
    assert {r["status"] for r in runs} == {"completed"}
    write = [r for r in runs if r["tags"].get("suite_job") == "1m 0/100"]
    assert {r["params"]["device"] for r in write} == {device}
    assert all(r["params"]["rw"] == "write" for r in write)


@pytest.mark.serial  # as above
def test_a_killed_suite_resumes_from_its_next_job_to_the_same_structure(
    lab: Any, loop_device: str, steady_suite: tuple[dict[str, Any], dict[str, Any], str]
) -> None:
    before = {s["id"] for s in json.loads(lab.cli("storage", "list", "--json").stdout)}
    proc = start_cli(
        lab.library, "storage", "run", *SUITE, "--target", loop_device, "--confirm", loop_device
    )
    try:
        # Past the 1m stage's second round: the sixth job starts ("[6/N] …", after 5 done),
        # and then its fio runs on the server host.
        started = wait_for_lines(proc, "[6/", 1, timeout_s=120)
        assert started, "the suite did not get going"
        fio = _wait_for_fio(lab, timeout_s=30)
        assert fio, "the sixth job's fio did not start"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    listed = {s["id"]: s for s in json.loads(lab.cli("storage", "list", "--json").stdout)}
    [suite_id] = [suite for suite in listed if suite not in before]
    assert listed[suite_id]["status"] == "interrupted"
    assert "stopped unexpectedly" in listed[suite_id]["error"]
    resumed = lab.cli("storage", "resume", str(suite_id), "--json", timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    final = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert final["status"] == "completed" and final["steady_state"]["reached"] is True
    shown = json.loads(lab.cli("storage", "show", str(suite_id), "--json").stdout)
    jobs, rounds, cells = _structure(shown)
    reference_jobs, reference_rounds, reference_cells = _structure(steady_suite[1])
    assert cells == reference_cells
    assert jobs == 1 + 2 * sum(rounds.values())
    assert set(rounds) == set(reference_rounds) and reference_jobs == 1 + 2 * sum(
        reference_rounds.values()
    )
    # The job that was running when the suite died is kept as an interrupted run, and ran
    # again; every job of the suite points at a completed run.
    runs = json.loads(lab.cli("runs", "list", "--tag", f"suite={suite_id}", "--json").stdout)
    statuses = sorted(r["status"] for r in runs)
    assert statuses.count("interrupted") == 1 and statuses.count("completed") == jobs
    job_runs = {j["run_id"] for j in shown["jobs"]}
    assert {r["id"] for r in runs if r["status"] == "completed"} == job_runs


def _wait_for_fio(lab: Any, timeout_s: float) -> list[int]:
    """The fio processes on the lab's hosts, once there is one (bounded)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = [pid for pid in lab_pids() if _comm(pid) == "fio"]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def _comm(pid: int) -> str:
    """A live process's name ("" once it is gone or a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return "" if state == "Z" else Path(f"/proc/{pid}/comm").read_text().strip()
    except (OSError, IndexError):
        return ""


def _blkid(device: str) -> str:
    probe = subprocess.run(
        ["blkid", "-o", "value", "-s", "TYPE", device], capture_output=True, text=True, timeout=30
    )
    return probe.stdout.strip()


def test_targets_that_must_not_be_written_are_refused_and_untouched(
    lab: Any, loop_device: str, tmp_path: Path
) -> None:
    require(shutil.which("mkfs.ext4") is not None, "mkfs.ext4 is not installed (e2fsprogs)")
    before = lab.cli("storage", "list", "--json").stdout
    made = subprocess.run(["mkfs.ext4", "-q", "-F", loop_device], capture_output=True, timeout=60)
    assert made.returncode == 0, made.stderr
    base = ["storage", "run", *SUITE]

    def refused(*args: str) -> str:
        result = lab.cli(*base, *args, timeout=120)
        assert result.returncode in (1, 2), (result.returncode, result.stdout, result.stderr)
        return result.stderr

    assert "DESTROYS its data" in refused("--target", loop_device)
    said = refused("--target", loop_device, "--confirm", loop_device)
    assert "holds a ext4 file system" in said and "--force" in said
    mount_point = tmp_path / "mnt"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", loop_device, str(mount_point)], capture_output=True)
    assert mounted.returncode == 0, mounted.stderr
    try:
        # Mounted here, outside the lab host's mount namespace: lsblk there sees no mount,
        # the suite still finds it (mountinfo of every namespace), --force or not.
        said = refused("--target", loop_device, "--confirm", loop_device, "--force")
        assert f"in use (mounted on {mount_point})" in said
    finally:
        subprocess.run(["umount", str(mount_point)], timeout=60, check=False)
    assert _blkid(loop_device) == "ext4"  # nothing was written to it
    gone = "/dev/pairbench-no-such-device"
    assert "is not a block device" in refused("--target", gone, "--confirm", gone)
    target = tmp_path / "target"
    target.mkdir()
    said = refused("--target", str(target), "--size", "900TiB")
    assert "GiB free" in said and "smaller --size" in said
    assert list(target.iterdir()) == []
    assert "cannot be used" in refused("--target", str(tmp_path / "nope"), "--size", "1MiB")
    assert lab.cli("storage", "list", "--json").stdout == before  # no suite was stored


def test_a_device_that_refuses_the_tests_smallest_block_size_is_refused(lab: Any) -> None:
    """4096-byte logical sectors: the iops test's 512-byte direct I/O cannot run on it."""
    before = lab.cli("storage", "list", "--json").stdout
    for device in _loop_device(16, sector=4096):
        result = lab.cli(
            "storage", "run", *SUITE[:2], "--test", "iops", "--target", device,
            "--confirm", device, timeout=120,
        )  # fmt: skip
        assert result.returncode == 1, (result.stdout, result.stderr)
        assert "4096-byte logical sectors" in result.stderr
        assert "512-byte direct I/O" in result.stderr
    assert lab.cli("storage", "list", "--json").stdout == before
