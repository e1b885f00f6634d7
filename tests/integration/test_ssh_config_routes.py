"""Hosts imported from an ssh_config connect as ssh would, for real, to three OpenSSH servers
on loopback: through a chain of two ProxyJump hops, and through a ProxyCommand that is
OpenSSH's own ``ssh -W`` to a hop. Each server accepts only its own key, so each hop must
use its own identity files (the first one listed is refused, as ssh would try it first);
the target is trusted under its HostKeyAlias in a UserKnownHostsFile, the second hop's key
is accepted by StrictHostKeyChecking accept-new (and pinned), and the target accepts only a
certificate named by CertificateFile. The servers' logs show the path taken.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain.failures import TransportError
from pairbench.engine.transports import Connector
from pairbench.library import Library
from pairbench.library.hosts import get_host, pinned_host_keys
from pairbench.remote.host_keys import key_line
from sshdkit import Sshd, sshd
from testkit import require_program

pytestmark = [pytest.mark.lab, pytest.mark.timeout(120)]


@dataclass
class Servers:
    base: Path
    config: Path
    hop1: Sshd
    hop2: Sshd
    target: Sshd
    wrong_key: asyncssh.SSHKey
    hop1_key: asyncssh.SSHKey


def _key(path: Path) -> asyncssh.SSHKey:
    key = asyncssh.generate_private_key("ssh-ed25519")
    path.write_bytes(key.export_private_key())
    path.chmod(0o600)
    path.with_name(path.name + ".pub").write_bytes(key.export_public_key())
    return key


def _authorized(path: Path, key: asyncssh.SSHKey) -> Path:
    path.write_bytes(key.export_public_key())
    return path


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    require_program("ssh-keygen")
    require_program("ssh")
    base = tmp_path_factory.mktemp("routes")
    keys = base / "keys"
    keys.mkdir()
    wrong = _key(keys / "wrong")
    hop1_key, hop2_key = _key(keys / "hop1"), _key(keys / "hop2")
    _key(keys / "target")
    _key(keys / "ca")
    subprocess.run(
        ["ssh-keygen", "-q", "-s", str(keys / "ca"), "-I", "pb-test", "-n", "root",
         str(keys / "target.pub")],
        check=True, capture_output=True,
    )  # fmt: skip
    (keys / "target-cert.pub").rename(keys / "target-by-config-cert.pub")
    root = ["PermitRootLogin prohibit-password"]
    a1, a2 = _authorized(base / "a1", hop1_key), _authorized(base / "a2", hop2_key)
    with (
        sshd(base / "hop1", [f"AuthorizedKeysFile {a1}", *root], log_level="DEBUG1") as hop1,
        sshd(base / "hop2", [f"AuthorizedKeysFile {a2}", *root], log_level="DEBUG1") as hop2,
        sshd(
            base / "target",
            ["AuthorizedKeysFile none", f"TrustedUserCAKeys {keys / 'ca.pub'}", *root],
        ) as target,
    ):
        known = base / "known_hosts"
        known.write_text(
            f"[127.0.0.1]:{hop1.port} {key_line(hop1.host_key)}\n"
            f"target.pb.example {key_line(target.host_key)}\n"
        )
        config = base / "ssh_config"
        config.write_text(
            f"Host hop1\n  HostName 127.0.0.1\n  Port {hop1.port}\n  User root\n"
            f"  IdentityFile {keys / 'wrong'}\n  IdentityFile {keys / 'hop1'}\n"
            f"  IdentitiesOnly yes\n  UserKnownHostsFile {known}\n  BatchMode yes\n"
            f"Host hop2\n  HostName 127.0.0.1\n  Port {hop2.port}\n  User root\n"
            f"  IdentityFile {keys / 'hop2'}\n  IdentitiesOnly yes\n"
            f"  StrictHostKeyChecking accept-new\n  UserKnownHostsFile {base / 'none'}\n"
            f"Host target viacmd\n  HostName 127.0.0.1\n  Port {target.port}\n  User root\n"
            f"  IdentityFile {keys / 'target'}\n"
            f"  CertificateFile {keys / 'target-by-config-cert.pub'}\n  IdentitiesOnly yes\n"
            f"  HostKeyAlias target.pb.example\n  UserKnownHostsFile {known}\n"
            "Host target\n  ProxyJump hop1,hop2\n"
            f"Host viacmd\n  ProxyCommand ssh -F {config} -W %h:%p hop1\n"
            "Host broken\n  HostName 127.0.0.1\n"
            "  ProxyCommand sh -c 'echo no route to %h >&2; exit 3'\n"
        )
        yield Servers(base, config, hop1, hop2, target, wrong, hop1_key)


def _import(library_path: Path, servers: Servers, home: Path) -> dict[str, dict[str, object]]:
    out, err = io.StringIO(), io.StringIO()
    environ = {"PAIRBENCH_LIBRARY": str(library_path), "HOME": str(home)}
    argv = ["hosts", "import-ssh-config", str(servers.config), "--json"]
    status = run_cli(argv, Environment(stdout=out, stderr=err, environ=environ))
    assert status == 0, err.getvalue()
    return {h["name"]: h for h in json.loads(out.getvalue())["added"]}


async def _run_on(library_path: Path, name: str) -> str:
    with Library.open(library_path) as lib:
        connector = Connector(lib)
        try:
            transport = await connector.transport(get_host(lib, name))
            result = await transport.run(["sh", "-c", "echo reached $(id -un)"])
            return result.stdout.strip()
        finally:
            await connector.close()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    return tmp_path


def test_two_proxyjump_hops_each_with_its_own_keys(
    servers: Servers, library_path: Path, home: Path
) -> None:
    added = _import(library_path, servers, home)
    hops = added["target"]["ssh"]["jumps"]  # type: ignore[index]
    assert [h["name"] for h in hops] == ["hop1", "hop2"]  # type: ignore[index]
    assert asyncio.run(_run_on(library_path, "target")) == "reached root"

    # hop1 refused the first key file and took the second; it opened the way to hop2;
    # hop2 opened the way to the target; the target took the certificate.
    hop1_log, hop2_log, target_log = (
        servers.hop1.log_text(),
        servers.hop2.log_text(),
        servers.target.log_text(),
    )
    wrong, right = servers.wrong_key.get_fingerprint(), servers.hop1_key.get_fingerprint()
    assert hop1_log.index("Failed publickey for root from 127.0.0.1") < hop1_log.index(
        "Accepted publickey for root from 127.0.0.1"
    )
    assert "Failed publickey for root from 127.0.0.1" in hop1_log and wrong in hop1_log
    assert right in hop1_log.split("Accepted publickey for root", 1)[1].splitlines()[0]
    assert f"target 127.0.0.1 port {servers.hop2.port}" in hop1_log
    assert f"target 127.0.0.1 port {servers.target.port}" in hop2_log
    assert "Accepted publickey for root" in hop2_log
    assert "Accepted publickey for root" in target_log and "ED25519-CERT" in target_log
    # hop2 was unknown: StrictHostKeyChecking accept-new pinned its key.
    with Library.open(library_path) as lib:
        assert pinned_host_keys(lib, "hop2") == [key_line(servers.hop2.host_key)]
        assert pinned_host_keys(lib, "target") == []  # known by its HostKeyAlias


def test_a_proxycommand_runs_through_the_shell_and_ends_with_the_connection(
    servers: Servers, library_path: Path, home: Path
) -> None:
    added = _import(library_path, servers, home)
    assert added["viacmd"]["ssh"]["proxy_command"].startswith("ssh -F ")  # type: ignore[index]
    before = servers.hop1.log_text().count(f"target 127.0.0.1 port {servers.target.port}")
    assert asyncio.run(_run_on(library_path, "viacmd")) == "reached root"
    after = servers.hop1.log_text().count(f"target 127.0.0.1 port {servers.target.port}")
    assert after == before + 1  # OpenSSH's ssh -W to hop1 carried the connection
    assert not _processes_naming(str(servers.config))  # the ProxyCommand has ended

    with pytest.raises(TransportError) as caught:
        asyncio.run(_run_on(library_path, "broken"))
    message = str(caught.value)
    assert "ProxyCommand ended (exit status 3): no route to 127.0.0.1" in message
    assert "\n" not in message


def _processes_naming(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in command:
            found.append(int(entry.name))
    return found
