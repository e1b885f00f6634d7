"""A team run's series assembled from the rows the server sent (its times stored once per
distinct axis, as in the local library), as ``library.series.load_series`` gives them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from pairbench.library.series import SeriesArrays


def assemble(
    meta: Sequence[Sequence[Any]],
    times: dict[int, bytes],
    chunks: dict[int, list[tuple[int, bytes]]],
) -> list[SeriesArrays]:
    """Series (id, stream, metric, unit) with their chunks' values in order, each on the
    time axis its chunks name (an axis shared by several series is decoded once)."""
    # numpy: not needed to list runs
    from pairbench.library.series import SeriesArrays, _concat

    axes: dict[tuple[int, ...], npt.NDArray[np.float64]] = {}
    out: list[SeriesArrays] = []
    for series_id, stream, metric, unit in meta:
        parts = chunks.get(series_id, [])
        axis = tuple(p[0] for p in parts)
        t = axes.get(axis)
        if t is None:
            t = axes[axis] = _concat([times[i] for i in axis])
        out.append(SeriesArrays(stream, metric, unit, t, _concat([p[1] for p in parts])))
    return out
