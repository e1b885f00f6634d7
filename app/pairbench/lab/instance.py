"""Which lab a process manages: the default one, or a separate instance chosen by
``PAIRBENCH_LAB_INSTANCE`` (its own names, addresses, state directories and lock).

Unset (or ``0``), everything is the lab a user knows: namespaces ``pbl-…``, addresses in
10.213.0.0/16 (the multi-pair lab 10.214.0.0/16), state in ``/run/pairbench-lab`` and
``/run/pairbench-lab-pairs``, lock ``pairbench-lab``. Instance K (1 … ``MAX_INSTANCE``) is
another lab that can be up at the same time and shares nothing with the default one or with
another instance: namespaces and root links ``pblK-…``, addresses 10.(213+2K).0.0/16 and
10.(214+2K).0.0/16, state in ``/run/pairbench-iK/lab`` and ``/run/pairbench-iK/pairs``, lock
``pairbench-lab.iK``. The test suite gives each of its parallel workers one.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pairbench.lab.errors import LabError

ENV = "PAIRBENCH_LAB_INSTANCE"
MAX_INSTANCE = 20
DEFAULT_PREFIX = "pbl-"
_FIRST_OCTET = 10
_LAB_OCTET = 213  # the default lab's 10.213.0.0/16; its multi-pair lab is the next /16


@dataclass(frozen=True, slots=True)
class LabInstance:
    """One lab's share of the machine (``number`` 0: the default lab)."""

    number: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.number <= MAX_INSTANCE:
            raise LabError(f"{ENV} must be a number 0 to {MAX_INSTANCE}, got {self.number}")

    @property
    def prefix(self) -> str:
        """What every namespace and root link of this lab starts with: ``pbl-``, ``pbl3-``."""
        return DEFAULT_PREFIX if self.number == 0 else f"pbl{self.number}-"

    @property
    def lab_network(self) -> ipaddress.IPv4Network:
        """The single lab's address space (10.213.0.0/16 for the default lab)."""
        return self._network(0)

    @property
    def multi_network(self) -> ipaddress.IPv4Network:
        """The multi-pair lab's address space (10.214.0.0/16 for the default lab)."""
        return self._network(1)

    def _network(self, offset: int) -> ipaddress.IPv4Network:
        octet = _LAB_OCTET + 2 * self.number + offset
        return ipaddress.IPv4Network(f"{_FIRST_OCTET}.{octet}.0.0/16")

    @property
    def state_root(self) -> Path:
        """The single lab's state directory."""
        return self._run_dir("lab", "pairbench-lab")

    @property
    def multi_root(self) -> Path:
        """The directory holding the multi-pair lab's per-pair state directories."""
        return self._run_dir("pairs", "pairbench-lab-pairs")

    @property
    def run_dir(self) -> Path | None:
        """The directory holding an instance's state directories (None: the default lab's
        are directly in /run)."""
        return None if self.number == 0 else Path("/run") / f"pairbench-i{self.number}"

    def _run_dir(self, name: str, default: str) -> Path:
        # An instance's directories share no prefix with the default lab's (a search for
        # "/run/pairbench-lab" in command lines finds only the default lab's processes).
        return Path("/run") / default if self.run_dir is None else self.run_dir / name

    @property
    def lock_name(self) -> str:
        """The name of the lock every ``lab`` command of this lab holds."""
        return "pairbench-lab" if self.number == 0 else f"pairbench-lab.i{self.number}"

    def describe(self) -> str:
        """``the lab`` or ``lab instance 3`` (for messages)."""
        return "the lab" if self.number == 0 else f"lab instance {self.number}"


def current(environ: Mapping[str, str] | None = None) -> LabInstance:
    """The instance ``PAIRBENCH_LAB_INSTANCE`` names (unset or empty: the default lab);
    ``LabError`` with a one-line reason for anything but a number 0 … ``MAX_INSTANCE``."""
    env = os.environ if environ is None else environ
    text = env.get(ENV, "").strip()
    if not text:
        return LabInstance()
    if not text.isdigit() or not text.isascii():
        raise LabError(f"{ENV} must be a number 0 to {MAX_INSTANCE}, got {text!r}")
    return LabInstance(int(text))
