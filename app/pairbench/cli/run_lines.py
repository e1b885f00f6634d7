"""How a run reads in a terminal list (``runs list``, ``runs list --team``): its time, its key
figure."""

from __future__ import annotations

from pairbench.domain import Run

# The figure ``runs list`` shows of a run: the first of these its summary has.
_KEY_METRICS = ("throughput_bps", "rtt_avg_ms", "latency_avg_us", "read_iops", "write_iops")


def when_text(timestamp: float) -> str:
    """A run's time as ``runs list``/``show`` print it; "(invalid time)" for a stored value
    no calendar shows (a library written by an older or hostile program)."""
    from pairbench.domain.timestamps import time_text

    return time_text(timestamp)


def key_metric(run: Run) -> str:
    """The run's key figure, formatted ("" when its summary has none of ``_KEY_METRICS``)."""

    # Imported where used (here and in ``_show_lines``): `runs list --json` needs no units.
    from pairbench.domain.units import format_value

    for name in _KEY_METRICS:
        if name in run.summary:
            return format_value(name, run.summary[name])
    return ""
