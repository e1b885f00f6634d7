"""Incremental parser for iputils ping output in every form: text, -D, -O, -q, -f."""

from __future__ import annotations

import math
import re
from typing import Final

from pairbench.domain import Record, Summary
from pairbench.domain.samples import new_record
from pairbench.tools.base import ParseError
from pairbench.tools.feed import feed_text

__all__ = ["RTT", "PingTextParser", "parse_text_output"]

# ping never prints more than ~150 characters per line; a longer line is not ping's and is
# skipped without running a regex over it.
MAX_LINE: Final = 4096

_RTT: Final = "rtt_ms"
# The one kind of record: the round-trip time of one echo reply (stream "sum").
RTT: Final[tuple[str, ...]] = (_RTT,)

# The usual reply line of ``ping -D -n`` (microsecond timestamp), address without a name:
#   [1795300404.966802] 1408 bytes from 10.200.0.1: icmp_seq=1 ttl=64 time=0.063 ms
# Every line this matches, _REPLY_RE matches the same way; possessive quantifiers keep a failed
# match linear.
_FAST_RE: Final = re.compile(
    r"\[([0-9]{1,12}+)\.([0-9]{6})\] [0-9]++ bytes from [^ ]++ "
    r"icmp_seq=([0-9]{1,9}+) ttl=[0-9]++ time=([0-9]{1,15}+(?:\.[0-9]{1,15}+)?) ms[\r\n]*+\Z"
)
_FAST_MATCH: Final = _FAST_RE.match

# Any reply line: optional -D epoch, peer (``-n``: address; else ``name (address)``), sequence
# number, optional ttl, optional time (absent when the payload is under 16 bytes), then flags
# in parentheses such as ``(DUP!)``, ``(BAD CHECKSUM!)`` or ``(truncated)``.
_REPLY_RE: Final = re.compile(
    r"(?:\[([0-9]{1,12}+)\.([0-9]{1,9}+)\] )?"  # 1, 2: -D epoch seconds and fraction
    r"[0-9]++ bytes from [^ ]++(?: \([^)]*+\))?:? "
    r"icmp_[rs]eq=([0-9]{1,9}+)"  # 3: sequence number
    r"(?: ident=[0-9]++)?(?: ttl=[0-9]++)?"
    r"(?: time=([0-9]{1,15}+(?:\.[0-9]{1,15}+)?) ms)?"  # 4: rtt in ms (bounded: finite)
    r"((?:[ \t]*+\([^()]{1,40}+\))*+)[ \t\a]*+\Z"  # 5: flags; -R's "\t(same route)", -a's BEL
)
# What makes a line claim to be a reply; one that then does not match _REPLY_RE is ParseError.
_REPLY_PREFIX_RE: Final = re.compile(r"(?:\[[0-9.]++\] )?[0-9]++ bytes from ")
# An ICMP error about one probe: "From 10.200.0.2 icmp_seq=1 Destination Host Unreachable".
_ICMP_ERROR_RE: Final = re.compile(
    r"(\[[0-9.]++\] )?From [^ ]++(?: \([^)]*+\))?:? icmp_[rs]eq=[0-9]++ (.+)\Z"
)
# -O: a probe still unanswered when the next one is sent ("no answer yet for icmp_seq=5").
_NO_ANSWER_RE: Final = re.compile(r"(\[[0-9.]++\] )?no answer yet for icmp_seq=[0-9]++\Z")
# Flags on a reply that still counts, with its time, in ping's statistics.
_TIMED_FLAGS: Final = frozenset({"(same route)", "(DIFFERENT ADDRESS!)"})
# -f prints "." per probe sent and "\b \b" per reply ("\bC" for a bad checksum, "E" on error).
_FLOOD_CHARS: Final = ".\b EC"
# -v's setup lines ("ping: sock4.fd: 3 (socktype: SOCK_RAW), ...") are no error.
_VERBOSE_PREFIXES: Final = ("sock4.fd:", "socktype:")
_STATS_RE: Final = re.compile(
    r"([0-9]{1,15}+) packets transmitted, ([0-9]{1,15}+) (?:packets )?received"
    r"((?:, [^,]*+)*+)\Z"
)
_LOSS_RE: Final = re.compile(r"([0-9.]++(?:e[-+]?[0-9]++)?)% packet loss\Z")
_EXTRA_RE: Final = re.compile(r"\+([0-9]{1,15}+) (duplicates|corrupted|errors)\Z")
# The rtt line; ", pipe N" follows when replies overlapped, ", ipg/ewma A/B ms" with -f, -A, -i 0.
_RTT_RE: Final = re.compile(
    r"(?:rtt|round-trip) min/avg/max/(?:mdev|stddev) = "
    r"([0-9.]++)/([0-9.]++)/([0-9.]++)/([0-9.]++) ms"
    r"(?:, pipe [0-9]{1,9}+)?(?:, ipg/ewma [0-9.]++/[0-9.]++ ms)?\Z"
)

# The statistics line's "+N ..." counters, as summary values.
_EXTRA_NAMES: Final[dict[str, str]] = {
    "duplicates": "duplicate_packets",
    "corrupted": "corrupted_packets",
    "errors": "icmp_errors",
}

_SEQ_SPAN: Final = 65536  # icmp_seq is 16 bits and wraps
_US: Final = 1_000_000


class PingTextParser:
    """Parser for the output of iputils ping (20221126; ``ping -D -n -c N -i S host``).

    Records: one per echo reply that carries a time (``time=``), stream ``"sum"``, metric
    ``rtt_ms``. ``t`` is the end of the reply's probe interval in seconds since the run's
    start: probe ``icmp_seq=k`` is sent at ``(k-1)*interval``, so without ``-D`` a reply's
    ``t`` is ``k*interval``. With ``-D`` the timestamps give the real spacing: ``t`` is the
    reply's epoch minus the first reply's, plus ``k1*interval`` where ``k1`` is the first
    reply's sequence number, so both ways agree on the first reply and ``-D`` shows any drift
    or stall. ``interval_s`` is the ``-i`` value (1 s, ping's default, when unknown, as for a
    saved file); sequence numbers are unwrapped past 65535. Duplicates ``(DUP!)`` and damaged
    replies give no record (ping counts them in its statistics line), nor does a reply whose
    ``t`` would not be later than the previous record's (a late, reordered reply), so ``t``
    strictly increases.

    Summary: ``packets`` (transmitted), ``lost_packets`` (transmitted - received),
    ``lost_percent`` and ``rtt_min_ms``/``rtt_avg_ms``/``rtt_max_ms``/``rtt_mdev_ms`` exactly
    as printed, plus ``duplicate_packets``, ``corrupted_packets`` and ``icmp_errors`` when ping
    printed them. ``complete`` means the ``packets transmitted`` line was seen, and the ``rtt``
    line as well unless nothing came back or the replies carried no time. Without the rtt line
    (a killed ping) the rtt values are computed from the replies seen, as ping computes them.
    ``error``: a ``ping: ...`` message (e.g. an unknown host); else, when no reply came back,
    the first ICMP error's own words ("Destination Host Unreachable") or ``"100% packet
    loss"`` as printed.

    Forms (``Summary.form``), told by the lines themselves: ``"text"`` (reply lines),
    ``"text -D"`` (``[epoch]`` before them), ``" -O"`` added when ``no answer yet for
    icmp_seq=N`` lines came (they give no record: a late reply may still come), ``"quiet"``
    (``-q``: statistics only, though replies came back) and ``"flood"`` (``-f``: a line of
    dots and backspaces instead of reply lines). ``-v`` (``ident=``), ``-R`` (``RR:`` lines,
    ``(same route)``), ``-a`` (a BEL after each reply), ``-p`` (``PATTERN:``), ``-U``, ``-w``,
    IPv6 and names are all "text". A form that ended normally but cannot carry a metric gives
    ``complete=False`` with ``reason``: ``quiet`` and ``flood`` have no per-reply times (only
    ping's own summary), nor do replies of under 16 bytes of payload (``-s``: no ``time=``).
    iputils 20221126 prints its times as integers with a literal ``.`` whatever the locale,
    and has no translations (``NLS: no``): there is no other number format to read.
    """

    __slots__ = (
        "_anchor_us",
        "_dropped",
        "_first_us",
        "_flood",
        "_icmp_error",
        "_interval_us",
        "_last_raw_seq",
        "_last_t",
        "_loss_text",
        "_n",
        "_no_answer",
        "_ping_error",
        "_replies",
        "_rtt",
        "_rtt_max",
        "_rtt_min",
        "_seq_base",
        "_stamped",
        "_started",
        "_stats",
        "_sum",
        "_sum2",
        "_untimed",
    )

    def __init__(self, interval_s: float = 1.0) -> None:
        if not (interval_s >= 1e-6 and math.isfinite(interval_s)):
            raise ValueError(f"interval_s must be a positive number, got {interval_s!r}")
        # Times are kept in whole microseconds (-D's resolution) and divided once, so they are
        # the floats of 6-decimal values: 0.6, not 0.6000000000000001.
        self._interval_us = round(interval_s * _US)
        self._reset()

    def _reset(self) -> None:
        self._first_us: int | None = None  # -D epoch of the first reply, in microseconds
        self._anchor_us = 0
        self._last_t = -math.inf
        self._seq_base = 0
        self._last_raw_seq: int | None = None
        self._replies = 0  # replies seen (not duplicates)
        self._dropped = 0
        self._n = 0  # replies with a time
        self._untimed = 0  # replies without one (payload under 16 bytes)
        self._sum = 0.0
        self._sum2 = 0.0
        self._rtt_min = math.inf
        self._rtt_max = -math.inf
        self._stats: dict[str, float] | None = None
        self._rtt: tuple[float, float, float, float] | None = None
        self._icmp_error: str | None = None
        self._ping_error: str | None = None
        self._loss_text = ""
        self._started = False  # a "PING ..." header or a reply seen: ping's text output
        self._stamped = False  # a line with a -D "[epoch]" seen
        self._no_answer = 0  # -O "no answer yet" lines
        self._flood = False  # -f's dots seen

    @property
    def dropped_replies(self) -> int:
        """Replies given no record because their time was not later than the previous one's."""
        return self._dropped

    def feed(self, line: str) -> list[Record]:
        """Parse one line; returns the record of a timed echo reply, else nothing."""
        m = _FAST_MATCH(line)
        if m is not None and len(line) <= MAX_LINE:
            sec_s, us_s, seq_s, rtt_s = m.groups()
            return self._reply(int(sec_s + us_s), int(seq_s), float(rtt_s))
        return self._feed_general(line)

    def _feed_general(self, line: str) -> list[Record]:
        if len(line) > MAX_LINE:
            return []
        line = line.rstrip("\r\n")
        m = _REPLY_RE.match(line)
        if m is not None:
            sec_s, frac_s, seq_s, rtt_s, flags = m.groups()
            if sec_s is not None:
                self._stamped = True
            if flags.strip() and not _only_timed_flags(flags):
                if "DUP!" not in flags:
                    self._count_reply(seq_s)  # damaged or truncated: counted, no rtt
                return []
            if rtt_s is None:
                self._untimed += 1  # payload under 16 bytes: ping has no time to show
                self._count_reply(seq_s)
                return []
            us = None if sec_s is None else int(sec_s) * _US + int(frac_s[:6].ljust(6, "0"))
            return self._reply(us, int(seq_s), float(rtt_s))
        if _REPLY_PREFIX_RE.match(line) is not None:
            raise ParseError(f"ping: malformed reply line: {line[:200]!r}")
        self._other_line(line)
        return []

    def _count_reply(self, seq_s: str) -> None:
        self._replies += 1
        self._unwrap(int(seq_s))

    def _unwrap(self, raw: int) -> int:
        """The sequence number counted past 65535 (ping's 16-bit icmp_seq wraps to 0)."""
        last = self._last_raw_seq
        if last is None or raw > last:
            if last is not None and raw > last + _SEQ_SPAN // 2 and self._seq_base:
                return self._seq_base - _SEQ_SPAN + raw  # a late reply from before a wrap
            self._last_raw_seq = raw
        elif raw < last - _SEQ_SPAN // 2:  # wrapped: 65535 -> 0
            self._seq_base += _SEQ_SPAN
            self._last_raw_seq = raw
        return self._seq_base + raw

    def _reply(self, us: int | None, raw_seq: int, rtt: float) -> list[Record]:
        """A timed reply: ``us`` its -D epoch in microseconds (None without -D)."""
        last_raw = self._last_raw_seq
        if last_raw is not None and last_raw < raw_seq < last_raw + _SEQ_SPAN // 2:
            self._last_raw_seq = raw_seq  # the usual case: the next number, no wrap
            seq = self._seq_base + raw_seq
        else:
            seq = self._unwrap(raw_seq)
        self._replies += 1
        self._n += 1
        self._sum += rtt
        self._sum2 += rtt * rtt
        if rtt < self._rtt_min:
            self._rtt_min = rtt
        if rtt > self._rtt_max:
            self._rtt_max = rtt
        if us is not None:
            first = self._first_us
            if first is None:
                self._first_us = first = us
                self._stamped = True
                self._anchor_us = seq * self._interval_us
            t = (us - first + self._anchor_us) / _US
        else:
            t = seq * self._interval_us / _US
        if t <= self._last_t:
            self._dropped += 1
            return []
        self._last_t = t
        return [new_record(Record, ("sum", t, RTT, (rtt,)))]

    def _other_line(self, line: str) -> None:
        if line.startswith("PING "):
            self._reset()  # a new run (a log of several): start afresh
            self._started = True
            return
        m = _NO_ANSWER_RE.match(line)
        if m is not None:
            self._no_answer += 1
            self._stamped = self._stamped or m.group(1) is not None
            return
        m = _ICMP_ERROR_RE.match(line)
        if m is not None:
            self._stamped = self._stamped or m.group(1) is not None
            if self._icmp_error is None:
                self._icmp_error = m.group(2).strip()
            return
        if "." in line and not line.strip(_FLOOD_CHARS):
            self._flood = True
            return
        m = _STATS_RE.match(line)
        if m is not None:
            self._stats_line(line, m)
            return
        m = _RTT_RE.match(line)
        if m is not None:
            try:
                a, b, c, d = (_finite(x) for x in m.groups())
            except ValueError as exc:
                raise ParseError(f"ping: malformed rtt line: {line[:200]!r}") from exc
            self._rtt = (a, b, c, d)
            return
        if line.startswith("ping: ") and self._ping_error is None:
            message = line[6:].strip()
            if message and not message.lower().startswith(("warning", *_VERBOSE_PREFIXES)):
                self._ping_error = message
        # Everything else (header, "--- host ping statistics ---", "pipe N", warnings,
        # "wrong data byte" dumps) is chatter.

    def _stats_line(self, line: str, m: re.Match[str]) -> None:
        sent, received = int(m.group(1)), int(m.group(2))
        stats: dict[str, float] = {
            "packets": float(sent),
            "lost_packets": float(max(sent - received, 0)),
        }
        loss_text = ""
        for part in m.group(3).split(", ")[1:]:
            extra = _EXTRA_RE.match(part)
            if extra is not None:
                stats[_EXTRA_NAMES[extra.group(2)]] = float(extra.group(1))
                continue
            loss = _LOSS_RE.match(part)
            if loss is not None:
                loss_text = loss.group(1)
                try:
                    stats["lost_percent"] = _finite(loss_text)
                except ValueError as exc:
                    raise ParseError(f"ping: malformed statistics line: {line[:200]!r}") from exc
        stats["_received"] = float(received)
        self._stats = stats
        self._loss_text = loss_text

    def close(self) -> Summary:
        """The run's summary: ping's own statistics when it printed them, else the replies'."""
        values: dict[str, float] = {}
        stats = self._stats
        received = float(self._replies)
        if stats is not None:
            received = stats["_received"]
            values.update((k, v) for k, v in stats.items() if not k.startswith("_"))
        # ping prints no rtt line when nothing came back, or when replies carried no time.
        untimed = self._n == 0 and self._untimed > 0
        complete = stats is not None and (self._rtt is not None or received == 0 or untimed)
        if self._rtt is not None:
            values["rtt_min_ms"], values["rtt_avg_ms"], values["rtt_max_ms"] = self._rtt[:3]
            values["rtt_mdev_ms"] = self._rtt[3]
        elif self._n:
            mean = self._sum / self._n
            values["rtt_min_ms"] = self._rtt_min
            values["rtt_avg_ms"] = mean
            values["rtt_max_ms"] = self._rtt_max
            values["rtt_mdev_ms"] = math.sqrt(max(self._sum2 / self._n - mean * mean, 0.0))
        form = self._form(received)
        reason = None
        error = self._error(stats, received)
        if complete and error is None:
            reason = self._reason(form, untimed)
        return Summary(
            values=values,
            complete=complete and reason is None,
            error=error,
            form=form,
            reason=reason,
        )

    def _form(self, received: float) -> str:
        """The output form the lines showed ("" when none did)."""
        if self._flood:
            return "flood"
        per_packet = self._replies or self._no_answer or self._icmp_error is not None
        if not per_packet and self._stats is not None and received > 0:
            return "quiet"
        if not (self._started or per_packet or self._stats is not None):
            return ""
        return "text" + (" -D" if self._stamped else "") + (" -O" if self._no_answer else "")

    def _reason(self, form: str, untimed: bool) -> str | None:
        """Why a run that ended normally lacks a metric, or None."""
        if form in ("quiet", "flood"):
            option = "-q" if form == "quiet" else "-f"
            return (
                f"ping {option} prints no per-reply lines: no rtt_ms series "
                "(the summary has ping's own statistics)"
            )
        if untimed:
            return "ping printed no times (a payload under 16 bytes, -s): no rtt_ms series or rtt"
        return None

    def _error(self, stats: dict[str, float] | None, received: float) -> str | None:
        if self._ping_error is not None:
            return self._ping_error
        if received > 0:
            return None
        if stats is not None and stats["packets"] > 0:
            return self._icmp_error or f"{self._loss_text or '100'}% packet loss"
        return self._icmp_error


def _only_timed_flags(flags: str) -> bool:
    """True when every flag on a reply leaves it a normal, timed one ("(same route)")."""
    return all(f"({flag.strip()}" in _TIMED_FLAGS for flag in flags.split("(")[1:])


def _finite(text: str) -> float:
    """A printed number as a float; ``ValueError`` for one too large for a float (``1e999``)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {text[:40]!r}")
    return value


def parse_text_output(text: str, interval_s: float = 1.0) -> tuple[list[Record], Summary]:
    """Parse a whole ping output (lines split on "\\n") and return records and summary."""
    return feed_text(PingTextParser(interval_s), text)
