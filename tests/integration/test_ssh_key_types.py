"""Servers with no algorithm in common with us: a clear error naming both sides' lists.

OpenSSH's sshd just closes the connection when no host key type (or key exchange method,
cipher, MAC) is common ("Connection lost" on our side); an asyncssh server disconnects with
"Unable to find compatible server host key". Either way the user must learn what the server
offered and what Pairbench accepts.
"""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import Host
from pairbench.domain.failures import HostKeyUnknownError, NoCommonAlgorithmError
from pairbench.library import Library
from pairbench.library.hosts import pin_host_key
from pairbench.remote.host_keys import HostKeyPolicy, key_line
from pairbench.remote.ssh import SSHTransport
from sshdkit import Sshd, sshd
from testkit import require_program


def _cli(library_path: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    status = run_cli(list(argv), env)
    return status, out.getvalue(), err.getvalue()


def _connect(host: Host, pinned: list[str] | None = None) -> Exception:
    """Connect with these pins (no known_hosts); the exception it fails with."""
    policy = HostKeyPolicy(pinned=pinned or [], known_hosts=())
    transport = SSHTransport(host, policy, connect_timeout_s=5)

    async def attempt() -> Exception:
        try:
            await transport.connect()
        except Exception as exc:
            return exc
        finally:
            await transport.close()
        raise AssertionError(f"{host.name}: the connection succeeded")

    return asyncio.run(attempt())


def _public_line(algorithm: str) -> str:
    return key_line(asyncssh.generate_private_key(algorithm).convert_to_public())


# ---------------------------------------------------------------------------------------------
# A real OpenSSH sshd with an ed25519 host key only


@pytest.fixture
def ed25519_sshd(tmp_path: Path) -> Iterator[Sshd]:
    """A throwaway sshd on 127.0.0.1 (a free port) whose only host key is ed25519."""
    with sshd(tmp_path, ["AuthorizedKeysFile none"]) as server:
        yield server


@pytest.mark.lab
def test_a_pinned_rsa_key_against_an_ed25519_only_sshd(ed25519_sshd: Sshd) -> None:
    host = Host(name="web1", address="127.0.0.1", port=ed25519_sshd.port, user="nobody")
    error = _connect(host, pinned=[_public_line("ssh-rsa")])
    assert isinstance(error, NoCommonAlgorithmError), repr(error)
    assert error.kind == "host key type"
    assert error.offered == ["ssh-ed25519"]
    assert {"rsa-sha2-256", "rsa-sha2-512", "ssh-rsa"} <= set(error.accepted)
    assert not any("ed25519" in name for name in error.accepted)
    message = str(error)
    assert message.startswith("host web1: no host key type in common with the server")
    assert "it offers ssh-ed25519; Pairbench accepts rsa-sha2-256, rsa-sha2-512" in message
    assert "pinned for web1" in message and "pairbench hosts forget-key web1" in message
    assert "Connection lost" not in message and "\n" not in message
    # What really happened on the server: the negotiation failed, it did not crash.
    deadline = time.monotonic() + 2
    while "no matching host key type" not in ed25519_sshd.log.read_text():
        assert time.monotonic() < deadline, ed25519_sshd.log.read_text()
        time.sleep(0.05)

    # A lab host gets the lab's re-pin step instead.
    lab_host = Host(
        name="lab-server",
        address="127.0.0.1",
        port=ed25519_sshd.port,
        user="nobody",
        tags={"lab": "true"},
    )
    lab_error = _connect(lab_host, pinned=[_public_line("ssh-rsa")])
    assert isinstance(lab_error, NoCommonAlgorithmError)
    assert "pairbench lab up --repin-keys" in str(lab_error)

    # Without the pin the types match, and the (unknown) key itself is what stops us.
    unknown = _connect(host)
    assert isinstance(unknown, HostKeyUnknownError)
    assert unknown.fingerprint == ed25519_sshd.host_key.get_fingerprint()


@pytest.mark.lab
def test_pairs_check_says_it_too(ed25519_sshd: Sshd, library_path: Path) -> None:
    require_program("ping")
    argv = ["hosts", "add", "web1", "--address", "127.0.0.1", "--port", str(ed25519_sshd.port)]
    assert _cli(library_path, *argv)[0] == 0
    with Library.open(library_path) as lib:
        pin_host_key(lib, "web1", _public_line("ssh-rsa"))
    argv = ["pairs", "add", "p1", "--client", "localhost", "--server", "web1"]
    assert _cli(library_path, *argv)[0] == 0
    status, out, err = _cli(library_path, "pairs", "check", "p1", "--json")
    assert status == 1, err
    server_error = json.loads(out)["server"]["error"]
    assert "no host key type in common" in server_error
    assert "it offers ssh-ed25519" in server_error and "rsa-sha2-512" in server_error
    status, out, err = _cli(library_path, "pairs", "check", "p1")
    assert status == 1
    assert "it offers ssh-ed25519" in out and "Traceback" not in out + err


# ---------------------------------------------------------------------------------------------
# In-process asyncssh servers offering only what we do not accept by default


CASES: dict[str, tuple[dict[str, Any], str, list[str], str]] = {
    # name: (server options, kind, what the server offers, one algorithm we accept)
    "host key type": ({}, "host key type", ["ssh-dss"], "ssh-ed25519"),
    "key exchange": (
        {"kex_algs": ["diffie-hellman-group1-sha1"]},
        "key exchange method",
        ["diffie-hellman-group1-sha1"],
        "curve25519-sha256",
    ),
    "cipher": ({"encryption_algs": ["aes128-cbc"]}, "cipher", ["aes128-cbc"], "aes128-ctr"),
    "MAC": (
        {"encryption_algs": ["aes128-ctr"], "mac_algs": ["hmac-md5"]},
        "MAC",
        ["hmac-md5"],
        "hmac-sha2-256",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_asyncssh_server_with_nothing_in_common(case: str) -> None:
    options, kind, offered, ours = CASES[case]
    host_key = asyncssh.generate_private_key(
        "ssh-dss" if kind == "host key type" else "ssh-ed25519"
    )

    async def attempt() -> Exception:
        server = await asyncssh.listen("127.0.0.1", 0, server_host_keys=[host_key], **options)
        port = server.sockets[0].getsockname()[1]
        host = Host(name="odd", address="127.0.0.1", port=port, user="nobody")
        transport = SSHTransport(host, HostKeyPolicy(known_hosts=()), connect_timeout_s=5)
        try:
            await transport.connect()
        except Exception as exc:
            return exc
        finally:
            await transport.close()
            server.close()
            await server.wait_closed()
        raise AssertionError("the connection succeeded")

    error = asyncio.run(attempt())
    assert isinstance(error, NoCommonAlgorithmError), repr(error)
    assert error.kind == kind
    assert error.offered == offered
    assert ours in error.accepted and not set(offered) & set(error.accepted)
    message = str(error)
    assert f"host odd: no {kind} in common with the server: it offers {offered[0]}" in message
    plain = [name for name in error.accepted if "-cert-" not in name]
    assert f"Pairbench accepts {plain[0]}, " in message and ours in message
    assert "forget-key" not in message  # nothing was pinned: not a changed key
    if kind == "host key type":
        assert message.endswith("(and their certificates)")
