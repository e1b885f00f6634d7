"""Throwaway OpenSSH servers on 127.0.0.1 for tests: a free port, a generated host key, the
config a test asks for, always stopped (needs root for sshd's privilege separation dir)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from testkit import require

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
START_TIMEOUT_S = 5.0
PRIVSEP_DIR = Path("/run/sshd")


@dataclass
class Sshd:
    """A running sshd: its port, host key and log file."""

    port: int
    host_key: asyncssh.SSHKey
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


def require_sshd() -> None:
    """Skip (fail under CI) unless a real sshd can be started here."""
    require(os.access(SSHD, os.X_OK), "sshd is not installed (apt-get install openssh-server)")
    if os.geteuid() == 0:
        PRIVSEP_DIR.mkdir(mode=0o755, exist_ok=True)
    require(PRIVSEP_DIR.is_dir(), f"sshd needs {PRIVSEP_DIR} (create it as root)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def sshd(
    directory: Path, extra: Sequence[str] = (), name: str = "sshd", log_level: str = "VERBOSE"
) -> Iterator[Sshd]:
    """An sshd on 127.0.0.1 whose only host key is a new ed25519 key, with ``extra`` config
    lines (sshd keeps the first value of a keyword: these come after the fixed ones); stopped
    (and waited for) at the end."""
    require_sshd()
    directory.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_file = directory / f"{name}_host_ed25519_key"
    key_file.write_bytes(key.export_private_key())
    key_file.chmod(0o600)
    port = free_port()
    config = directory / f"{name}_config"
    lines = [
        "ListenAddress 127.0.0.1",
        f"Port {port}",
        f"HostKey {key_file}",
        "PidFile none",
        "UsePAM no",
        "StrictModes no",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        f"LogLevel {log_level}",
        *extra,
    ]
    config.write_text("\n".join(lines) + "\n")
    log = directory / f"{name}.log"
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(config)], stdout=log_file, stderr=log_file
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"sshd did not start: {log.read_text()}")
                time.sleep(0.05)
        yield Sshd(port, key, log)
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
