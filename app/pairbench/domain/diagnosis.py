"""A run's verdict: what limited it, on which host, and the evidence (``analysis/diagnosis.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

# The analysis kind a verdict is stored under (``library/analyses.py``).
DIAGNOSIS_KIND: Final = "diagnosis"

# What can limit a network run, and a storage run (fio).
NETWORK_LIMITS: Final = ("network", "cpu", "receive-buffer", "window", "rate", "unknown")
STORAGE_LIMITS: Final = ("device", "cpu", "rate", "unknown")
LIMITS: Final = tuple(dict.fromkeys(NETWORK_LIMITS + STORAGE_LIMITS))
HOSTS: Final = ("client", "server")


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """``limit`` (one of ``LIMITS``), the ``host`` it sits on ("client", "server" or None),
    and ``evidence``: sentences a reader checks it by, the decisive one first."""

    limit: str
    host: str | None = None
    evidence: tuple[str, ...] = ()

    def payload(self) -> dict[str, Any]:
        """The JSON shape: ``{"limit", "host", "evidence": [...]}``."""
        return {"limit": self.limit, "host": self.host, "evidence": list(self.evidence)}

    def label(self) -> str:
        """ "cpu (server)", "network", "unknown": a table cell."""
        return f"{self.limit} ({self.host})" if self.host else self.limit

    def sentence(self) -> str:
        """One line for a summary: "Limited by cpu on the server: server core 1: 98 % busy"."""
        where = f" on the {self.host}" if self.host else ""
        head = "Limit unknown" if self.limit == "unknown" else f"Limited by {self.limit}{where}"
        return f"{head}: {self.evidence[0]}" if self.evidence else head


def from_payload(data: Mapping[str, Any] | None) -> Diagnosis | None:
    """The inverse of ``Diagnosis.payload``; None for what is none (a damaged analysis)."""
    if not isinstance(data, Mapping):
        return None
    limit = data.get("limit")
    host = data.get("host")
    evidence = data.get("evidence") or []
    if not isinstance(limit, str) or limit not in LIMITS:
        return None
    if host is not None and host not in HOSTS:
        host = None
    if not isinstance(evidence, list):
        evidence = []
    return Diagnosis(limit, host, tuple(str(e) for e in evidence))


@dataclass(frozen=True, slots=True)
class Target:
    """A rate the tool was told to keep: ``value`` of ``metric`` (the summary's), ``setting``
    as the user gave it ("bitrate=50M")."""

    metric: str
    value: float
    setting: str
