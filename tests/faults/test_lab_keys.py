"""A lab host whose host key changed is refused everywhere until re-pinned explicitly.

The key is changed for real, as the lab manager makes it: the host's sshd is stopped, its
key file regenerated with ssh-keygen and the sshd started again in its namespace. Each test
leaves the lab healthy, with the keys it then has pinned (``LabHandle.refresh``).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from pairbench.domain.host_text import key_fingerprint
from pairbench.lab import sshd
from pairbench.lab.state import LabPaths, exclusive
from pairbench.lab.topology import Node, single
from pairbench.library import Library
from pairbench.library.hosts import pinned_host_keys
from testkit import require_program

if TYPE_CHECKING:
    from labkit import LabHandle

pytestmark = pytest.mark.lab

REPIN = "pairbench lab up --repin-keys"


def _regenerate_host_key(node: Node) -> str:
    """Give ``node`` a new host key the way the lab manager makes one; the new key line."""
    paths = LabPaths()
    with exclusive():  # the lab's own lock: no `pairbench lab` command runs meanwhile
        sshd.stop(node, paths)
        key = paths.host_key(node.role)
        key.unlink()
        sshd.public_key_path(key).unlink()
        assert sshd.ensure_key(key, f"pairbench-{node.host_name}")
        sshd.start(node, paths)
        return sshd.public_key_line(key)


def _offered_key(node: Node) -> str:
    """The host key the node's sshd really offers (``ssh-keyscan``), as ``type base64``."""
    require_program("ssh-keyscan")
    result = subprocess.run(
        ["ssh-keyscan", "-T", "5", "-t", "ed25519", node.address],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    lines = [line.split() for line in result.stdout.splitlines() if not line.startswith("#")]
    assert lines, result.stderr
    return f"{lines[0][1]} {lines[0][2]}"


def _pins(lab: LabHandle, name: str) -> list[str]:
    with Library.open(lab.library) as lib:
        return pinned_host_keys(lib, name)


@pytest.fixture
def restored(lab: LabHandle) -> Iterator[LabHandle]:
    """The lab; afterwards healthy again, whatever the test did to its keys."""
    try:
        yield lab
    finally:
        if not lab.status()["healthy"]:
            result = lab.cli("lab", "up", "--repin-keys")
            assert result.returncode == 0, result.stderr
        lab.refresh()
        assert lab.status()["healthy"], lab.status()["problems"]


def test_a_changed_host_key_is_refused_until_repinned(restored: LabHandle) -> None:
    lab = restored
    old = lab.info["server"]["host_key"]
    assert _pins(lab, "lab-server") == [old]
    new = _regenerate_host_key(single().server)
    old_print, new_print = key_fingerprint(old), key_fingerprint(new)
    assert old_print != new_print
    assert _offered_key(single().server) == new  # the sshd really offers the new key

    # `lab up` refuses, naming both keys and the explicit step, and pins nothing.
    refused = lab.cli("lab", "up")
    assert refused.returncode == 1, refused.stdout
    assert "host lab-server: HOST KEY CHANGED" in refused.stderr
    assert f"expected {old_print}, got {new_print}; refusing to pin it" in refused.stderr
    assert REPIN in refused.stderr
    assert "lab-client" not in refused.stderr  # its key did not change
    assert "Traceback" not in refused.stderr and refused.stdout == ""
    assert _pins(lab, "lab-server") == [old]
    assert lab.cli("lab", "up", "--json").returncode == 1  # --json too

    # `lab status` calls the lab unhealthy, with the same reason.
    status = lab.cli("lab", "status", "--json")
    assert status.returncode == 1
    report: dict[str, Any] = json.loads(status.stdout)
    assert report["up"] is True and report["healthy"] is False
    problem = next(p for p in report["problems"] if "HOST KEY CHANGED" in p)
    assert old_print in problem and new_print in problem and REPIN in problem
    assert problem.startswith("host lab-server:")
    text = lab.cli("lab", "status")
    assert text.returncode == 1
    assert "lab: up, BROKEN" in text.stdout and new_print in text.stdout

    # A run's connection refuses it too, pointing at the lab's step.
    check = lab.cli("pairs", "check", "lab")
    assert check.returncode == 1
    assert "HOST KEY CHANGED" in check.stdout and REPIN in check.stdout
    assert old_print in check.stdout and new_print in check.stdout

    # The explicit step: re-pin, then everything agrees on the new key.
    repinned = lab.cli("lab", "up", "--repin-keys")
    assert repinned.returncode == 0, repinned.stderr
    assert f"re-pinned the host key of lab-server: {new_print} (was {old_print})" in repinned.stdout
    assert _pins(lab, "lab-server") == [new]
    lab.refresh()
    assert lab.info["server"]["host_key"] == new
    assert lab.status()["healthy"]
    check = lab.cli("pairs", "check", "lab")
    assert "HOST KEY CHANGED" not in check.stdout
    assert "server lab-server: reachable" in check.stdout, check.stdout
    again = lab.cli("lab", "up")
    assert again.returncode == 0, again.stderr
    assert "re-pinned" not in again.stdout


def test_forget_key_then_up_also_repins(restored: LabHandle) -> None:
    lab = restored
    old = lab.info["client"]["host_key"]
    new = _regenerate_host_key(single().client)
    assert lab.cli("lab", "up").returncode == 1
    forgot = lab.cli("hosts", "forget-key", "lab-client")
    assert forgot.returncode == 0, forgot.stderr
    assert key_fingerprint(old) in forgot.stdout and "`pairbench lab up` pins" in forgot.stdout
    up = lab.cli("lab", "up")
    assert up.returncode == 0, up.stderr
    assert _pins(lab, "lab-client") == [new]
    lab.refresh()
    assert lab.status()["healthy"]


def test_a_lab_built_anew_pins_its_new_keys_and_says_so(restored: LabHandle) -> None:
    lab = restored
    old = {role: lab.info[role]["host_key"] for role in ("client", "server")}
    assert lab.cli("lab", "down").returncode == 0
    up = lab.cli("lab", "up")  # new namespaces, new sshd, new host keys: made by this command
    assert up.returncode == 0, up.stderr
    lab.refresh()
    for role in ("client", "server"):
        new = lab.info[role]["host_key"]
        assert new != old[role]
        assert _pins(lab, f"lab-{role}") == [new]
        assert (
            f"new lab: pinned the new host key of lab-{role}: {key_fingerprint(new)} "
            f"(was {key_fingerprint(old[role])})"
        ) in up.stdout
    assert lab.status()["healthy"]
