"""The names reserved for this computer (issue 26, §1): `local` and `localhost`, in any letter
case, for hosts and pairs alike. A library written before they were reserved (a host named
`local`, a pair named `LOCAL`) is named on every open, `storage run --host local` refuses to
guess which was meant, and `hosts rename` / `pairs rename` settle it."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.library import Library
from pairbench.library.hosts import get_host, list_hosts, pin_host_key
from pairbench.library.suites import create_suite, list_suites
from pairbench.services.hosts import HostForm, save_new_host
from pairbench.services.importing import import_output
from testkit import FIXTURES

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHostKeyOfTheOldLocalHostName0000000000 x"


def _cli(library: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library)})
    return run_cli(list(argv), env), out.getvalue(), err.getvalue()


def _older_library(path: Path) -> None:
    """What an older Pairbench let a user make: a host named ``local`` (192.0.2.55) with a
    pinned key, a host jumping through it, a pair ``LOCAL`` of it with a run, and a suite
    that ran on this computer (``--host local``)."""
    with Library.open(path) as lib:
        save_new_host(lib, HostForm(name="b1", address="10.0.0.2"), None)
        create_suite(lib, "storage", "local", {"test": "iops", "target": "/tmp"})
        text = (FIXTURES / "iperf3" / "tcp_t5.out").read_text(encoding="utf-8")
        import_output(lib, "iperf3", text, pair="local")
    conn = sqlite3.connect(path)
    with conn:  # as the older program wrote them: its checks allowed these names
        conn.execute(
            "INSERT INTO hosts (name, address, port, auth) VALUES ('local', '192.0.2.55', 22, "
            "'agent')"
        )
        conn.execute("UPDATE hosts SET jump = 'local' WHERE name = 'b1'")
        conn.execute(
            "INSERT INTO pairs (name, client_host_id, server_host_id) SELECT 'LOCAL', c.id, "
            "s.id FROM hosts c, hosts s WHERE c.name = 'local' AND s.name = 'b1'"
        )
        conn.execute("UPDATE runs SET pair = 'LOCAL'")
    conn.close()
    with Library.open(path, recover=False) as lib:
        pin_host_key(lib, "local", KEY)


@pytest.mark.parametrize("name", ["local", "LOCAL", "Local", "localhost", "LOCALHOST"])
def test_the_reserved_names_in_any_case(name: str) -> None:
    from pairbench.domain.validation import check_new_name

    for kind in ("host", "pair"):
        with pytest.raises(ValueError, match=f"the {kind} name '{name}' is reserved"):
            check_new_name(kind, name)
    assert check_new_name("host", "local1") == "local1"  # only the names themselves


def test_a_library_holding_them_says_so_on_every_open(library_path: Path) -> None:
    _older_library(library_path)
    status, out, err = _cli(library_path, "hosts", "list")
    assert status == 0 and "192.0.2.55" in out
    warnings = [line for line in err.splitlines() if line.startswith("pairbench: warning:")]
    assert len(warnings) == 2, err
    assert "host 'local' (192.0.2.55)" in warnings[0]
    assert "`pairbench hosts rename local NEW-NAME`" in warnings[0]
    assert "`pairbench pairs rename LOCAL NEW-NAME`" in warnings[1]
    with Library.open(library_path) as lib:
        assert len(lib.warnings) == 2  # the window shows the same lines


def test_storage_on_host_local_refuses_to_guess(library_path: Path, tmp_path: Path) -> None:
    _older_library(library_path)
    with Library.open(library_path) as lib:
        suites = len(list_suites(lib))
    status, _, err = _cli(
        library_path,
        "storage",
        "run",
        "--host",
        "local",
        "--test",
        "iops",
        "--target",
        str(tmp_path),
        "--size",
        "1MiB",
    )
    refusal = [line for line in err.splitlines() if "warning" not in line]
    assert status == 1 and len(refusal) == 1
    assert "also holds a host named 'local' (192.0.2.55)" in refusal[0]
    assert "pairbench hosts rename local NEW-NAME" in refusal[0]
    with Library.open(library_path) as lib:
        assert len(list_suites(lib)) == suites  # nothing stored, nothing ran


def test_renaming_settles_it_and_everything_follows(library_path: Path) -> None:
    _older_library(library_path)
    status, out, _ = _cli(library_path, "hosts", "rename", "local", "remote-a")
    assert status == 0 and out.strip() == "renamed host local to remote-a"
    status, out, _ = _cli(library_path, "pairs", "rename", "LOCAL", "zone-b")
    assert status == 0 and out.strip() == "renamed pair LOCAL to zone-b"
    status, out, err = _cli(library_path, "hosts", "show", "remote-a", "--json")
    assert status == 0 and err == ""  # no warning any more
    shown = json.loads(out)
    assert shown["address"] == "192.0.2.55" and shown["pairs"] == ["zone-b"]
    assert [k["key"] for k in shown["host_keys"]] == [KEY]
    with Library.open(library_path) as lib:
        assert get_host(lib, "b1").jump == "remote-a"
        assert [s.host for s in list_suites(lib)] == ["local"]  # it ran on this computer
    status, out, _ = _cli(library_path, "runs", "list", "--pair", "zone-b", "--count")
    assert status == 0 and out.strip() == "1"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("hosts", "rename", "localhost", "x"), "the built-in host 'localhost' cannot be renamed"),
        (("pairs", "rename", "local", "x"), "the built-in pair 'local' cannot be renamed"),
        (("hosts", "rename", "b1", "LOCAL"), "the host name 'LOCAL' is reserved"),
        (("hosts", "rename", "nope", "x"), "no host named 'nope'"),
        (("hosts", "rename", "b1", "localhost1"), None),
    ],
)
def test_rename_refusals(library_path: Path, argv: tuple[str, ...], said: str | None) -> None:
    with Library.open(library_path) as lib:
        save_new_host(lib, HostForm(name="b1", address="10.0.0.2"), None)
    status, _, err = _cli(library_path, *argv)
    if said is None:
        assert status == 0, err
        return
    assert status == 1 and err.startswith(f"pairbench: {said}") and err.count("\n") == 1


def test_ssh_config_aliases_of_reserved_names_are_skipped(
    library_path: Path, tmp_path: Path
) -> None:
    config = tmp_path / "config"
    config.write_text(
        "Host local\n  HostName 192.0.2.55\nHost LOCALHOST\n  HostName 192.0.2.56\n"
        "Host web\n  HostName 192.0.2.57\n"
    )
    status, out, _ = _cli(library_path, "hosts", "import-ssh-config", str(config), "--json")
    assert status == 0
    result = json.loads(out)
    assert [h["name"] for h in result["added"]] == ["web"]
    assert {s["name"]: "reserved" in s["reason"] for s in result["skipped"]} == {
        "local": True,
        "LOCALHOST": True,
    }
    with Library.open(library_path) as lib:
        assert sorted(h.name for h in list_hosts(lib)) == ["localhost", "web"]
