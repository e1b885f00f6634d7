"""Curves of a comparison chart that would hide each other: found, then told apart by dashes.

Two curves of different colours overlap when, over a quarter or more of the time both cover,
they lie within ``TOLERANCE`` of the drawn value range of each other (on a 96-dpi chart a few
pixels: one curve then hides the other there). The colours of overlapping curves get distinct
dash styles (the first keeps a solid line), every curve of a colour the same one, and the
chart says which overlap. Pure numpy: each curve is read on one grid of ``GRID`` instants.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pairbench.analysis.stats import FloatArray

DASHES = ("solid", "dash", "dot", "dashdot", "dashdotdot")
TOLERANCE = 0.015  # of the drawn value range
SHARE = 0.25  # of the common instants within the tolerance
GRID = 512


def _on_grid(t: FloatArray, v: FloatArray, grid: FloatArray) -> FloatArray:
    """``v`` at the grid's instants (NaN outside the curve's time or where it has none)."""
    keep = np.isfinite(t) & np.isfinite(v)
    t, v = t[keep], v[keep]
    if t.size < 2:
        return np.full(grid.size, np.nan)
    order = np.argsort(t, kind="stable")
    t, v = t[order], v[order]
    out = np.interp(grid, t, v)
    out[(grid < t[0]) | (grid > t[-1])] = np.nan
    return out


def overlapping_pairs(
    curves: Sequence[tuple[FloatArray, FloatArray]], value_span: float
) -> list[tuple[int, int]]:
    """Index pairs (i < j) of curves that lie on each other over the time both cover."""
    usable = [(t, v) for t, v in curves if t.size >= 2 and np.isfinite(t).any()]
    if len(usable) < 2 or not value_span > 0:
        return []
    lo = min(float(np.nanmin(t)) for t, _ in usable)
    hi = max(float(np.nanmax(t)) for t, _ in usable)
    if not hi > lo:
        return []
    grid = np.linspace(lo, hi, GRID)
    read = [_on_grid(t, v, grid) for t, v in curves]
    tolerance = TOLERANCE * value_span
    pairs: list[tuple[int, int]] = []
    for i in range(len(read)):
        for j in range(i + 1, len(read)):
            both = np.isfinite(read[i]) & np.isfinite(read[j])
            if both.sum() < 3:
                continue
            close = np.abs(read[i][both] - read[j][both]) <= tolerance
            if close.mean() >= SHARE:
                pairs.append((i, j))
    return pairs


def dash_styles(
    colors: Sequence[str], pairs: Sequence[tuple[int, int]]
) -> tuple[dict[str, str], list[list[str]]]:
    """A dash style per colour (``solid`` unless its curves overlap another colour's) and the
    overlapping colours, grouped, in order of first appearance."""
    linked: dict[str, set[str]] = {}
    for i, j in pairs:
        a, b = colors[i], colors[j]
        if a != b:
            linked.setdefault(a, set()).add(b)
            linked.setdefault(b, set()).add(a)
    order = list(dict.fromkeys(colors))
    styles = dict.fromkeys(order, DASHES[0])
    clusters: list[list[str]] = []
    seen: set[str] = set()
    for color in order:
        if color in seen or color not in linked:
            continue
        cluster, todo = [], [color]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            cluster.append(current)
            todo += sorted(linked[current] - seen, key=order.index)
        cluster.sort(key=order.index)
        for k, member in enumerate(cluster):
            styles[member] = DASHES[k % len(DASHES)]
        clusters.append(cluster)
    return styles, clusters
