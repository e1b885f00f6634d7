"""Asking for secrets on the terminal (never echoed, never stored by this module)."""

from __future__ import annotations

import getpass
import sys

from pairbench.domain import Host


class TerminalPrompt:
    """Asks on the controlling terminal; without one, has nothing to give."""

    def _ask(self, question: str) -> str | None:
        if not sys.stdin.isatty():
            return None
        try:
            return getpass.getpass(question)
        except (EOFError, KeyboardInterrupt):
            return None

    def passphrase(self, key_path: str) -> str | None:
        return self._ask(f"Passphrase for key {key_path}: ")

    def password(self, host: Host, reason: str) -> str | None:
        return self._ask(f"Password for {host.user or 'root'}@{host.address} ({reason}): ")
