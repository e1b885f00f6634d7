"""How a host logs in: its key, its password, or the agent's keys and its identity files.

A host imported from an OpenSSH config logs in as ssh would: the agent's keys first (not with
IdentitiesOnly, nor with IdentityAgent none), then each identity file in order, each with its
certificate (``KEY-cert.pub``, or a CertificateFile that matches it). A file that is missing or
unreadable is skipped, as ssh skips it; an encrypted one is asked for its passphrase and
skipped when none is given.
"""

from __future__ import annotations

import os

import asyncssh

from pairbench.domain import AuthMethod, Host
from pairbench.domain.failures import AuthFailedError, TransportError
from pairbench.remote.secrets import SecretPrompt, stored_password

AGENT_SOCKET_VARIABLE = "SSH_AUTH_SOCK"


def auth_options(host: Host, secrets: SecretPrompt) -> dict[str, object]:
    """asyncssh's login options for ``host`` (``AuthFailedError`` when it cannot log in)."""
    if host.auth is AuthMethod.AGENT:
        return _agent_options(host, secrets)
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


def _agent_options(host: Host, secrets: SecretPrompt) -> dict[str, object]:
    options = host.ssh
    if not options.identity_files and options.identity_agent is None:
        return {}  # a host added by hand: asyncssh's defaults (agent, ~/.ssh/id_*)
    agent = agent_path(options.identity_agent)
    result: dict[str, object] = {}
    if options.identities_only or agent is None:
        result["agent_path"] = None
    elif options.identity_agent is not None:
        result["agent_path"] = agent
    keys: list[asyncssh.SSHKeyPair] = []
    for path in options.identity_files:
        keys += _keypairs(host, path, options.certificate_files, secrets)
    if options.identity_files:
        result["client_keys"] = keys
    return result


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
