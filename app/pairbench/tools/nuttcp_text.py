"""Incremental parser for nuttcp 6.1.2 output in every form: brief, ``-fparse``, ``-v``."""

from __future__ import annotations

import re
from typing import Final

from pairbench.domain import Record, Summary
from pairbench.domain.samples import new_record
from pairbench.tools.base import ParseError
from pairbench.tools.feed import feed_text
from pairbench.tools.nuttcp_verbose import plain_error, read_nuttcp_line

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
    r"( ++(?:Tot|Trans):.*+)? *+[\r\n]*+\Z"  # 13: -frunningtotal / -fxmitstats
)
_MATCH: Final = _REPORT_RE.match
# A line that claims to be a brief report; one that then does not match _REPORT_RE: ParseError.
_REPORT_PREFIX_RE: Final = re.compile(r"(?:[^ :]{1,40}: )? *[0-9.]+ MB / *[0-9.]+ sec =")
_FPARSE_TOKEN_RE: Final = re.compile(r"[A-Za-z_]{1,32}+=[^ =]{1,40}+")
_FPARSE_ID_RE: Final = re.compile(r"[^ :=]{1,40}+:")  # -I id before -fparse keys: "pb: "
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


# A parsed final report: the summary values nuttcp printed.
_Final = dict[str, float]


class NuttcpTextParser:
    """Parser for nuttcp 6.1.2 client output (``nuttcp -i 1 -T N ... host``), in any form.

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

    Forms, each told by its own lines (``Summary.form``): ``"text"`` (brief, the default) or
    ``"fparse"`` (``key=value``; read per line, so a mix works), then ``-v`` when verbose
    (``-v`` or ``-vv``) ``nuttcp-t:``/``nuttcp-r:`` lines came, ``-frunningtotal`` (``Tot:``,
    ``total_*=``: ignored; a key repeated keeps its first, per-interval value) and
    ``-fxmitstats`` (``Trans:``, ``tx_*=``: ignored), e.g. ``"fparse -v"``, ``"text -frunningtotal
    -fxmitstats"``. ``-I id`` prefixes and ``-r`` (the client receives) change nothing here.

    Summary: from the final report (after the blank line) exactly as printed:
    ``throughput_bps``, TCP ``retransmits`` and ``rtt_ms`` (``msRTT``), UDP ``lost_packets``,
    ``packets`` and ``lost_percent``, and ``tx_cpu_percent``/``rx_cpu_percent``. With ``-v``
    there is no brief final report but a summary of each side (``complete`` once both came):
    ``throughput_bps`` is the receiver's (``nuttcp-r:``)
    ``... real seconds = ... Mbps`` line (``rate_Mbps=`` with ``-fparse``), ``retransmits``
    the ``nuttcp-t: retrans`` line, the UDP loss the ``nuttcp-r: ... data loss`` line.
    ``complete`` means the final report (or, with ``-v``, both sides' lines) was seen;
    without it the summary is the time-weighted mean throughput and summed counters of the
    intervals. When the run ended normally but its form lacks a metric, ``complete`` is False
    and ``reason`` says which: no interval reports (no ``-i``), no retrans (``-N`` > 1,
    ``-f-retrans``), no drop/pkt or %loss (``-f-drops``, ``-f-percentloss``). ``error`` is the
    text after ``Error: `` in a ``nuttcp-t:``/``nuttcp-r:`` line, e.g. ``connect: Connection
    refused``, or a bare ``connect failed: ...`` line; warnings and info lines are ignored.
    """

    __slots__ = (
        "_base",
        "_bits",
        "_error",
        "_final",
        "_hundredths",
        "_intervals",
        "_lost",
        "_pkts",
        "_protocol",
        "_retr",
        "_running",
        "_verbose",
        "_verbose_seen",
        "_xmit",
    )

    def __init__(self) -> None:
        self._hundredths = 0  # t of the last interval, in 1/100 s
        self._intervals = 0  # interval records given
        self._bits = 0.0  # sum of rate * seconds over the intervals
        self._retr: float | None = None
        self._lost: float | None = None
        self._pkts: float | None = None
        self._final: _Final | None = None
        self._verbose: dict[str, float] = {}
        self._error: str | None = None
        self._base = ""  # "text" or "fparse", once a report line told
        self._verbose_seen = False  # -v or -vv
        self._running = False  # -frunningtotal
        self._xmit = False  # -fxmitstats
        self._protocol = ""  # "tcp" or "udp", once a line told

    def feed(self, line: str) -> list[Record]:
        """Parse one line; returns the record of an interval report, else nothing."""
        m = _MATCH(line)
        if m is not None and len(line) <= MAX_LINE:
            return self._report(m)
        return self._feed_other(line)

    def _report(self, m: re.Match[str]) -> list[Record]:
        _, sec_s, rate_s, tx, rx, retr, drop, pkt, _, loss, _, rtt, tail = m.groups()
        if not self._base:
            self._base = "text"
        if tail is not None:
            self._running = self._running or "Tot:" in tail
            self._xmit = self._xmit or "Trans:" in tail
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
            self._note_protocol(final)
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
        self._intervals += 1
        self._bits += rate * (step / 100)
        return [new_record(Record, ("sum", self._hundredths / 100, metrics, values))]

    def _feed_other(self, line: str) -> list[Record]:
        if len(line) > MAX_LINE:
            if _REPORT_PREFIX_RE.match(line[:200]) or "megabytes=" in line[:50]:
                raise ParseError(f"nuttcp: line of {len(line)} characters: {line[:200]!r}")
            return []
        line = line.rstrip("\r\n")
        if line.startswith("nuttcp"):
            self._nuttcp_line(line)
            return []
        if "rate_Mbps=" in line:
            return self._fparse(line)
        if _REPORT_PREFIX_RE.match(line) is not None:
            raise ParseError(f"nuttcp: malformed report line: {line[:200]!r}")
        if self._error is None:
            self._error = plain_error(line)
        return []  # blank lines, "errno=111", "ignoring interval=...", anything else

    def _fparse(self, line: str) -> list[Record]:
        """A ``-fparse`` line: ``megabytes=... real_sec=... rate_Mbps=... retrans=...``."""
        kv: dict[str, str] = {}
        tokens = line.split()
        if tokens and _FPARSE_ID_RE.fullmatch(tokens[0]) is not None:
            tokens = tokens[1:]  # -I id
        for token in tokens:
            if _FPARSE_TOKEN_RE.fullmatch(token) is None:
                raise ParseError(f"nuttcp: malformed -fparse line: {line[:200]!r}")
            key, _, value = token.partition("=")
            kv.setdefault(key, value)  # -frunningtotal repeats drop= and pkt=: keep the first
        try:
            nums = {k: _fparse_number(v) for k, v in kv.items() if k in _FPARSE_NUMBERS}
            rate = float(kv["rate_Mbps"] + "e6")
            self._base = "fparse"
            self._running = self._running or "total_megabytes" in kv
            self._xmit = self._xmit or "tx_megabytes" in kv
            if "real_seconds" in kv:  # the final report
                final: _Final = {_THR: rate}
                for key, name in _FPARSE_FINAL.items():
                    if key in nums:
                        final[name] = nums[key]
                self._final = final
                self._note_protocol(final)
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

    def _note_protocol(self, final: _Final) -> None:
        """TCP or UDP, as a final report's figures tell (retrans and RTT: TCP; loss: UDP)."""
        if _RETR in final or "rtt_ms" in final:
            self._protocol = "tcp"
        elif _LOST in final or _LOSTPCT in final:
            self._protocol = "udp"

    def _nuttcp_line(self, line: str) -> None:
        """``nuttcp-t: ...`` / ``nuttcp-r: ...``: errors and the ``-v`` summaries."""
        at = line.find("Error: ")
        if at >= 0:
            if self._error is None:
                self._error = line[at + 7 :].strip() or line.strip()
            return
        told = read_nuttcp_line(line)
        self._verbose.update(told.values)
        self._verbose_seen = self._verbose_seen or told.verbose
        if told.fparse and not self._base:
            self._base = "fparse"
        if told.protocol:
            self._protocol = told.protocol

    @property
    def form(self) -> str:
        """The output form the lines showed so far ("" until one told)."""
        base = self._base or ("text" if self._verbose_seen else "")
        if not base:
            return ""
        parts = [base]
        if self._verbose_seen:
            parts.append("-v")
        if self._running:
            parts.append("-frunningtotal")
        if self._xmit:
            parts.append("-fxmitstats")
        return " ".join(parts)

    def close(self) -> Summary:
        """The run's summary: nuttcp's final report when it printed one, else the intervals'."""
        values, complete = self._values()
        reason = self._reason(values) if complete else None
        return Summary(
            values=values,
            complete=complete and reason is None,
            error=self._error,
            form=self.form,
            reason=reason,
        )

    def _values(self) -> tuple[dict[str, float], bool]:
        """The summary values and whether nuttcp's own summary was seen."""
        if self._final is not None:
            return dict(self._final), True
        verbose = self._verbose
        values: dict[str, float] = {}
        # -v prints each side's summary, the receiver's last (first with -r): both end it.
        complete = f"r:{_THR}" in verbose and f"t:{_THR}" in verbose
        if complete:
            values[_THR] = verbose[f"r:{_THR}"]
        elif self._hundredths:
            values[_THR] = self._bits / (self._hundredths / 100)
        elif f"t:{_THR}" in verbose:
            values[_THR] = verbose[f"t:{_THR}"]
        for key in (_RETR, _LOST, _PKTS, _LOSTPCT, "tx_cpu_percent", "rx_cpu_percent"):
            if key in verbose:
                values[key] = verbose[key]
        if _RETR not in values and self._retr is not None:
            values[_RETR] = self._retr
        if _PKTS not in values and self._pkts is not None:
            lost = self._lost or 0.0
            values[_LOST] = lost
            values[_PKTS] = self._pkts
            values[_LOSTPCT] = 100.0 * lost / self._pkts if self._pkts else 0.0
        return values, complete

    def _reason(self, values: dict[str, float]) -> str | None:
        """Why a run that ended normally lacks a metric in this form, or None."""
        parts: list[str] = []
        if not self._intervals:
            parts.append("no interval reports (only -i makes them): no per-interval series")
        udp = self._protocol == "udp"
        if self._protocol == "tcp" and _RETR not in values:
            parts.append("no retrans count (none with -N > 1 or -f-retrans): no retransmits")
        if udp and (_LOST not in values or _PKTS not in values):
            parts.append("no drop/pkt counts (-f-drops): no lost_packets or packets")
        if udp and _LOSTPCT not in values:
            parts.append("no %loss (-f-percentloss): no lost_percent")
        if not self._protocol:
            parts.append(
                "neither retrans nor loss figures (-N > 1, -f-retrans, -f-drops "
                "-f-percentloss): no retransmits or loss"
            )
        return "nuttcp printed " + "; ".join(parts) if parts else None


def _fparse_number(text: str) -> float:
    """A ``-fparse`` value as a float; ``ValueError`` unless it is a plain decimal."""
    if _FPARSE_NUMBER_RE.fullmatch(text) is None:
        raise ValueError(f"not a nuttcp number: {text!r}")
    return float(text)


def parse_text_output(text: str) -> tuple[list[Record], Summary]:
    """Parse a whole nuttcp output (lines split on "\\n") and return records and summary."""
    return feed_text(NuttcpTextParser(), text)
