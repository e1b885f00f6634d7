"""``hosts`` and ``pairs`` commands in-process against a real library, keyring backend and sshd."""

from __future__ import annotations

import asyncio
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import keyring
import keyring.backend
import keyring.errors
import pytest
from keyring.backends import fail

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.library import Library
from pairbench.library.hosts import list_hosts, list_pairs
from testkit import require_program

PASSWORD = "S3cret-pw-7f9a1c"


def _cli(
    library_path: Path, *argv: str, environ: dict[str, str] | None = None
) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(
        stdout=out,
        stderr=err,
        environ={"PAIRBENCH_LIBRARY": str(library_path), **(environ or {})},
    )
    status = run_cli(list(argv), env)
    return status, out.getvalue(), err.getvalue()


def _host_names(library_path: Path) -> list[str]:
    with Library.open(library_path) as lib:
        return [h.name for h in list_hosts(lib)]


def _pair_names(library_path: Path) -> list[str]:
    with Library.open(library_path) as lib:
        return [p.name for p in list_pairs(lib)]


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A real keyring backend that keeps secrets in memory (the OS one is absent here)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.secrets.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError(username)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """Use an in-memory keyring for the test, then restore the previous backend."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


@pytest.fixture
def no_keyring() -> Iterator[None]:
    """The headless case: keyring's ``fail`` backend."""
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        yield
    finally:
        keyring.set_keyring(previous)


@pytest.fixture
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME in tmp_path (empty known_hosts, no ~/.ssh/config) and no ssh-agent."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    return home


# ---------------------------------------------------------------------------------------------
# hosts


def _write_private_key(path: Path) -> Path:
    """A real ed25519 private key, readable by its owner only (``hosts add --key`` checks)."""
    path.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key())
    path.chmod(0o600)
    return path


def test_hosts_add_list_show_edit_remove(library_path: Path, tmp_path: Path) -> None:
    key = _write_private_key(tmp_path / "id_test")
    status, out, err = _cli(
        library_path,
        "hosts",
        "add",
        "web1",
        "--address",
        "10.0.0.5",
        "--user",
        "ubuntu",
        "--port",
        "2222",
        "--key",
        str(key),
        "--tag",
        "cloud=aws",
        "region=eu-west-1",
        "--tag",
        "role=client",
    )
    assert status == 0, err
    assert "added host web1" in out

    status, out, _ = _cli(library_path, "hosts", "list", "--json")
    hosts = {h["name"]: h for h in json.loads(out)}
    assert set(hosts) == {"localhost", "web1"}
    assert hosts["web1"] == {
        "name": "web1",
        "address": "10.0.0.5",
        "port": 2222,
        "user": "ubuntu",
        "auth": "key",
        "key_path": str(key),
        "jump": None,
        "tags": {"cloud": "aws", "region": "eu-west-1", "role": "client"},
        "local": False,
    }
    assert hosts["localhost"]["local"] is True

    status, out, _ = _cli(library_path, "hosts", "list")
    assert status == 0 and "web1" in out and "10.0.0.5" in out and "cloud=aws" in out

    status, out, _ = _cli(library_path, "hosts", "show", "web1")
    assert status == 0
    assert "ubuntu" in out and "2222" in out and "none pinned yet" in out

    status, out, err = _cli(
        library_path,
        "hosts",
        "edit",
        "web1",
        "--address",
        "web1.example.com",
        "--agent",
        "--tag",
        "role=server",
        "--remove-tag",
        "region",
    )
    assert status == 0, err
    status, out, _ = _cli(library_path, "hosts", "show", "web1", "--json")
    shown = json.loads(out)
    assert shown["address"] == "web1.example.com"
    assert shown["auth"] == "agent" and shown["key_path"] is None
    assert shown["port"] == 2222 and shown["user"] == "ubuntu"  # untouched fields kept
    assert shown["tags"] == {"cloud": "aws", "role": "server"}
    assert shown["host_keys"] == [] and shown["pairs"] == []

    status, out, _ = _cli(library_path, "hosts", "remove", "web1")
    assert status == 0 and "removed host web1" in out
    assert _host_names(library_path) == ["localhost"]


def test_hosts_add_refuses_duplicates_and_missing_key(library_path: Path, tmp_path: Path) -> None:
    assert _cli(library_path, "hosts", "add", "web1", "--address", "10.0.0.5")[0] == 0
    status, _, err = _cli(library_path, "hosts", "add", "web1", "--address", "10.0.0.6")
    assert status == 1 and "already exists" in err
    status, _, err = _cli(library_path, "hosts", "add", "localhost", "--address", "10.0.0.6")
    assert status == 1 and "'localhost' is reserved" in err
    status, _, err = _cli(
        library_path, "hosts", "add", "web2", "--address", "10.0.0.6", "--key", str(tmp_path / "x")
    )
    assert status == 1 and "not found" in err
    status, _, err = _cli(
        library_path, "hosts", "add", "web2", "--address", "10.0.0.6", "--key", "k", "--agent"
    )
    assert status == 2  # argparse: not allowed together
    assert _host_names(library_path) == ["localhost", "web1"]


@pytest.mark.parametrize(
    "argv",
    [
        ["hosts", "add", "web1;id", "--address", "10.0.0.5"],
        ["hosts", "add", "$(id)", "--address", "10.0.0.5"],
        ["hosts", "add", "`id`", "--address", "10.0.0.5"],
        ["hosts", "add", "--address", "10.0.0.5", "--", "-oProxyCommand=id"],
        ["hosts", "add", "web 1", "--address", "10.0.0.5"],
        ["hosts", "add", "", "--address", "10.0.0.5"],
        ["hosts", "add", "x" * 65, "--address", "10.0.0.5"],
        ["hosts", "add", "web1", "--address", "10.0.0.5; reboot"],
        ["hosts", "add", "web1", "--address", "$(id)"],
        ["hosts", "add", "web1", "--address", "`id`"],
        ["hosts", "add", "web1", "--address", "'10.0.0.5'"],
        ["hosts", "add", "web1", "--address", "10.0.0.5\nevil"],
        ["hosts", "add", "web1", "--address=-oProxyCommand=id"],
        ["hosts", "add", "web1", "--address", ""],
        ["hosts", "add", "web1", "--address", "10.0.0.5", "--port", "0"],
        ["hosts", "add", "web1", "--address", "10.0.0.5", "--port", "22;id"],
        ["hosts", "add", "web1", "--address", "10.0.0.5", "--user", "root;id"],
        ["hosts", "add", "web1", "--address", "10.0.0.5", "--user", "$(id)"],
        ["hosts", "add", "web1", "--address", "10.0.0.5", "--tag", "cloud"],
        ["hosts", "add", "web1", "--address", "10.0.0.5", "--tag", "a b=c"],
        ["hosts", "add", "web1", "--address", "10.0.0.5", "--tag", "note=line\nbreak"],
        ["hosts", "add", "web1", "--address", "10.0.0.5", "--tag", "k=" + "v" * 129],
        ["hosts", "add", "web1", "--address", "10.0.0.5", "--tag", "k=a", "k=b"],
        ["hosts", "add", "web1", "--address", "10.0.0.5", "--jump", "nope"],
        ["hosts", "add", "web1", "--address", "10.0.0.5", "--jump", "localhost"],
        ["hosts", "add", "web1", "--address", "10.0.0.5", "--jump", "web1"],
    ],
)
def test_hostile_host_input_is_refused_and_nothing_written(
    library_path: Path, argv: list[str]
) -> None:
    status, out, err = _cli(library_path, *argv)
    assert status == 1, (out, err)
    assert err.startswith("pairbench: ") and err.count("\n") == 1
    assert "Traceback" not in err and out == ""
    assert _host_names(library_path) == ["localhost"]


def test_option_like_name_is_a_usage_error(library_path: Path) -> None:
    status, out, _ = _cli(library_path, "hosts", "add", "-oProxyCommand=id", "--address", "x")
    assert status == 2 and out == ""
    assert _host_names(library_path) == ["localhost"]


def test_hosts_remove_refuses_hosts_in_use(library_path: Path) -> None:
    assert _cli(library_path, "hosts", "add", "bastion", "--address", "10.0.0.1")[0] == 0
    assert (
        _cli(library_path, "hosts", "add", "web1", "--address", "10.0.0.5", "--jump", "bastion")[0]
        == 0
    )
    assert _cli(library_path, "hosts", "add", "web2", "--address", "10.0.0.6")[0] == 0
    assert _cli(library_path, "pairs", "add", "p1", "--client", "web1", "--server", "web2")[0] == 0

    status, _, err = _cli(library_path, "hosts", "remove", "web2")
    assert status == 1 and "used by pair(s) p1" in err
    status, _, err = _cli(library_path, "hosts", "remove", "bastion")
    assert status == 1 and "jump host of web1" in err
    status, _, err = _cli(library_path, "hosts", "remove", "localhost")
    assert status == 1 and "cannot be removed" in err
    status, _, err = _cli(library_path, "hosts", "edit", "localhost", "--port", "2")
    assert status == 1 and "cannot be edited" in err
    assert _host_names(library_path) == ["bastion", "localhost", "web1", "web2"]

    status, _, err = _cli(library_path, "hosts", "edit", "bastion", "--jump", "web1")
    assert status == 1 and "loop" in err
    assert _cli(library_path, "hosts", "edit", "web1", "--no-jump")[0] == 0
    assert _cli(library_path, "hosts", "remove", "bastion")[0] == 0
    assert _cli(library_path, "pairs", "remove", "p1")[0] == 0
    assert _cli(library_path, "hosts", "remove", "web2")[0] == 0
    status, _, err = _cli(library_path, "hosts", "remove", "web2")
    assert status == 1 and "no host named 'web2'" in err


def test_hosts_edit_needs_a_change(library_path: Path) -> None:
    assert _cli(library_path, "hosts", "add", "web1", "--address", "10.0.0.5")[0] == 0
    status, _, err = _cli(library_path, "hosts", "edit", "web1")
    assert status == 2 and "nothing to change" in err
    status, _, err = _cli(library_path, "hosts", "edit", "web1", "--address", "a b")
    assert status == 1 and "invalid address" in err
    status, _, err = _cli(library_path, "hosts", "edit", "web1", "--remove-tag", "nope")
    assert status == 1 and "no tag 'nope'" in err


# ---------------------------------------------------------------------------------------------
# passwords


def _library_bytes(library_path: Path) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-shm", "-journal"):
        path = Path(str(library_path) + suffix)
        if path.exists():
            data += path.read_bytes()
    return data


def test_password_goes_to_the_keyring_only(
    library_path: Path, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    # Keep the library open so the WAL is not checkpointed away before it is read.
    with Library.open(library_path):
        status, out, err = _cli(
            library_path,
            "hosts",
            "add",
            "db1",
            "--address",
            "10.0.0.7",
            "--user",
            "admin",
            "--password",
            environ={"PAIRBENCH_PASSWORD_STDIN": "1"},
        )
        assert status == 0, err
        assert memory_keyring.secrets == {("pairbench", "admin@10.0.0.7:22"): PASSWORD}
        outputs = [out, err]
        for argv in (
            ["hosts", "show", "db1"],
            ["hosts", "show", "db1", "--json"],
            ["hosts", "list"],
            ["hosts", "list", "--json"],
        ):
            status, out, err = _cli(library_path, *argv)
            assert status == 0
            outputs += [out, err]
        assert "stored in the OS keyring" in outputs[2]
        assert Path(str(library_path) + "-wal").exists()
        assert PASSWORD.encode() not in _library_bytes(library_path)
    assert all(PASSWORD not in text for text in outputs)

    # A new port moves the stored password to the new keyring account.
    status, out, err = _cli(library_path, "hosts", "edit", "db1", "--port", "2200")
    assert status == 0, err
    assert memory_keyring.secrets == {("pairbench", "admin@10.0.0.7:2200"): PASSWORD}
    assert PASSWORD not in out + err

    status, _, _ = _cli(library_path, "hosts", "remove", "db1")
    assert status == 0
    assert memory_keyring.secrets == {}
    assert PASSWORD.encode() not in _library_bytes(library_path)


def test_password_without_keyring_is_not_read_nor_stored(
    library_path: Path, no_keyring: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin = io.StringIO(PASSWORD + "\n")
    monkeypatch.setattr("sys.stdin", stdin)
    status, out, err = _cli(
        library_path,
        "hosts",
        "add",
        "db1",
        "--address",
        "10.0.0.7",
        "--password",
        environ={"PAIRBENCH_PASSWORD_STDIN": "1"},
    )
    assert status == 0, err
    assert "no OS keyring" in out and "asked at each connection" in out
    assert stdin.tell() == 0  # nothing to keep it in, so it was not even asked
    assert PASSWORD not in out + err
    assert PASSWORD.encode() not in _library_bytes(library_path)


def test_empty_password_is_refused(
    library_path: Path, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))
    status, _, err = _cli(
        library_path,
        "hosts",
        "add",
        "db1",
        "--address",
        "10.0.0.7",
        "--password",
        environ={"PAIRBENCH_PASSWORD_STDIN": "1"},
    )
    assert status == 1 and "no password given" in err
    assert _host_names(library_path) == ["localhost"]
    assert memory_keyring.secrets == {}


# ---------------------------------------------------------------------------------------------
# import-ssh-config


def test_import_ssh_config(library_path: Path, isolated_home: Path) -> None:
    key = _write_private_key(isolated_home / ".ssh" / "id_web")
    included = isolated_home / "more.conf"
    included.write_text("Host extra\n    HostName 192.0.2.9\n")
    config = isolated_home / "config"
    config.write_text(
        f"Include {included}\n"
        "Host bastion\n    HostName 203.0.113.1\n    User jump\n"
        "Host web1 web2\n    HostName %h.example.com\n    ProxyJump bastion\n"
        "    IdentityFile ~/.ssh/id_web\n"
        "Host db\n    HostName 10.0.0.7\n    Port=5022\n    IdentityFile ~/.ssh/missing\n"
        "Host far\n    ProxyJump u@bastion:22,web1\n"
        "Host .hidden\n    HostName 10.0.0.8\n"
        'Host evil\n    HostName "$(id)"\n'
        "Host existing\n    HostName 10.0.0.99\n"
        "Host *.corp *\n    User everyone\n"
        "Match all\n    User matched\n"
    )
    assert _cli(library_path, "hosts", "add", "existing", "--address", "10.9.9.9")[0] == 0

    status, out, err = _cli(library_path, "hosts", "import-ssh-config", str(config), "--json")
    assert status == 0, err
    result = json.loads(out)
    added = {h["name"]: h for h in result["added"]}
    assert list(added) == ["extra", "bastion", "web1", "web2", "db", "far"]
    assert added["bastion"]["address"] == "203.0.113.1" and added["bastion"]["user"] == "jump"
    assert added["web1"]["address"] == "web1.example.com"
    assert added["web1"]["jump"] == "bastion"  # the alias, added too: stored as a reference
    assert added["web1"]["auth"] == "agent"
    assert added["web1"]["ssh"]["identity_files"] == [str(key)]
    assert added["web1"]["user"] == "everyone"
    assert added["db"]["port"] == 5022 and added["db"]["auth"] == "agent"
    # ssh's defaults when no IdentityFile is given, in ssh's order.
    assert added["bastion"]["ssh"]["identity_files"][0] == str(isolated_home / ".ssh/id_rsa")
    # A hop list: bastion (as u, port 22), then web1 reached through it.
    far = added["far"]
    assert far["jump"] is None and far["address"] == "far"
    hops = far["ssh"]["jumps"]
    assert [(h["name"], h["user"], h["address"], h["port"]) for h in hops] == [
        ("bastion", "u", "203.0.113.1", 22),
        ("web1", "everyone", "web1.example.com", 22),
    ]
    skipped = {s["name"]: s["reason"] for s in result["skipped"]}
    assert set(skipped) == {".hidden", "evil", "existing"}
    assert "already exists" in skipped["existing"]
    warnings = "\n".join(result["warnings"])
    assert "missing" in warnings and "db" in warnings

    with Library.open(library_path) as lib:
        stored = {h.name: h for h in list_hosts(lib)}
    assert stored["existing"].address == "10.9.9.9"  # not overwritten
    assert stored["web2"].jump == "bastion"
    assert [hop.name for hop in stored["far"].ssh.jumps] == ["bastion", "web1"]
    assert "evil" not in stored and ".hidden" not in stored

    # Importing again adds nothing and says so.
    status, out, _ = _cli(library_path, "hosts", "import-ssh-config", str(config))
    assert status == 0
    assert "0 host(s) added" in out and "skipped web1: a host with this name already exists" in out


def test_import_ssh_config_errors(library_path: Path, isolated_home: Path) -> None:
    status, _, err = _cli(library_path, "hosts", "import-ssh-config")
    assert status == 1 and "cannot read" in err and str(isolated_home) in err
    bad = isolated_home / "bad"
    bad.write_text("Host a\n  Port 99999\n")
    status, _, err = _cli(library_path, "hosts", "import-ssh-config", str(bad))
    assert status == 1 and "Bad port" in err and "bad:2" in err and "Traceback" not in err
    assert _host_names(library_path) == ["localhost"]


# ---------------------------------------------------------------------------------------------
# pairs


def test_pairs_add_list_show_edit_remove(library_path: Path) -> None:
    for name, address in (("c1", "10.0.0.1"), ("s1", "10.0.0.2"), ("s2", "10.0.0.3")):
        assert _cli(library_path, "hosts", "add", name, "--address", address)[0] == 0
    status, out, err = _cli(
        library_path,
        "pairs",
        "add",
        "aws-c5",
        "--client",
        "c1",
        "--server",
        "s1",
        "--data-address",
        "172.31.0.2",
        "--description",
        "two c5.large, same placement group",
        "--tag",
        "cloud=aws",
        "region=eu-west-1",
        "zone=eu-west-1a",
        "type=c5.large",
        "placement=cluster",
    )
    assert status == 0, err

    status, _, err = _cli(
        library_path, "pairs", "add", "aws-c5", "--client", "c1", "--server", "s2"
    )
    assert status == 1 and "already exists" in err

    status, out, _ = _cli(library_path, "pairs", "show", "aws-c5", "--json")
    pair = json.loads(out)
    assert pair["client"]["name"] == "c1" and pair["server"]["name"] == "s1"
    assert pair["data_address"] == "172.31.0.2" and pair["target_address"] == "172.31.0.2"
    assert pair["tags"] == {
        "cloud": "aws",
        "region": "eu-west-1",
        "zone": "eu-west-1a",
        "type": "c5.large",
        "placement": "cluster",
    }

    status, out, _ = _cli(library_path, "pairs", "list")
    assert status == 0 and "aws-c5" in out and "local" in out
    status, out, _ = _cli(library_path, "pairs", "list", "--json")
    assert [p["name"] for p in json.loads(out)] == ["aws-c5", "local"]
    status, out, _ = _cli(library_path, "pairs", "show", "aws-c5")
    assert status == 0 and "same placement group" in out and "172.31.0.2" in out

    status, _, err = _cli(
        library_path,
        "pairs",
        "edit",
        "aws-c5",
        "--server",
        "s2",
        "--no-data-address",
        "--remove-tag",
        "placement",
        "--tag",
        "type=c6i.large",
    )
    assert status == 0, err
    status, out, _ = _cli(library_path, "pairs", "show", "aws-c5", "--json")
    pair = json.loads(out)
    assert pair["server"]["name"] == "s2"
    assert pair["data_address"] is None and pair["target_address"] == "10.0.0.3"
    assert pair["tags"]["type"] == "c6i.large" and "placement" not in pair["tags"]
    assert pair["description"] == "two c5.large, same placement group"

    status, _, err = _cli(library_path, "pairs", "edit", "local", "--description", "x")
    assert status == 1 and "cannot be edited" in err
    status, _, err = _cli(library_path, "pairs", "remove", "local")
    assert status == 1 and "cannot be removed" in err
    assert _cli(library_path, "pairs", "remove", "aws-c5")[0] == 0
    assert _pair_names(library_path) == ["local"]
    status, _, err = _cli(library_path, "pairs", "show", "aws-c5")
    assert status == 1 and "no pair named 'aws-c5'" in err


@pytest.mark.parametrize(
    "extra",
    [
        ["--client", "nope", "--server", "s1"],
        ["--client", "c1;id", "--server", "s1"],
        ["--client", "c1", "--server", "s1", "--data-address", "$(id)"],
        ["--client", "c1", "--server", "s1", "--data-address", "10.0.0.2 -p 1"],
        ["--client", "c1", "--server", "s1", "--description", "a\nb"],
        ["--client", "c1", "--server", "s1", "--tag", "cloud=aws\n"],
        ["--client", "c1", "--server", "s1", "--tag", "cl oud=aws"],
        ["--client", "c1", "--server", "s1", "--tag", "region"],
    ],
)
def test_hostile_pair_input_is_refused_and_nothing_written(
    library_path: Path, extra: list[str]
) -> None:
    for name, address in (("c1", "10.0.0.1"), ("s1", "10.0.0.2")):
        assert _cli(library_path, "hosts", "add", name, "--address", address)[0] == 0
    status, out, err = _cli(library_path, "pairs", "add", "p1", *extra)
    assert status == 1, (out, err)
    assert err.startswith("pairbench: ") and err.count("\n") == 1 and "Traceback" not in err
    status, out, err = _cli(library_path, "pairs", "add", "p;1", "--client", "c1", "--server", "s1")
    assert status == 1 and "invalid pair name" in err
    assert _pair_names(library_path) == ["local"]


def test_pairs_check_local_runs_for_real(library_path: Path) -> None:
    require_program("iperf3")
    require_program("ping")
    status, out, err = _cli(library_path, "pairs", "check", "local", "--tool", "iperf3")
    assert status == 0, out + err
    assert "client localhost: reachable" in out and "server localhost: reachable" in out
    assert "iperf 3." in out
    assert "data path: ok" in out
    assert "pair local is ready" in out

    status, out, err = _cli(library_path, "pairs", "check", "local", "--json")
    assert status == 0, err
    check = json.loads(out)
    assert check["ok"] is True and check["data_path_ok"] is True
    assert check["client"]["versions"]["iperf3"].startswith("iperf 3.")


def test_pairs_check_reports_iperf2s_version_and_every_tools(library_path: Path) -> None:
    """``pairs check`` asks every tool of the registry its version, iperf 2 (``iperf -v``,
    on stderr, exit status 1) too."""
    from pairbench.tools.registry import TOOLS

    require_program("iperf")
    status, out, err = _cli(library_path, "pairs", "check", "local", "--json")
    assert status == 0, err
    client = json.loads(out)["client"]
    assert client["versions"]["iperf2"].startswith("iperf version 2.")
    assert set(client["versions"]) | set(client["missing"]) == set(TOOLS)


def test_pairs_check_connection_refused(library_path: Path, isolated_home: Path) -> None:
    require_program("ping")
    assert (
        _cli(library_path, "hosts", "add", "deaf", "--address", "127.0.0.1", "--port", "1")[0] == 0
    )
    assert (
        _cli(library_path, "pairs", "add", "p1", "--client", "localhost", "--server", "deaf")[0]
        == 0
    )
    status, out, err = _cli(library_path, "pairs", "check", "p1")
    assert status == 1
    assert "connection refused" in out
    assert "server deaf: UNREACHABLE" in out and "NOT ready" in out
    assert "clock offset: not checked" in out
    assert "Traceback" not in out + err

    status, out, _ = _cli(library_path, "pairs", "check", "p1", "--json")
    assert status == 1
    check = json.loads(out)
    assert check["ok"] is False and "connection refused" in check["server"]["error"]
    assert check["clock_offset_s"] is None


# ---------------------------------------------------------------------------------------------
# host keys, against a real in-process SSH server


class _NoAuthServer(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return False  # let anyone in: the test is about host keys


async def _run_locally(process: asyncssh.SSHServerProcess[str]) -> None:
    proc = await asyncio.create_subprocess_shell(
        process.command or "true",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    process.stdout.write(out.decode(errors="replace"))
    process.stderr.write(err.decode(errors="replace"))
    process.exit(proc.returncode or 0)


@pytest.fixture
def ssh_server() -> Iterator[tuple[int, asyncssh.SSHKey]]:
    """An SSH server on 127.0.0.1 in its own thread: (port, host key)."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def start() -> asyncssh.SSHAcceptor:
        return await asyncssh.listen(
            "127.0.0.1",
            0,
            server_host_keys=[key],
            server_factory=_NoAuthServer,
            process_factory=_run_locally,
        )

    server = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    try:
        yield server.sockets[0].getsockname()[1], key
    finally:
        server.close()
        asyncio.run_coroutine_threadsafe(server.wait_closed(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def test_unknown_host_key_then_accept_then_pinned(
    library_path: Path, isolated_home: Path, ssh_server: tuple[int, asyncssh.SSHKey]
) -> None:
    require_program("ping")
    port, key = ssh_server
    fingerprint = key.get_fingerprint()
    argv = ["hosts", "add", "sshd", "--address", "127.0.0.1", "--port", str(port)]
    assert _cli(library_path, *argv)[0] == 0
    assert (
        _cli(library_path, "pairs", "add", "p1", "--client", "localhost", "--server", "sshd")[0]
        == 0
    )

    status, out, err = _cli(library_path, "pairs", "check", "p1")
    assert status == 1
    assert fingerprint in out and "--accept-new-host-key" in out
    assert "Traceback" not in out + err

    status, out, err = _cli(library_path, "pairs", "check", "p1", "--accept-new-host-key")
    assert status == 0, out + err
    assert f"pinned the new host key of sshd: {fingerprint}" in out
    assert "server sshd: reachable" in out

    status, out, _ = _cli(library_path, "hosts", "show", "sshd", "--json")
    assert [k["fingerprint"] for k in json.loads(out)["host_keys"]] == [fingerprint]
    status, out, _ = _cli(library_path, "hosts", "show", "sshd")
    assert fingerprint in out

    status, out, err = _cli(library_path, "pairs", "check", "p1")  # pinned: no flag needed
    assert status == 0, out + err
    assert "pinned the new" not in out

    status, out, _ = _cli(library_path, "hosts", "forget-key", "sshd")
    assert status == 0 and fingerprint in out
    status, out, _ = _cli(library_path, "hosts", "show", "sshd", "--json")
    assert json.loads(out)["host_keys"] == []
    status, out, _ = _cli(library_path, "pairs", "check", "p1")
    assert status == 1 and "unknown host key" in out
