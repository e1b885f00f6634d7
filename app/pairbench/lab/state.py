"""The lab's state directory (/run/pairbench-lab): paths of its files, the JSON state file, and
the lock its commands hold (both per lab instance: ``instance.py``)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pairbench.lab.errors import LabError
from pairbench.lab.instance import current

STATE_VERSION = 1
LOCK_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class LabPaths:
    """Where each file of the lab lives; everything is under ``root`` (default: the single
    lab's directory of the current instance, ``/run/pairbench-lab``)."""

    root: Path = field(default_factory=lambda: current().state_root)

    @property
    def state_file(self) -> Path:
        """The JSON state file."""
        return self.root / "state.json"

    @property
    def user_key(self) -> Path:
        """The lab user's private key (ed25519, no passphrase), authorized on both hosts."""
        return self.root / "lab_key"

    @property
    def authorized_keys(self) -> Path:
        """The authorized_keys file both sshd use."""
        return self.root / "authorized_keys"

    def host_dir(self, role: str) -> Path:
        """The directory of one host's sshd files."""
        return self.root / role

    def host_key(self, role: str) -> Path:
        """One host's private host key (its ``.pub`` lies beside it)."""
        return self.host_dir(role) / "ssh_host_ed25519_key"

    def sshd_config(self, role: str) -> Path:
        """One host's sshd_config."""
        return self.host_dir(role) / "sshd_config"

    def sshd_pid(self, role: str) -> Path:
        """One host's sshd pid file."""
        return self.host_dir(role) / "sshd.pid"

    def sshd_log(self, role: str) -> Path:
        """One host's sshd log."""
        return self.host_dir(role) / "sshd.log"

    def delayline_pid(self, direction: str) -> Path:
        """The pid file of the delay line for one direction (``forward`` or ``reverse``)."""
        return self.root / "wan" / f"delayline-{direction}.pid"

    def delayline_log(self, direction: str) -> Path:
        """The log of the delay line for one direction."""
        return self.root / "wan" / f"delayline-{direction}.log"

    def make(self) -> None:
        """Create the directory tree (root-only: it holds private keys)."""
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.root, 0o700)
        for role in ("client", "server", "wan"):
            self.host_dir(role).mkdir(mode=0o700, exist_ok=True)

    def remove(self) -> None:
        """Delete the directory and everything in it."""
        shutil.rmtree(self.root, ignore_errors=True)


def read_pid(path: Path) -> int | None:
    """The pid in a pid file, or None when it is missing or garbled."""
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def load_state(paths: LabPaths) -> dict[str, Any] | None:
    """The saved state, or None when there is none or it is unreadable (the lab is rebuilt)."""
    try:
        data = json.loads(paths.state_file.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
        return None
    return data


def save_state(paths: LabPaths, data: dict[str, Any]) -> None:
    """Write the state atomically (a temporary file renamed over the old one)."""
    payload = {"version": STATE_VERSION, **data}
    tmp = paths.state_file.with_suffix(".tmp")
    try:
        tmp.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, paths.state_file)
    except OSError as exc:
        raise LabError(f"cannot write the lab state {paths.state_file}: {exc}") from exc


@contextlib.contextmanager
def exclusive(name: str | None = None, timeout_s: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold a lock (default: the current lab instance's): an abstract unix socket name (no
    file; freed when the holder exits).

    ``LabError`` when another process holds it for longer than ``timeout_s``.
    """
    name = name or current().lock_name
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            try:
                sock.bind("\0" + name)
                break
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    raise LabError(f"cannot take the lab's lock: {exc}") from exc
                if time.monotonic() > deadline:
                    raise LabError(
                        "another `pairbench lab` command is still running; try again later"
                    ) from exc
                time.sleep(0.1)
        yield
    finally:
        sock.close()
