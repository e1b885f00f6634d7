"""One colour per block size, the same in every storage plot and legend."""

from __future__ import annotations

from pairbench.domain.storage import IOPS_BLOCK_SIZES
from pairbench.ui.plotting.live_plot import PALETTE

# Every block size of the suite (the iops test has them all), in PTS order.
_COLORS = {bs: PALETTE[i % len(PALETTE)] for i, bs in enumerate(IOPS_BLOCK_SIZES)}
FALLBACK = "#555555"


def bs_color(bs: str) -> str:
    """The colour of block size ``bs`` ("1m", "128k", ..., "512")."""
    return _COLORS.get(bs, FALLBACK)


def legend_html(entries: list[tuple[str, str]]) -> str:
    """A legend as one line of rich text: a coloured swatch then the name, per entry
    (drawn under a plot, never over its data)."""
    parts = [
        f'<nobr><span style="color:{color}; font-size:14px">&#9632;</span>&nbsp;{name}</nobr>'
        for name, color in entries
    ]
    return "&nbsp;&nbsp; ".join(parts)  # a line may break between entries only
