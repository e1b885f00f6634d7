"""The bundle under test and how to run it (used by the fixtures and tests in tests/bundle)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BundleUnderTest:
    """An unpacked bundle and a clean environment to run it in."""

    directory: Path

    @property
    def executable(self) -> Path:
        return self.directory / "pairbench"

    def env(self, home: Path, **extra: str) -> dict[str, str]:
        """A minimal environment: no venv, no PYTHON* variables, a private HOME."""
        env = {
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "PAIRBENCH_SETTINGS": str(home / "settings.ini"),
            # Were the bundle to fall back to a Python on the machine, this would break it.
            "PYTHONPATH": "/nonexistent",
            "PYTHONHOME": "/nonexistent",
        }
        env.update(extra)
        return env

    def run(
        self, *args: str, home: Path, timeout: float = 120, **extra: str
    ) -> subprocess.CompletedProcess[str]:
        """Run the bundled ``pairbench ARGS`` to completion."""
        return subprocess.run(
            [str(self.executable), *args],
            env=self.env(home, **extra),
            cwd=home,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
