"""Incremental parser for nuttcp 6.1.2 output: brief text, ``-fparse`` and ``-v`` (DESIGN §3)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from pairbench.domain import Record, Summary
from pairbench.tools.base import ParseError
from pairbench.tools.feed import feed_text

__all__ = [
    "TCP_INTERVAL",
    "THROUGHPUT_ONLY",
    "UDP_INTERVAL",
    "NuttcpTextParser",
    "parse_text_output",
]

# nuttcp never prints more than ~250 characters per line (``-frunningtotal -fxmitstats`` UDP);
# a longer line is not nuttcp's: skipped, or a ParseError when it claims to be a report.
MAX_LINE: Final = 4096

_THR: Final = "throughput_bps"
_RETR: Final = "retransmits"
_LOST: Final = "lost_packets"
_PKTS: Final = "packets"
_LOSTPCT: Final = "lost_percent"

# The metrics of each kind of interval report, one constant tuple each (the recorder keys on it).
TCP_INTERVAL: Final[tuple[str, ...]] = (_THR, _RETR)  # "... Mbps     0 retrans"
UDP_INTERVAL: Final[tuple[str, ...]] = (_THR, _LOST, _PKTS, _LOSTPCT)  # "... ~drop/pkt ... ~%loss"
UDP_DROPS: Final[tuple[str, ...]] = (_THR, _LOST, _PKTS)  # -f-percentloss
UDP_LOSS: Final[tuple[str, ...]] = (_THR, _LOSTPCT)  # -f-drops
THROUGHPUT_ONLY: Final[tuple[str, ...]] = (_THR,)  # -N > 1, -f-retrans

# One brief report line, interval or final, in one pass:
#   " 1091.3750 MB /   1.00 sec = 9154.5586 Mbps     0 retrans"
#   "   11.9215 MB /   1.00 sec =  100.0010 Mbps     0 /  8929 ~drop/pkt  0.00 ~%loss"
#   " 8132.7500 MB /   5.00 sec = 13645.7266 Mbps 72 %TX 36 %RX 0 retrans 0.13 msRTT"
#   "   59.6048 MB /   5.00 sec =  100.0004 Mbps 98 %TX 7 %RX 0 / 44643 drop/pkt 0.00 %loss"
# Optional fields come in nuttcp's order; "-frunningtotal" and "-fxmitstats" append "Tot: ..."
# and "Trans: ..." parts, which are ignored; "-I id" prefixes "id: ". Whitespace runs are
# possessive and numbers are bounded, so a failed match is linear and every int() is small.
_REPORT_RE: Final = re.compile(
    r"(?:[^ :]{1,40}+: )?"  # -I identifier
    r" *+([0-9]{1,15}+\.[0-9]{1,9}+) MB / *+([0-9]{1,9}+\.[0-9]{2}+) sec"  # 1 MB, 2 seconds
    r" = *+([0-9]{1,15}+\.[0-9]{1,9}+) Mbps"  # 3 rate
    r"(?: ++([0-9]{1,4}+) %TX ++([0-9]{1,4}+) %RX)?"  # 4, 5: CPU (final line only)
    r"(?: ++([0-9]{1,15}+) retrans)?"  # 6
    r"(?: ++([0-9]{1,15}+) / ++([0-9]{1,15}+) (~?)drop/pkt)?"  # 7, 8, 9
    r"(?: ++([0-9]{1,9}+\.[0-9]{1,9}+) (~?)%loss)?"  # 10, 11
    r"(?: ++([0-9]{1,9}+\.[0-9]{1,9}+) msRTT)?"  # 12
    r"(?: ++(?:Tot|Trans):.*+)? *+[\r\n]*+\Z"
)
_MATCH: Final = _REPORT_RE.match
# A line that claims to be a brief report; one that then does not match _REPORT_RE: ParseError.
_REPORT_PREFIX_RE: Final = re.compile(r"(?:[^ :]{1,40}: )? *[0-9.]+ MB / *[0-9.]+ sec =")
# -v summaries: "nuttcp-r: 4601.1250 MB in 3.00 real seconds = 1570553.98 KB/sec = 12865.9782 Mbps"
_VERBOSE_RE: Final = re.compile(
    r"nuttcp-([tr]): ([0-9]{1,15}+\.[0-9]{1,9}+) MB in ([0-9]{1,9}+\.[0-9]{1,9}+) real seconds"
    r" = [0-9.]++ KB/sec = ([0-9]{1,15}+\.[0-9]{1,9}+) Mbps"
)
_VERBOSE_RETRANS_RE: Final = re.compile(r"nuttcp-[tr]: retrans = ([0-9]{1,15}+)")
_VERBOSE_CPU_RE: Final = re.compile(
    r"nuttcp-([tr]): [0-9.]++user [0-9.]++sys [0-9:.]++real ([0-9]{1,4}+)%"
)
_FPARSE_TOKEN_RE: Final = re.compile(r"[A-Za-z_]{1,32}+=[^ =]{1,40}+")
_SECONDS_RE: Final = re.compile(r"[0-9]{1,9}\.[0-9]{1,9}")
# A -fparse number: a plain decimal as in the brief reports, so that every value (and every sum
# or ratio of them) is finite; "1e308", "inf" or "nan" is not nuttcp's (ParseError).
_FPARSE_NUMBER_RE: Final = re.compile(r"[-+]?[0-9]{1,15}+(?:\.[0-9]{1,9}+)?")

# -fparse keys whose value is a count (int) or a decimal (float); others are left as text.
_FPARSE_NUMBERS: Final = frozenset(
    {"megabytes", "real_sec", "real_seconds", "rate_Mbps", "retrans", "drop", "pkt"}
    | {"data_loss", "tx_cpu", "rx_cpu", "rtt_ms"}
)

# -fparse final-report keys and the summary values they give.
_FPARSE_FINAL: Final[dict[str, str]] = {
    "retrans": _RETR,
    "drop": _LOST,
    "pkt": _PKTS,
    "data_loss": _LOSTPCT,
    "rtt_ms": "rtt_ms",
    "tx_cpu": "tx_cpu_percent",
    "rx_cpu": "rx_cpu_percent",
}

_new_record: Final[
    Callable[[type[Record], tuple[str, float, tuple[str, ...], tuple[float, ...]]], Record]
] = tuple.__new__

# A parsed final report: the summary values nuttcp printed.
_Final = dict[str, float]


class NuttcpTextParser:
    """Parser for nuttcp 6.1.2 client output (``nuttcp -i 1 -T N ... host``).

    Records, stream ``"sum"`` (nuttcp reports the aggregate of all ``-N`` streams), one per
    interval report, metrics by kind: TCP ``throughput_bps, retransmits``; UDP
    ``throughput_bps, lost_packets, packets, lost_percent`` (the interval figures nuttcp marks
    ``~`` as approximate); ``throughput_bps`` alone with ``-N`` > 1 (nuttcp prints no retrans
    then). Throughput is nuttcp's Mbps as printed (10^6 bit/s, the float of the printed digits
    with ``e6``). ``t`` is the sum of the printed interval lengths so far (1.00 s each with
    ``-i 1``), counted in hundredths so it is exact. nuttcp folds the last, partial interval
    into its final report: ``-T 5 -i 1`` usually gives only 4 interval lines (sometimes all 5;
    on loopback ``-T 3`` gave 2 or 3), so the series ends up to one interval before the run
    does; the final report's figures cover the whole run and go into the summary only.

    The brief text, ``-fparse`` (``key=value``; per line, so either works; a key repeated by
    ``-frunningtotal`` keeps its first, per-interval value) and ``-v`` output are all read.

    Summary: from the final report (after the blank line) exactly as printed:
    ``throughput_bps``, TCP ``retransmits`` and ``rtt_ms`` (``msRTT``), UDP ``lost_packets``,
    ``packets`` and ``lost_percent``, and ``tx_cpu_percent``/``rx_cpu_percent``. With ``-v``
    there is no brief final report: ``throughput_bps`` is the receiver's (``nuttcp-r:``)
    ``... real seconds = ... Mbps`` line, ``retransmits`` the ``nuttcp-t: retrans =`` line.
    ``complete`` means the final report (or, with ``-v``, the receiver's line) was seen;
    without it the summary is the time-weighted mean throughput and summed counters of the
    intervals. ``error`` is the text after ``Error: `` in a ``nuttcp-t:``/``nuttcp-r:`` line,
    e.g. ``connect: Connection refused``; warnings and info lines are ignored.
    """

    __slots__ = (
        "_bits",
        "_error",
        "_final",
        "_hundredths",
        "_lost",
        "_pkts",
        "_retr",
        "_verbose",
    )

    def __init__(self) -> None:
        self._hundredths = 0  # t of the last interval, in 1/100 s
        self._bits = 0.0  # sum of rate * seconds over the intervals
        self._retr: float | None = None
        self._lost: float | None = None
        self._pkts: float | None = None
        self._final: _Final | None = None
        self._verbose: dict[str, float] = {}
        self._error: str | None = None

    def feed(self, line: str) -> list[Record]:
        """Parse one line; returns the record of an interval report, else nothing."""
        m = _MATCH(line)
        if m is not None and len(line) <= MAX_LINE:
            return self._report(m)
        return self._feed_other(line)

    def _report(self, m: re.Match[str]) -> list[Record]:
        _, sec_s, rate_s, tx, rx, retr, drop, pkt, _, loss, _, rtt = m.groups()
        rate = float(rate_s + "e6")
        if tx is not None:  # the final report
            final: _Final = {_THR: rate}
            final["tx_cpu_percent"] = float(tx)
            final["rx_cpu_percent"] = float(rx)
            if retr is not None:
                final[_RETR] = float(retr)
            if drop is not None:
                final[_LOST] = float(drop)
                final[_PKTS] = float(pkt)
            if loss is not None:
                final[_LOSTPCT] = float(loss)
            if rtt is not None:
                final["rtt_ms"] = float(rtt)
            self._final = final
            return []
        values: tuple[float, ...]
        if retr is not None:
            n = float(retr)
            self._retr = (self._retr or 0.0) + n
            metrics, values = TCP_INTERVAL, (rate, n)
        elif drop is not None:
            lost, total = float(drop), float(pkt)
            self._lost = (self._lost or 0.0) + lost
            self._pkts = (self._pkts or 0.0) + total
            if loss is not None:
                metrics, values = UDP_INTERVAL, (rate, lost, total, float(loss))
            else:
                metrics, values = UDP_DROPS, (rate, lost, total)
        elif loss is not None:
            metrics, values = UDP_LOSS, (rate, float(loss))
        else:
            metrics, values = THROUGHPUT_ONLY, (rate,)
        # The seconds are "%6.2f": "1.00" is 100 hundredths.
        return self._interval(int(sec_s.replace(".", "")), rate, metrics, values)

    def _interval(
        self, step: int, rate: float, metrics: tuple[str, ...], values: tuple[float, ...]
    ) -> list[Record]:
        """An interval report ``step`` hundredths of a second long."""
        if step <= 0:
            return []  # a zero-length report: no time passed, nothing to plot
        self._hundredths += step
        self._bits += rate * (step / 100)
        return [_new_record(Record, ("sum", self._hundredths / 100, metrics, values))]

    def _feed_other(self, line: str) -> list[Record]:
        if len(line) > MAX_LINE:
            if _REPORT_PREFIX_RE.match(line[:200]) or line.startswith("megabytes="):
                raise ParseError(f"nuttcp: line of {len(line)} characters: {line[:200]!r}")
            return []
        line = line.rstrip("\r\n")
        if "=" in line and "rate_Mbps=" in line:
            return self._fparse(line)
        if line.startswith("nuttcp"):
            self._nuttcp_line(line)
            return []
        if _REPORT_PREFIX_RE.match(line) is not None:
            raise ParseError(f"nuttcp: malformed report line: {line[:200]!r}")
        return []  # blank lines, "errno=111", "ignoring interval=...", anything else

    def _fparse(self, line: str) -> list[Record]:
        """A ``-fparse`` line: ``megabytes=... real_sec=... rate_Mbps=... retrans=...``."""
        kv: dict[str, str] = {}
        for token in line.split():
            if _FPARSE_TOKEN_RE.fullmatch(token) is None:
                raise ParseError(f"nuttcp: malformed -fparse line: {line[:200]!r}")
            key, _, value = token.partition("=")
            kv.setdefault(key, value)  # -frunningtotal repeats drop= and pkt=: keep the first
        try:
            nums = {k: _fparse_number(v) for k, v in kv.items() if k in _FPARSE_NUMBERS}
            rate = float(kv["rate_Mbps"] + "e6")
            if "real_seconds" in kv:  # the final report
                final: _Final = {_THR: rate}
                for key, name in _FPARSE_FINAL.items():
                    if key in nums:
                        final[name] = nums[key]
                self._final = final
                return []
            sec_s = kv["real_sec"]
            if _SECONDS_RE.fullmatch(sec_s) is None:
                raise ValueError(sec_s)
            whole, _, frac = sec_s.partition(".")
            step = int(whole) * 100 + int(frac[:2].ljust(2, "0"))  # in hundredths, truncated
        except (KeyError, ValueError) as exc:
            raise ParseError(f"nuttcp: malformed -fparse line: {line[:200]!r}") from exc
        values: tuple[float, ...]
        if "retrans" in nums:
            n = nums["retrans"]
            self._retr = (self._retr or 0.0) + n
            metrics, values = TCP_INTERVAL, (rate, n)
        elif "drop" in nums and "pkt" in nums:
            lost, total = nums["drop"], nums["pkt"]
            self._lost = (self._lost or 0.0) + lost
            self._pkts = (self._pkts or 0.0) + total
            if "data_loss" in nums:
                metrics, values = UDP_INTERVAL, (rate, lost, total, nums["data_loss"])
            else:
                metrics, values = UDP_DROPS, (rate, lost, total)
        elif "data_loss" in nums:
            metrics, values = UDP_LOSS, (rate, nums["data_loss"])
        else:
            metrics, values = THROUGHPUT_ONLY, (rate,)
        return self._interval(step, rate, metrics, values)

    def _nuttcp_line(self, line: str) -> None:
        """``nuttcp-t: ...`` / ``nuttcp-r: ...``: errors and the ``-v`` summaries."""
        at = line.find("Error: ")
        if at >= 0:
            if self._error is None:
                self._error = line[at + 7 :].strip() or line.strip()
            return
        m = _VERBOSE_RE.match(line)
        if m is not None:
            side, _, _, rate_s = m.groups()
            self._verbose[f"{side}:{_THR}"] = float(rate_s + "e6")
            return
        m = _VERBOSE_RETRANS_RE.match(line)
        if m is not None:
            self._verbose[_RETR] = float(m.group(1))
            return
        m = _VERBOSE_CPU_RE.match(line)
        if m is not None:
            self._verbose[f"{'tx' if m.group(1) == 't' else 'rx'}_cpu_percent"] = float(m.group(2))
        # Info, Warning and -v setup lines are chatter.

    def close(self) -> Summary:
        """The run's summary: nuttcp's final report when it printed one, else the intervals'."""
        if self._final is not None:
            return Summary(values=dict(self._final), complete=True, error=self._error)
        verbose = self._verbose
        values: dict[str, float] = {}
        complete = f"r:{_THR}" in verbose
        if complete:
            values[_THR] = verbose[f"r:{_THR}"]
        elif self._hundredths:
            values[_THR] = self._bits / (self._hundredths / 100)
        elif f"t:{_THR}" in verbose:
            values[_THR] = verbose[f"t:{_THR}"]
        for key in (_RETR, "tx_cpu_percent", "rx_cpu_percent"):
            if key in verbose:
                values[key] = verbose[key]
        if _RETR not in values and self._retr is not None:
            values[_RETR] = self._retr
        if self._pkts is not None:
            lost = self._lost or 0.0
            values[_LOST] = lost
            values[_PKTS] = self._pkts
            values[_LOSTPCT] = 100.0 * lost / self._pkts if self._pkts else 0.0
        return Summary(values=values, complete=complete, error=self._error)


def _fparse_number(text: str) -> float:
    """A ``-fparse`` value as a float; ``ValueError`` unless it is a plain decimal."""
    if _FPARSE_NUMBER_RE.fullmatch(text) is None:
        raise ValueError(f"not a nuttcp number: {text!r}")
    return float(text)


def parse_text_output(text: str) -> tuple[list[Record], Summary]:
    """Parse a whole nuttcp output (lines split on "\\n") and return records and summary."""
    return feed_text(NuttcpTextParser(), text)
