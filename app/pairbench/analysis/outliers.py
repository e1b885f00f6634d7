"""Outlier policies for groups of repeats: none, beyond k×IQR, beyond k×MAD; discards listed.

A policy never drops a value silently: ``find_outliers`` returns the kept positions and each
discarded one with its value and the reason (which fence it crossed). Conventions:

- ``iqr[:k]`` (Tukey's fences, k = 1.5 by default): outside [Q1 − k·IQR, Q3 + k·IQR], with
  the quartiles by linear interpolation (numpy's default percentile method).
- ``mad[:k]`` (k = 3 by default): farther than k·MAD from the median, with the MAD scaled by
  1/Φ⁻¹(3/4) ≈ 1.4826 so that it estimates the standard deviation of normal data.
- Fewer than ``MIN_RUNS`` values, or a spread (IQR or MAD) of zero, discards nothing: the
  note says so. (With a zero spread every value off the majority would be "infinitely" far.)
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from pairbench.analysis.stats import FloatArray, as_values
from pairbench.analysis.tdist import norm_ppf

MIN_RUNS = 3
DEFAULT_IQR_K = 1.5
DEFAULT_MAD_K = 3.0
MAD_SCALE = 1.0 / norm_ppf(0.75)  # 1.482602218505602


class OutlierMethod(enum.StrEnum):
    """How outliers are recognised."""

    NONE = "none"
    IQR = "iqr"
    MAD = "mad"


@dataclass(frozen=True, slots=True)
class OutlierPolicy:
    """A method and its multiplier k; ``parse("mad:2.5")``, ``str()`` gives it back."""

    method: OutlierMethod = OutlierMethod.NONE
    k: float = 0.0

    @classmethod
    def parse(cls, text: str) -> OutlierPolicy:
        """``none``, ``iqr``, ``iqr:K``, ``mad`` or ``mad:K`` (K a positive number)."""
        name, sep, k_text = text.strip().lower().partition(":")
        try:
            method = OutlierMethod(name)
        except ValueError:
            raise ValueError(
                f"unknown outlier policy {text!r}: use none, iqr, iqr:K, mad or mad:K"
            ) from None
        if method is OutlierMethod.NONE:
            if sep:
                raise ValueError("the outlier policy 'none' takes no multiplier")
            return cls()
        default = DEFAULT_IQR_K if method is OutlierMethod.IQR else DEFAULT_MAD_K
        if not sep:
            return cls(method, default)
        try:
            k = float(k_text)
        except ValueError:
            raise ValueError(f"the multiplier in {text!r} is not a number") from None
        if not (math.isfinite(k) and k > 0):
            raise ValueError(f"the multiplier in {text!r} must be a positive number")
        return cls(method, k)

    def __str__(self) -> str:
        if self.method is OutlierMethod.NONE:
            return "none"
        return f"{self.method.value}:{self.k:g}"

    def describe(self) -> str:
        """The rule in words, e.g. "beyond 3×MAD from the median"."""
        if self.method is OutlierMethod.NONE:
            return "none (every run kept)"
        if self.method is OutlierMethod.IQR:
            return f"beyond {self.k:g}×IQR outside the quartiles"
        return f"beyond {self.k:g}×MAD from the median (MAD scaled to σ)"


NO_POLICY = OutlierPolicy()


@dataclass(frozen=True, slots=True)
class Discard:
    """One discarded value: its position in the input, the value and why."""

    index: int
    value: float
    reason: str


@dataclass(frozen=True, slots=True)
class OutlierResult:
    """What a policy kept and discarded; ``low``/``high`` are the fences (None: no fences)."""

    policy: OutlierPolicy
    kept: tuple[int, ...]
    discarded: tuple[Discard, ...]
    low: float | None = None
    high: float | None = None
    note: str = ""

    def kept_values(self, values: Iterable[float] | FloatArray) -> FloatArray:
        """The kept ones of ``values`` (the same values the policy judged)."""
        return np.asarray(list(values) if not isinstance(values, np.ndarray) else values)[
            list(self.kept)
        ]


def find_outliers(
    values: Iterable[float] | FloatArray, policy: OutlierPolicy = NO_POLICY
) -> OutlierResult:
    """Apply ``policy`` to ``values`` (finite numbers only)."""
    x = as_values(values)
    everything = tuple(range(x.size))
    if policy.method is OutlierMethod.NONE:
        return OutlierResult(policy, everything, ())
    if x.size < MIN_RUNS:
        return OutlierResult(
            policy, everything, (), note=f"fewer than {MIN_RUNS} runs: no outlier can be judged"
        )
    if policy.method is OutlierMethod.IQR:
        q1, q3 = (float(q) for q in np.percentile(x, [25.0, 75.0]))
        spread = q3 - q1
        low, high = q1 - policy.k * spread, q3 + policy.k * spread
        names = (f"Q1 − {policy.k:g}×IQR", f"Q3 + {policy.k:g}×IQR")
        zero = "the interquartile range is 0: nothing discarded"
    else:
        median = float(np.median(x))
        spread = MAD_SCALE * float(np.median(np.abs(x - median)))
        low, high = median - policy.k * spread, median + policy.k * spread
        names = (f"median − {policy.k:g}×MAD", f"median + {policy.k:g}×MAD")
        zero = "the MAD is 0 (most values identical): nothing discarded"
    if spread == 0.0:
        return OutlierResult(policy, everything, (), note=zero)
    kept: list[int] = []
    discarded: list[Discard] = []
    for i, value in enumerate(x.tolist()):
        if value < low:
            discarded.append(Discard(i, value, f"below {names[0]} = {low:.6g}"))
        elif value > high:
            discarded.append(Discard(i, value, f"above {names[1]} = {high:.6g}"))
        else:
            kept.append(i)
    return OutlierResult(policy, tuple(kept), tuple(discarded), low, high)
