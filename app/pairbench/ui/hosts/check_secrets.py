"""The passwords and key passphrases a pair check asks for, kept for that check's re-runs only."""

from __future__ import annotations

from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget

from pairbench.services.pair_check import CheckReport, GivenSecrets


class CheckSecrets:
    """Asks what a check lacked; forgotten at the next check (without a keyring: asked each
    time)."""

    def __init__(self, parent: QWidget) -> None:
        self.parent = parent
        self.passwords: dict[str, str] = {}  # host name → password
        self.passphrases: dict[str, str] = {}  # key path → passphrase

    def given(self) -> GivenSecrets:
        return GivenSecrets(self.passwords, self.passphrases)

    def forget(self) -> None:
        self.passwords.clear()
        self.passphrases.clear()

    def ask_missing(self, report: CheckReport, *, without_keyring: bool) -> bool:
        """Ask the passwords and passphrases the check needed; True when all were given."""
        asked = False
        for host in report.needs_password:
            if host.name in self.passwords:
                return False  # given and still refused: show the result
            where = (
                "No OS keyring is available, so it is asked each time and never stored."
                if without_keyring
                else "No password is stored in the OS keyring for this host."
            )
            secret = self._ask(
                "Password",
                f"Password for {host.user or 'root'}@{host.address} ({host.name}).\n{where}",
            )
            if secret is None:
                return False
            self.passwords[host.name] = secret
            asked = True
        for key_path in report.needs_passphrase:
            if key_path in self.passphrases:
                return False
            secret = self._ask("Key passphrase", f"Passphrase for key {key_path}:")
            if secret is None:
                return False
            self.passphrases[key_path] = secret
            asked = True
        return asked

    def _ask(self, title: str, label: str) -> str | None:
        text, ok = QInputDialog.getText(self.parent, title, label, QLineEdit.EchoMode.Password)
        return text if ok and text else None
