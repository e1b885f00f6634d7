"""Hosts held by a run: refused in the same process and across processes, freed by death."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pairbench.domain import LOCAL_HOST, AuthMethod, Host
from pairbench.domain.failures import HostBusyError, describe_holder
from pairbench.engine.host_lock import HostLocks, holder_info, host_key, program_name
from testkit import require

CLIENT = Host(name="c", address="192.0.2.10", auth=AuthMethod.AGENT, user="bench")
SERVER = Host(name="s", address="192.0.2.11", auth=AuthMethod.AGENT)
HOLDER = {
    "pair": "p",
    "tool": "iperf3",
    "pid": 4242,
    "program": "`pairbench run`",
    "library": "/home/me/other.sqlite",
}


def test_host_keys_name_the_endpoint() -> None:
    assert host_key(LOCAL_HOST) == "this-computer"
    assert host_key(CLIENT) == "bench@192.0.2.10:22"
    assert host_key(SERVER) == "root@192.0.2.11:22"


def test_second_run_on_a_host_is_refused_with_its_holder(tmp_path: Path) -> None:
    with HostLocks([CLIENT, SERVER], HOLDER, tmp_path) as first:
        first.note(run_id=17)
        with pytest.raises(HostBusyError) as info:
            HostLocks([SERVER], {"pair": "q"}, tmp_path).acquire()
        message = str(info.value)
        assert "host s is busy" in message
        assert "iperf3 on pair p" in message and "pid 4242" in message
        assert "`pairbench run`" in message and "library /home/me/other.sqlite" in message
        assert "its run 17 there" in message  # a run number only with its library
        HostLocks(
            [Host(name="o", address="192.0.2.99", auth=AuthMethod.AGENT)], {}, tmp_path
        ).acquire()  # another host is free
    with HostLocks([SERVER], {}, tmp_path):  # released on exit
        pass


def test_a_refused_acquire_holds_nothing(tmp_path: Path) -> None:
    with HostLocks([SERVER], HOLDER, tmp_path):
        locks = HostLocks([CLIENT, SERVER], {}, tmp_path)
        with pytest.raises(HostBusyError):
            locks.acquire()
        with HostLocks([CLIENT], {}, tmp_path):  # the client's lock was given back
            pass


def test_a_killed_holder_frees_the_host(tmp_path: Path) -> None:
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from pairbench.domain import AuthMethod, Host\n"
        "from pairbench.engine.host_lock import HostLocks\n"
        "h = Host(name='s', address='192.0.2.11', auth=AuthMethod.AGENT)\n"
        "HostLocks([h], {'pid': 1}, Path(sys.argv[1])).acquire()\n"
        "print('locked', flush=True)\n"
        "time.sleep(60)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "locked"
        with pytest.raises(HostBusyError):
            HostLocks([SERVER], {}, tmp_path).acquire()
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        deadline = time.monotonic() + 5
        while True:
            try:
                HostLocks([SERVER], {}, tmp_path).acquire()
                break
            except HostBusyError:
                assert time.monotonic() < deadline, "the dead holder's lock was not released"
                time.sleep(0.05)
    finally:
        child.kill()
        child.wait(10)
        if child.stdout:
            child.stdout.close()


def test_lock_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    require(os.geteuid() == 0, "giving a folder to another user needs root")
    folder = tmp_path / "locks"
    folder.mkdir()
    os.chown(folder, 65534, 65534)
    with pytest.raises(PermissionError, match="another user"):
        HostLocks([SERVER], {}, folder).acquire()


def test_a_holder_without_its_library_names_no_run_number() -> None:
    """An older holder (no library recorded): its run number would read as one of this
    library's, so it is left out."""
    text = describe_holder({"pair": "p", "tool": "ping", "pid": 7, "run_id": 6})
    assert "run 6" not in text and "pid 7" in text


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        ([], "the Pairbench window"),
        (["--library", "/tmp/x.sqlite"], "the Pairbench window"),
        (["--library=/tmp/x.sqlite"], "the Pairbench window"),
        (["--library", "/tmp/x.sqlite", "run", "--pair", "local"], "`pairbench run`"),
        (["run", "--pair", "local", "--tool", "ping"], "`pairbench run`"),
        (["--library", "lib.sqlite", "campaign", "run", "plan.toml"], "`pairbench campaign run`"),
        (["storage", "resume", "3"], "`pairbench storage resume`"),
        (["probe", "--pair", "lab"], "`pairbench probe`"),
        (["import", "iperf3", "out.txt"], "`pairbench import iperf3`"),
    ],
)
def test_the_program_is_named_by_its_command_never_an_option_value(
    argv: list[str], named: str
) -> None:
    assert program_name(argv) == named


def test_the_holder_says_program_pid_library_and_start(tmp_path: Path) -> None:
    library = tmp_path / "lib.sqlite"
    info = holder_info("local", "ping", library)
    assert info["library"] == str(library.resolve())
    assert info["pid"] == os.getpid() and info["pair"] == "local" and info["tool"] == "ping"
    assert abs(float(info["started_at"]) - time.time()) < 60  # type: ignore[arg-type]
