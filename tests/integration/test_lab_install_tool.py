"""``pairbench hosts install-tool`` on a real SSH host, logged in as a user without root: the
pinned archive is uploaded, built and installed in that user's ``~/.local/bin``; runs then use
it; a cancelled build leaves nothing behind."""

from __future__ import annotations

import dataclasses
import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from labkit import PAIRBENCH, LabHandle
from pairbench.lab import vendor
from pairbench.lab.vendor_archive import ArchiveError, obtain
from testkit import require

pytestmark = pytest.mark.lab

CANCEL_WAIT_S = 120.0
GONE_WITHIN_S = 5.0


@dataclass
class LabUser:
    """A login of the lab's client host as an ordinary user, with its own home."""

    name: str
    home: Path
    host: str  # the stored host that logs in as this user
    pair: str  # that host → lab-server

    def processes(self) -> list[str]:
        """The user's processes (``pgrep -a -u``)."""
        out = subprocess.run(
            ["pgrep", "-a", "-u", self.name], capture_output=True, text=True, check=False
        )
        return out.stdout.splitlines()

    def workdirs(self) -> list[Path]:
        """Pairbench work directories the user owns in the host's temporary directory."""
        uid = pwd.getpwnam(self.name).pw_uid
        return [p for p in Path("/tmp").glob("pairbench.*") if p.stat().st_uid == uid]


def _archives_at_hand() -> None:
    """Both archives in the mirror or the download cache (a test downloads nothing: the URL
    is replaced by a closed loopback port)."""
    for tool in (vendor.IPERF3, vendor.UPERF):
        try:
            obtain(dataclasses.replace(tool, url="http://127.0.0.1:9/offline"))
        except ArchiveError as exc:
            require(False, f"the pinned archive cannot be had: {exc}")


@pytest.fixture
def lab_user(lab: LabHandle) -> Iterator[LabUser]:
    """A new local user (no password, the lab key authorized), a host and a pair for it; the
    user, its home and its host are removed at the end."""
    require(shutil.which("useradd") is not None, "useradd is not installed")
    _archives_at_hand()
    name = f"pbinst{os.getpid() % 100000}"
    base = Path(tempfile.mkdtemp(prefix="pairbench-home-", dir="/tmp"))
    base.chmod(0o755)
    home = base / name
    subprocess.run(["userdel", "-f", name], capture_output=True, check=False)
    subprocess.run(
        ["useradd", "-M", "-d", str(home), "-s", "/bin/bash", "-p", "*", name], check=True
    )
    try:
        ssh_dir = home / ".ssh"
        ssh_dir.mkdir(parents=True)
        client = lab.info["client"]
        server = lab.info["server"]
        key = Path(client["key_path"])
        (ssh_dir / "authorized_keys").write_text(Path(f"{key}.pub").read_text())
        subprocess.run(["chown", "-R", f"{name}:{name}", str(home)], check=True)
        home.chmod(0o755)
        host, pair = f"lab-{name}", f"lab-{name}-pair"
        added = lab.cli(
            "hosts", "add", host, "--address", client["address"], "--user", name,
            "--key", str(key),
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        paired = lab.cli(
            "pairs", "add", pair, "--client", host, "--server", server["name"],
            "--data-address", server["data_address"],
        )  # fmt: skip
        assert paired.returncode == 0, paired.stderr
        yield LabUser(name, home, host, pair)
        lab.cli("pairs", "remove", pair)
        lab.cli("hosts", "remove", host)
    finally:
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True, check=False)
        time.sleep(0.2)
        subprocess.run(["userdel", "-f", name], capture_output=True, check=False)
        shutil.rmtree(base, ignore_errors=True)


def _files_outside_home() -> dict[str, float]:
    """The system-wide places an install must never touch: what is there, and when written."""
    seen = {}
    for folder in ("/usr/local/bin", "/usr/bin"):
        for program in ("iperf3", "uperf"):
            path = Path(folder) / program
            if path.exists():
                seen[str(path)] = path.stat().st_mtime
    return seen


def test_iperf3_321_is_built_in_the_users_home_and_runs_use_it(
    lab: LabHandle, lab_user: LabUser
) -> None:
    lab.up()  # the system's iperf3 (3.12) on both hosts
    before = _files_outside_home()
    installed = lab.cli(
        "hosts", "install-tool", lab_user.host, "iperf3", "--accept-new-host-key", timeout=600
    )
    assert installed.returncode == 0, installed.stderr
    program = lab_user.home / ".local" / "bin" / "iperf3"
    assert f"installed {program} on {lab_user.host} (iperf 3.21" in installed.stdout
    for step in ("uploading iperf-3.21.tar.gz", "configuring", "compiling", "installing"):
        assert f"iperf3 on {lab_user.host}: {step}" in installed.stderr
    assert program.stat().st_uid == pwd.getpwnam(lab_user.name).pw_uid
    assert _files_outside_home() == before
    assert lab_user.workdirs() == []

    again = lab.cli("hosts", "install-tool", lab_user.host, "iperf3", "--json", timeout=120)
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout)
    assert result["installed"] is False
    assert result["path"] == str(program)
    assert result["version"].startswith("iperf 3.21")

    run = lab.cli("run", "--pair", lab_user.pair, "--tool", "iperf3", "--set", "duration=2")
    assert run.returncode == 0, run.stderr
    runs = json.loads(lab.cli("runs", "list", "--json").stdout)
    mine = [r for r in runs if r["pair"] == lab_user.pair]
    assert len(mine) == 1 and mine[0]["status"] == "completed"
    assert mine[0]["tool_version"].startswith("client iperf 3.21")
    assert "server iperf 3.12" in mine[0]["tool_version"]


def test_a_cancelled_build_leaves_nothing_and_a_finished_one_passes_the_preflight(
    lab: LabHandle, lab_user: LabUser
) -> None:
    argv = [*PAIRBENCH, "--library", str(lab.library), "hosts", "install-tool", lab_user.host,
            "uperf", "--accept-new-host-key"]  # fmt: skip
    # Started as a script's background job is (SIGINT ignored, as POSIX shells do): a Ctrl-C
    # sent on purpose still cancels the build.
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        assert process.stderr is not None
        deadline = time.monotonic() + CANCEL_WAIT_S
        said: list[str] = []
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line:
                break
            said.append(line)
            # Cancelled as the configure step starts: autoreconf and configure take ~5 s here,
            # the compile ~1 s, which a loaded machine could let pass before this test reads
            # the line (the build then finished: exit 0).
            if line.rstrip().endswith(": configuring"):
                break
        assert said and said[-1].rstrip().endswith(": configuring"), "".join(said)
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert status == 130, process.stderr.read()
    deadline = time.monotonic() + GONE_WITHIN_S
    while time.monotonic() < deadline and (lab_user.processes() or lab_user.workdirs()):
        time.sleep(0.1)
    assert lab_user.processes() == []
    assert lab_user.workdirs() == []
    assert not (lab_user.home / ".local" / "bin" / "uperf").exists()

    check = lab.cli("pairs", "check", lab_user.pair, "--tool", "uperf", "--json")
    missing = json.loads(check.stdout)["client"]["missing"]
    assert "uperf" in missing, check.stdout
    assert f"pairbench hosts install-tool {lab_user.host} uperf" in missing["uperf"]

    installed = lab.cli("hosts", "install-tool", lab_user.host, "uperf", timeout=600)
    assert installed.returncode == 0, installed.stderr
    check = lab.cli("pairs", "check", lab_user.pair, "--tool", "uperf", "--json")
    client = json.loads(check.stdout)["client"]
    assert "uperf" not in client["missing"]
    assert client["versions"]["uperf"].startswith("Uperf Version 1.0.8")
    assert lab_user.workdirs() == []
