"""An imported host's encrypted key file, for real against OpenSSH's sshd and ssh-agent: when
the agent holds the key (ssh-add'ed), Pairbench logs in through the agent and never asks the
passphrase, also with IdentitiesOnly (ssh uses the agent's copy of a listed key); without the
agent it asks for the passphrase, once, and a declined passphrase is a clear login failure."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from pairbench.domain import Host
from pairbench.domain.failures import AuthFailedError
from pairbench.domain.hosts import SSHOptions
from pairbench.remote.host_keys import HostKeyPolicy, key_line
from pairbench.remote.ssh import SSHTransport
from sshdkit import Sshd, sshd
from testkit import require_program

pytestmark = [pytest.mark.lab, pytest.mark.timeout(60)]
PASSPHRASE = "correct horse 7"


class Asked:
    """A secret prompt that records what it was asked and answers ``passphrase``."""

    def __init__(self, passphrase: str | None) -> None:
        self.answer = passphrase
        self.asked: list[str] = []

    def passphrase(self, key_path: str) -> str | None:
        self.asked.append(key_path)
        return self.answer

    def password(self, host: Host, reason: str) -> str | None:
        return None


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Sshd, Path, Path]]:
    """An sshd accepting one key, that key encrypted on disk, and an ssh-agent holding it."""
    agent_program = require_program("ssh-agent")
    base = tmp_path_factory.mktemp("agent")
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_file = base / "id_enc"
    key_file.write_bytes(key.export_private_key(passphrase=PASSPHRASE, rounds=50))
    key_file.chmod(0o600)
    (base / "id_enc.pub").write_bytes(key.export_public_key())
    authorized = base / "authorized"
    authorized.write_bytes(key.export_public_key())
    socket_path = base / "agent.sock"
    agent = subprocess.Popen(
        [agent_program, "-D", "-a", str(socket_path)], stdout=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 5
        while not socket_path.exists():
            assert time.monotonic() < deadline and agent.poll() is None, "ssh-agent did not start"
            time.sleep(0.02)

        async def add() -> None:
            async with asyncssh.connect_agent(str(socket_path)) as client:
                await client.add_keys([key])

        asyncio.run(add())
        extra = [f"AuthorizedKeysFile {authorized}", "PermitRootLogin prohibit-password"]
        with sshd(base / "sshd", extra) as server:
            yield server, key_file, socket_path
    finally:
        agent.terminate()
        agent.wait(5)


def _host(server: Sshd, key_file: Path, agent: str, identities_only: bool) -> Host:
    options = SSHOptions(
        identity_files=(str(key_file),), identities_only=identities_only, identity_agent=agent
    )
    return Host(name="enc", address="127.0.0.1", port=server.port, user="root", ssh=options)


def _login(host: Host, server: Sshd, prompt: Asked) -> str:
    policy = HostKeyPolicy(pinned=[key_line(server.host_key)], known_hosts=())
    transport = SSHTransport(host, policy, secrets=prompt, connect_timeout_s=5)

    async def attempt() -> str:
        try:
            return (await transport.run(["echo", "in"])).stdout.strip()
        finally:
            await transport.close()

    return asyncio.run(attempt())


@pytest.mark.parametrize("identities_only", [False, True])
def test_a_key_the_agent_holds_is_never_asked_for(
    setup: tuple[Sshd, Path, Path], identities_only: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, key_file, socket_path = setup
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    prompt = Asked(None)
    assert (
        _login(_host(server, key_file, str(socket_path), identities_only), server, prompt) == "in"
    )
    assert prompt.asked == []


def test_without_the_agent_the_passphrase_is_asked_once(
    setup: tuple[Sshd, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, key_file, _ = setup
    monkeypatch.setenv("SSH_AUTH_SOCK", os.devnull)  # IdentityAgent none must not use it
    host = _host(server, key_file, "none", identities_only=False)
    prompt = Asked(PASSPHRASE)
    assert _login(host, server, prompt) == "in"
    assert prompt.asked == [str(key_file)]
    declined = Asked(None)
    with pytest.raises(AuthFailedError) as caught:
        _login(host, server, declined)
    assert declined.asked == [str(key_file)]
    assert f"key files {key_file}" in str(caught.value) and "\n" not in str(caught.value)
