"""One sshd per lab host: keys, its sshd_config, starting it in its namespace, stopping it."""

from __future__ import annotations

import os
import shutil
import socket
import time
from pathlib import Path

from pairbench.lab.errors import LabError
from pairbench.lab.netns import in_netns
from pairbench.lab.processes import kill_pids, pid_alive
from pairbench.lab.runner import run
from pairbench.lab.state import LabPaths, read_pid
from pairbench.lab.topology import SSH_PORT, Node

START_TIMEOUT_S = 5.0
PRIVSEP_DIR = Path("/run/sshd")


def sshd_program() -> str:
    """The absolute path of sshd (it must be started by absolute path to re-exec itself)."""
    found = shutil.which("sshd") or shutil.which("sshd", path="/usr/sbin:/usr/local/sbin:/sbin")
    if found is None:
        raise LabError("sshd is not installed: apt-get install openssh-server")
    return os.path.abspath(found)


def ensure_key(path: Path, comment: str) -> bool:
    """An ed25519 key pair at ``path`` / ``path.pub`` without passphrase (kept if both exist).

    True when the pair was made now (a new identity), False when it was kept.
    """
    pub = public_key_path(path)
    if path.exists() and pub.exists():
        return False
    path.unlink(missing_ok=True)
    pub.unlink(missing_ok=True)
    if shutil.which("ssh-keygen") is None:
        raise LabError("ssh-keygen is not installed: apt-get install openssh-client")
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)])
    return True


def public_key_path(path: Path) -> Path:
    """The ``.pub`` beside a private key."""
    return path.with_name(path.name + ".pub")


def public_key_line(path: Path) -> str:
    """A key's public half as ``ssh-ed25519 AAAA...`` (type and base64, no comment)."""
    try:
        fields = public_key_path(path).read_text().split()
    except OSError as exc:
        raise LabError(f"cannot read the public key of {path}: {exc}") from exc
    if len(fields) < 2:
        raise LabError(f"{public_key_path(path)} is not an OpenSSH public key")
    return f"{fields[0]} {fields[1]}"


def config_text(node: Node, paths: LabPaths, path_env: str | None = None) -> str:
    """The sshd_config of one lab host; ``path_env`` is its sessions' PATH (``SetEnv``, set
    after sshd's own default PATH, so the lab's chosen tools are found first)."""
    role = node.role
    lines = [
        "# Pairbench lab: written by `pairbench lab up`, removed by `pairbench lab down`",
        f"ListenAddress {node.address}",
        f"Port {SSH_PORT}",
        f"HostKey {paths.host_key(role)}",
        # The lab key logs in as root; a user of this computer may add its own keys (tests
        # log in as a user without root, as on a real host).
        f"AuthorizedKeysFile {paths.authorized_keys} .ssh/authorized_keys",
        f"PidFile {paths.sshd_pid(role)}",
        "PermitRootLogin prohibit-password",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        "StrictModes no",
        "UseDNS no",
        "PrintMotd no",
        "PrintLastLog no",
        "X11Forwarding no",
        "Subsystem sftp internal-sftp",
        "MaxSessions 50",
        "MaxStartups 50:30:100",
        "LogLevel VERBOSE",
    ]
    # SHLVL=1: bash sources ~/.bashrc for commands sshd starts only in a shell of level 1,
    # so the lab's sessions skip the login user's rc files (a pyenv or conda set-up there
    # costs a fifth of a second per command, and a stale lock of theirs blocks a minute).
    # One SetEnv line: sshd keeps the first of a keyword, the PATH goes on the same line.
    env = ['"SHLVL=1"']
    if path_env:
        env.append(f'"PATH={path_env}"')
    lines.append("SetEnv " + " ".join(env))
    return "\n".join(lines) + "\n"


def config_current(node: Node, paths: LabPaths, path_env: str | None = None) -> bool:
    """Whether the host's sshd runs with the config this version writes (else restart it)."""
    try:
        return paths.sshd_config(node.role).read_text() == config_text(node, paths, path_env)
    except OSError:
        return False


def start(node: Node, paths: LabPaths, path_env: str | None = None) -> int:
    """Write the config, start sshd in the host's namespace, wait until it accepts; its pid."""
    role = node.role
    config = paths.sshd_config(role)
    config.write_text(config_text(node, paths, path_env))
    PRIVSEP_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
    paths.sshd_pid(role).unlink(missing_ok=True)
    log = paths.sshd_log(role)
    argv = [sshd_program(), "-f", str(config), "-E", str(log)]
    run(in_netns(node.namespace, argv), log_file=log)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        pid = read_pid(paths.sshd_pid(role))
        if pid is not None and port_open(node.address):
            return pid
        time.sleep(0.05)
    raise LabError(
        f"sshd of {node.host_name} did not accept connections on {node.address}:{SSH_PORT} "
        f"within {START_TIMEOUT_S:g} s (see {log})"
    )


def port_open(address: str, port: int = SSH_PORT, timeout_s: float = 0.5) -> bool:
    """True when a TCP connection to ``address:port`` succeeds (from the root namespace)."""
    try:
        with socket.create_connection((address, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def running_pid(node: Node, paths: LabPaths) -> int | None:
    """The pid of the host's sshd when it is alive, else None."""
    pid = read_pid(paths.sshd_pid(node.role))
    return pid if pid is not None and pid_alive(pid) else None


def stop(node: Node, paths: LabPaths) -> None:
    """Stop the host's sshd by its pid file (its sessions are ended with the namespace)."""
    pid = read_pid(paths.sshd_pid(node.role))
    if pid is not None:
        kill_pids([pid])
    paths.sshd_pid(node.role).unlink(missing_ok=True)
