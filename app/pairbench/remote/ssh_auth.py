"""How a host logs in: its key, its password, or the agent's keys and its identity files.

A host imported from an OpenSSH config logs in as ssh would: the agent's keys first (not with
IdentitiesOnly, nor with IdentityAgent none), then each identity file in order, each with its
certificate (``KEY-cert.pub``, or a CertificateFile that matches it). A file that is missing or
unreadable is skipped, as ssh skips it. A file whose key the agent holds (its ``.pub`` names
it) is not read: the agent signs with it, also with IdentitiesOnly (ssh uses the agent's copy
of a listed key), so its passphrase is never asked. Any other encrypted file is asked for its
passphrase and skipped when none is given.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import asyncssh

from pairbench.domain import AuthMethod, Host
from pairbench.domain.failures import AuthFailedError, TransportError
from pairbench.remote.secrets import SecretPrompt, stored_password

AGENT_SOCKET_VARIABLE = "SSH_AUTH_SOCK"


@dataclass
class Login:
    """asyncssh's login options for a host, and the agent connection they use (closed once
    the SSH connection is made)."""

    options: dict[str, object] = field(default_factory=dict)
    agent: asyncssh.SSHAgentClient | None = None

    def close(self) -> None:
        if self.agent is not None:
            self.agent.close()
            self.agent = None


async def login_options(host: Host, secrets: SecretPrompt) -> Login:
    """How ``host`` logs in (``AuthFailedError`` when it cannot)."""
    if host.auth is AuthMethod.AGENT and not (
        host.ssh.identity_files == () and host.ssh.identity_agent is None
    ):
        return await _config_login(host, secrets)
    return Login(auth_options(host, secrets))


def auth_options(host: Host, secrets: SecretPrompt) -> dict[str, object]:
    """asyncssh's login options for a host added by hand (``AuthFailedError`` when it cannot
    log in): its key, its password, or the agent and asyncssh's default key files."""
    if host.auth is AuthMethod.AGENT:
        return {}
    if host.auth is AuthMethod.KEY:
        if not host.key_path:
            raise AuthFailedError(f"host {host.name}: no key file set")
        return {"client_keys": [load_key(host, host.key_path, secrets)], "agent_path": None}
    if host.auth is AuthMethod.PASSWORD:
        password = stored_password(host)
        if password is None:
            password = secrets.password(host, "no stored password")
        if password is None:
            raise AuthFailedError(f"host {host.name}: a password is needed and none was given")
        return {"password": password, "client_keys": None, "agent_path": None}
    raise TransportError(f"host {host.name}: not an SSH host")


async def _config_login(host: Host, secrets: SecretPrompt) -> Login:
    """An imported host's login: the agent (its keys first), then the identity files."""
    options = host.ssh
    socket_path = agent_path(options.identity_agent)
    login = Login()
    held: dict[bytes, asyncssh.SSHKeyPair] = {}
    if socket_path is not None:
        try:
            login.agent = await asyncssh.connect_agent(socket_path)
            held = {key.key_public_data: key for key in await login.agent.get_keys()}
        except (OSError, asyncssh.Error):
            login.close()
            held = {}
    keys: list[asyncssh.SSHKeyPair] = []
    for path in options.identity_files:
        in_agent = held.get(_public_data(path) or b"")
        if in_agent is not None:
            if options.identities_only:
                keys.append(in_agent)  # the agent's copy of a listed key
            continue  # otherwise the agent offers it anyway, before the files
        keys += _keypairs(host, path, options.certificate_files, secrets)
    login.options["client_keys"] = keys
    if options.identities_only or socket_path is None:
        login.options["agent_path"] = None
        if not any(isinstance(key, asyncssh.SSHAgentKeyPair) for key in keys):
            login.close()
    else:
        login.options["agent_path"] = socket_path
        login.close()
    return login


def _public_data(path: str) -> bytes | None:
    """The public key of a key file, from its ``.pub`` beside it (None when unreadable)."""
    try:
        return bytes(asyncssh.read_public_key(path + ".pub").public_data)
    except (OSError, ValueError, asyncssh.KeyImportError):
        return None


def agent_path(identity_agent: str | None) -> str | None:
    """The agent socket for an IdentityAgent value: None for ``none`` (no agent), the value
    of an environment variable for ``SSH_AUTH_SOCK`` or ``$NAME``, else the path itself."""
    if identity_agent is None:
        return os.environ.get(AGENT_SOCKET_VARIABLE)
    if identity_agent.lower() == "none":
        return None
    if identity_agent == AGENT_SOCKET_VARIABLE:
        return os.environ.get(AGENT_SOCKET_VARIABLE)
    if identity_agent.startswith("$"):
        return os.environ.get(identity_agent[1:])
    return identity_agent


def _keypairs(
    host: Host, path: str, certificates: tuple[str, ...], secrets: SecretPrompt
) -> list[asyncssh.SSHKeyPair]:
    """The key at ``path`` with its certificates; [] when ssh would skip it."""
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        return []
    certs = [c for c in certificates if os.path.isfile(c)]

    def load(passphrase: str | None) -> list[asyncssh.SSHKeyPair]:
        pairs = asyncssh.load_keypairs([path], passphrase, certs)
        return list(pairs)

    try:
        return load(None)
    except asyncssh.KeyImportError as exc:
        if "passphrase" not in str(exc).lower():
            return []
    except (OSError, ValueError):
        return []
    passphrase = secrets.passphrase(path)
    if passphrase is None:
        return []
    try:
        return load(passphrase)
    except (asyncssh.KeyImportError, OSError, ValueError) as exc:
        raise AuthFailedError(f"host {host.name}: wrong passphrase for key {path}") from exc


def load_key(host: Host, path: str, secrets: SecretPrompt) -> asyncssh.SSHKey:
    """The host's one key file, asking its passphrase when it needs one."""
    try:
        return asyncssh.read_private_key(path)
    except FileNotFoundError as exc:
        raise AuthFailedError(f"host {host.name}: key file {path} not found") from exc
    except OSError as exc:
        raise AuthFailedError(
            f"host {host.name}: cannot read key file {path}: {exc.strerror or exc}"
        ) from exc
    except asyncssh.KeyImportError as exc:
        if "passphrase" not in str(exc).lower():
            raise AuthFailedError(f"host {host.name}: cannot read key {path}: {exc}") from exc
    passphrase = secrets.passphrase(path)
    if passphrase is None:
        raise AuthFailedError(
            f"host {host.name}: key {path} needs its passphrase and none was given"
        )
    try:
        return asyncssh.read_private_key(path, passphrase)
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise AuthFailedError(f"host {host.name}: wrong passphrase for key {path}") from exc


def private_key_problem(data: bytes) -> str | None:
    """Why ``data`` is not a private key Pairbench can log in with; None when it is one.

    An encrypted key is one (its passphrase is asked when connecting).
    """
    text = data.lstrip()
    if text.startswith((b"ssh-", b"ecdsa-", b"sk-", b"---- BEGIN SSH2 PUBLIC KEY")):
        return "it is a public key; give the private key (usually the same name without .pub)"
    if text.startswith(b"-----BEGIN CERTIFICATE"):
        return "it is a certificate, not a private key"
    try:
        asyncssh.import_private_key(data)
    except asyncssh.KeyImportError as exc:
        reason = str(exc)
        if "passphrase" in reason.lower():
            return None
        if reason == "Invalid private key":
            return "it is not a private key in OpenSSH or PEM format"
        return f"it is not a private key Pairbench can read ({reason})"
    except (ValueError, TypeError) as exc:
        return f"it is not a private key Pairbench can read ({exc})"
    return None
