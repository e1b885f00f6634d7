"""The uperf 1.0.8 output forms: what each master option adds, the form's name, its gaps."""

from __future__ import annotations

from typing import Final

__all__ = [
    "NO_LATENCY_REASON",
    "NO_STATS_REASON",
    "SEEN_FLOWOP",
    "SEEN_GROUP",
    "SEEN_LOG",
    "SEEN_PROGRESS",
    "SEEN_RAW",
    "SEEN_RUN",
    "SEEN_STRAND",
    "SEEN_TXN",
    "form_name",
    "no_stats",
]

# What a master's output showed, as bits of one int (cheap to set on the hot path).
SEEN_RUN: Final = 1  # "Starting N threads running profile:NAME ..."
SEEN_RAW: Final = 2  # "timestamp_ms:... name:TxnN ..." interval lines (-R)
SEEN_PROGRESS: Final = 4  # "TxnN  BYTES / SECS(s) = RATE  OPSop/s" pieces (no -R)
SEEN_GROUP: Final = 8  # "Group Details" (-g, -a)
SEEN_STRAND: Final = 16  # "Strand Details" (-T, -a)
SEEN_TXN: Final = 32  # the "Txn  Count avg cpu max min" table (-t, -a)
SEEN_FLOWOP: Final = 64  # the "Flowop  Count avg ..." table (-f, -p, -a; -e on Solaris)
SEEN_LOG: Final = 128  # uperf's end-of-run log ("** Warning: ...") after "Starting"

_TABLES: Final = ((SEEN_GROUP, "-g"), (SEEN_STRAND, "-T"), (SEEN_TXN, "-t"), (SEEN_FLOWOP, "-f"))
_ALL_TABLES: Final = SEEN_GROUP | SEEN_STRAND | SEEN_TXN | SEEN_FLOWOP

NO_STATS_REASON: Final = "uperf -n prints no statistics: no intervals and no totals"
NO_LATENCY_REASON: Final = (
    "no Txn table (uperf -t or -a) and a profile whose flowops per iteration are unknown: "
    "no latency_avg_us"
)


def no_stats(seen: int, *, stats: bool, errors: bool) -> bool:
    """Whether the output is a -n run's: it started, printed no interval or total line
    (``stats`` False) and no error, and its end-of-run log came (a run cut short after
    "Starting" has no log yet)."""
    return not stats and not errors and seen & (SEEN_RUN | SEEN_LOG) == SEEN_RUN | SEEN_LOG


def form_name(seen: int, *, no_stats: bool = False) -> str:
    """The form ``seen`` shows: "text", then "-R" for raw lines, then the tables' options.

    "-a" stands for all four tables (-g -T -t -f). The default Netstat and Run Statistics
    tables are in every form but -n (``no_stats``: "text -n"). "" when nothing was uperf's.
    """
    if not seen:
        return ""
    if no_stats:
        return "text -n"
    parts = ["text"]
    if seen & SEEN_RAW:
        parts.append("-R")
    if seen & _ALL_TABLES == _ALL_TABLES:
        parts.append("-a")
    else:
        parts.extend(flag for bit, flag in _TABLES if seen & bit)
    return " ".join(parts)
