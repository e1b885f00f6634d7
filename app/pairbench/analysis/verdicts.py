"""Verdicts of several runs as one cell: what limited a group of a comparison or a campaign."""

from __future__ import annotations

from collections.abc import Iterable

from pairbench.domain.diagnosis import Diagnosis


def limited_by(verdicts: Iterable[Diagnosis | None]) -> str:
    """One verdict ("cpu (client)"), or each with its count, most frequent first
    ("network ×2, cpu (server) ×1"); "" when no run has one."""
    return count_labels(v.label() for v in verdicts if v is not None)


def count_labels(labels: Iterable[str]) -> str:
    """``limited_by`` of verdict labels ("" ones are runs without a verdict)."""
    counts: dict[str, int] = {}
    for label in labels:
        if label:
            counts[label] = counts.get(label, 0) + 1
    if len(counts) <= 1:
        return next(iter(counts), "")
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    return ", ".join(f"{label} ×{n}" for label, n in ranked)
