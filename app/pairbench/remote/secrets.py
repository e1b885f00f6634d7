"""Secrets for SSH logins: passwords in the OS keyring (or asked each time), key passphrases."""

from __future__ import annotations

from typing import Protocol

from pairbench.domain import Host

KEYRING_SERVICE = "pairbench"


class SecretPrompt(Protocol):
    """Asks the user for a secret; returns None when the user declines or cannot answer."""

    def passphrase(self, key_path: str) -> str | None: ...

    def password(self, host: Host, reason: str) -> str | None: ...


class NoPrompt:
    """For non-interactive use: never has a secret to give."""

    def passphrase(self, key_path: str) -> str | None:
        return None

    def password(self, host: Host, reason: str) -> str | None:
        return None


def keyring_account(host: Host) -> str:
    """The keyring account name for a host's password."""
    return f"{host.user or 'root'}@{host.address}:{host.port}"


def keyring_status() -> tuple[bool, str]:
    """Whether an OS keyring backend is usable, and if not, why (for the user)."""
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
    except Exception as exc:  # keyring may fail to import its backends
        return False, f"the OS keyring is unavailable ({type(exc).__name__})"
    if isinstance(backend, fail.Keyring):
        return False, (
            "no OS keyring is available on this system (common on headless Linux), "
            "so the password is asked at each connection and never stored"
        )
    return True, f"passwords are kept in the OS keyring ({type(backend).__name__})"


def stored_password(host: Host) -> str | None:
    """The host's password from the keyring, or None."""
    return stored_secret(keyring_account(host))


def store_password(host: Host, password: str) -> bool:
    """Keep a password in the keyring; False when no keyring is available."""
    return store_secret(keyring_account(host), password)


def forget_password(host: Host) -> None:
    """Remove a host's password from the keyring, if any."""
    forget_secret(keyring_account(host))


def stored_secret(account: str) -> str | None:
    """The secret kept in the OS keyring for ``account`` (a host's, a team server's), or
    None when there is none or no keyring."""
    available, _ = keyring_status()
    if not available:
        return None
    import keyring

    try:
        value = keyring.get_password(KEYRING_SERVICE, account)
    except Exception:
        return None
    return value if isinstance(value, str) else None


def store_secret(account: str, secret: str) -> bool:
    """Keep a secret in the OS keyring; False when no keyring is available."""
    available, _ = keyring_status()
    if not available:
        return False
    import keyring

    try:
        keyring.set_password(KEYRING_SERVICE, account, secret)
    except Exception:
        return False
    return True


def forget_secret(account: str) -> None:
    """Remove a secret from the OS keyring, if any."""
    available, _ = keyring_status()
    if not available:
        return
    import keyring

    try:
        keyring.delete_password(KEYRING_SERVICE, account)
    except Exception:
        return
