"""Link shaping: user values validated into tc syntax, and the tc argv lists that apply them."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from decimal import Decimal, InvalidOperation

from pairbench.domain import quantities
from pairbench.lab.errors import LabError

# The rate a user asks for is the rate iperf3 reports (TCP goodput), not the frame rate: a
# size table on the root qdisc subtracts one full-size TCP/IPv4 segment's headers per packet
# (Ethernet 14 + IPv4 20 + TCP 20 + timestamp option 12). On a GSO packet of n segments the
# kernel's base length is ``skb->len`` (headers once), so the result is exactly the payload.
# Without it tbf counts every segment's 66 header bytes and goodput is 1448/1514 = 95.6 %.
TCP_HEADER_BYTES = 66

MIN_RATE_BPS = 8_000
MAX_RATE_BPS = 100_000_000_000
MAX_TIME_US = 10_000_000
MIN_BUCKET_BYTES = 64 * 1024
MAX_BUCKET_BYTES = 2**32 - 1
# tbf keeps its bucket as a transmission time in 64 ns ticks (u32): ~274 s at most.
MAX_BUCKET_SECONDS = 250
# The "small" bucket when there is no burst emulation: 4 ms at the rate, never below a full
# 64 KiB GSO packet (a smaller bucket makes tbf split GSO packets and fall short at high rates).
SMALL_BURST_SECONDS = 0.004
MIN_SMALL_BURST_BYTES = 128 * 1024
# The queue in front of the shaper holds about 50 ms at the highest rate (like tc's latency).
QUEUE_SECONDS = 0.05
MIN_QUEUE_BYTES = 256 * 1024
HTB_QUANTUM_BYTES = 65536

_NUMBER = r"(\d{1,15}(?:\.\d{1,9})?)"
_VALUE_RE = re.compile(_NUMBER + r"([a-z%]{0,5})", re.ASCII)

_TIME_UNITS = {"": 1000, "us": 1, "usec": 1, "ms": 1000, "msec": 1000, "s": 10**6, "sec": 10**6}
_OPTIONS = {
    "rate": "--rate",
    "delay": "--delay",
    "jitter": "--jitter",
    "loss": "--loss",
    "burst_rate": "--burst-rate",
    "bucket": "--bucket",
}


def _split(option: str, text: str, example: str) -> tuple[Decimal, str]:
    """A value as (number, lower-case unit); anything but digits, one dot and a unit is refused."""
    if not isinstance(text, str):
        raise LabError(f"{option}: expected text such as {example}, got {text!r}")
    match = _VALUE_RE.fullmatch(text.lower())
    if match is None:
        raise LabError(f"{option}: {text!r} is not a valid value (use e.g. {example})")
    try:
        return Decimal(match.group(1)), match.group(2)
    except InvalidOperation as exc:  # pragma: no cover - the regex admits only decimals
        raise LabError(f"{option}: {text!r} is not a number") from exc


def _whole(option: str, text: str, value: Decimal, what: str) -> int:
    if value != value.to_integral_value():
        raise LabError(f"{option}: {text!r} is finer than one {what}")
    return int(value)


def parse_rate(text: str, option: str = "--rate") -> int:
    """A rate in bit/s from ``200mbit``, ``1gbit``, ``50M``, ``1.5g`` (``domain/quantities``)."""
    bps = _whole(option, text, _quantity(option, text, _tc_rate), "bit/s")
    if bps < MIN_RATE_BPS:
        hint = f"; did you mean {text}mbit?" if re.fullmatch(r"[0-9.]+", text) else ""
        raise LabError(f"{option}: {text!r} is below the minimum of 8kbit{hint}")
    if bps > MAX_RATE_BPS:
        raise LabError(f"{option}: {text!r} is above the maximum of 100gbit")
    return bps


def _quantity(option: str, text: str, parse: Callable[[str], Decimal]) -> Decimal:
    """``parse(text)`` (a size or rate), its errors as the option's ``LabError``."""
    try:
        return parse(text)
    except quantities.QuantityError as exc:
        raise LabError(f"{option}: {exc}") from exc


def format_rate(bps: int) -> str:
    """A rate in tc syntax with the largest exact unit: 200000000 → ``200mbit``."""
    for unit, factor in (("gbit", 10**9), ("mbit", 10**6), ("kbit", 10**3)):
        if bps % factor == 0:
            return f"{bps // factor}{unit}"
    return f"{bps}bit"


def parse_time(text: str, option: str = "--delay") -> int:
    """A time in microseconds from ``0.7ms``, ``5ms``, ``250us``, ``1s`` (a bare number is ms)."""
    number, unit = _split(option, text, "0.7ms, 5ms, 250us")
    if unit not in _TIME_UNITS:
        raise LabError(f"{option}: unknown unit {unit!r} in {text!r} (use us, ms or s)")
    us = _whole(option, text, number * _TIME_UNITS[unit], "microsecond")
    if us > MAX_TIME_US:
        raise LabError(f"{option}: {text!r} is above the maximum of 10s")
    return us


def format_time(us: int) -> str:
    """A time in tc syntax: 5000 → ``5ms``, 700 → ``700us``."""
    return f"{us // 1000}ms" if us % 1000 == 0 else f"{us}us"


def parse_loss(text: str, option: str = "--loss") -> Decimal:
    """A loss percentage from ``0.5%`` or ``0.5`` (0 to 100)."""
    number, unit = _split(option, text, "0.5%")
    if unit not in ("", "%"):
        raise LabError(f"{option}: {text!r} is not a percentage (use e.g. 0.5%)")
    if number > 100:
        raise LabError(f"{option}: {text!r} is above 100%")
    return number


def format_loss(percent: Decimal) -> str:
    """A loss percentage in tc syntax: ``0.5%``."""
    text = format(percent.normalize(), "f")
    return f"{text}%"


def parse_size(text: str, option: str = "--bucket") -> int:
    """A size in bytes from ``500MB``, ``500mb``, ``64k``, ``2GiB`` (tc's reading: powers of
    1024, ``domain/quantities``)."""
    size = _whole(option, text, _quantity(option, text, _tc_size), "byte")
    if size < MIN_BUCKET_BYTES:
        raise LabError(f"{option}: {text!r} is below the minimum of 64KB")
    if size > MAX_BUCKET_BYTES:
        raise LabError(f"{option}: {text!r} is above the maximum of 4GB (tbf keeps 32 bits)")
    return size


def _tc_rate(text: str) -> Decimal:
    return quantities.rate_bps(text, tc=True)


def _tc_size(text: str) -> Decimal:
    return quantities.size_bytes(text, bare="tc")


def format_size(size: int) -> str:
    """A size in tc syntax with the largest exact unit: 524288000 → ``500mb``."""
    for unit, factor in (("gb", 2**30), ("mb", 2**20), ("kb", 2**10)):
        if size % factor == 0:
            return f"{size // factor}{unit}"
    return f"{size}b"


@dataclass(frozen=True, slots=True)
class Impairment:
    """Delay, jitter (uniform ±) and loss on one direction of the data link."""

    delay_us: int = 0
    jitter_us: int = 0
    loss_percent: Decimal = Decimal(0)


@dataclass(frozen=True, slots=True)
class Shaping:
    """How the data link is shaped; every field is a normalised tc value or None (not shaped).

    ``rate`` caps the client→server direction (as TCP goodput, see ``TCP_HEADER_BYTES``);
    ``delay`` applies to each direction (round trip ≈ 2 × delay); ``jitter`` and ``loss`` to
    client→server. ``burst_rate`` with ``bucket`` emulates burst credits: the link runs at the
    burst rate until the bucket (bytes) drains, then at ``rate``. Values given in other
    spellings (``50M``, ``0.7ms``, ``500MB``) are normalised; bad ones raise ``LabError``.
    """

    rate: str | None = None
    delay: str | None = None
    jitter: str | None = None
    loss: str | None = None
    burst_rate: str | None = None
    bucket: str | None = None

    def __post_init__(self) -> None:
        normal: dict[str, str | None] = {}
        for name, option in _OPTIONS.items():
            raw = getattr(self, name)
            normal[name] = None if raw is None else _normalise(name, option, raw)
            object.__setattr__(self, name, normal[name])
        _check_combination(self)

    @property
    def rate_bps(self) -> int | None:
        """The (baseline) rate in bit/s."""
        return None if self.rate is None else parse_rate(self.rate)

    @property
    def burst_rate_bps(self) -> int | None:
        """The burst rate in bit/s (burst emulation only)."""
        return None if self.burst_rate is None else parse_rate(self.burst_rate, "--burst-rate")

    @property
    def top_rate_bps(self) -> int | None:
        """The highest rate the link ever runs at."""
        return self.burst_rate_bps or self.rate_bps

    @property
    def delay_us(self) -> int:
        """The one-way delay in microseconds (0 when not set)."""
        return 0 if self.delay is None else parse_time(self.delay)

    @property
    def jitter_us(self) -> int:
        """The jitter in microseconds (0 when not set)."""
        return 0 if self.jitter is None else parse_time(self.jitter, "--jitter")

    @property
    def loss_percent(self) -> Decimal:
        """The client→server loss in percent (0 when not set)."""
        return Decimal(0) if self.loss is None else parse_loss(self.loss)

    @property
    def bucket_bytes(self) -> int | None:
        """The burst bucket in bytes (burst emulation only)."""
        return None if self.bucket is None else parse_size(self.bucket)

    @property
    def is_shaped(self) -> bool:
        """True when any aspect is set."""
        return any(getattr(self, f.name) is not None for f in fields(self))

    def to_json(self) -> dict[str, str | None]:
        """The fields as a JSON-ready dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Shaping:
        """The inverse of ``to_json`` (validated again)."""
        values: dict[str, str | None] = {}
        for name in _OPTIONS:
            value = data.get(name)
            if value is not None and not isinstance(value, str):
                raise LabError(f"shaping field {name!r} must be text, got {value!r}")
            values[name] = value
        return cls(**values)

    def describe(self) -> str:
        """One line for people: ``rate 200mbit, delay 5ms ± 1ms, loss 0.5%``."""
        parts: list[str] = []
        if self.burst_rate is not None:
            parts.append(f"burst {self.burst_rate} until {self.bucket} drained, then {self.rate}")
        elif self.rate is not None:
            parts.append(f"rate {self.rate}")
        if self.delay is not None:
            jitter = f" ± {self.jitter}" if self.jitter else ""
            parts.append(f"delay {self.delay}{jitter} each way")
        if self.loss is not None:
            parts.append(f"loss {self.loss}")
        return ", ".join(parts) if parts else "unshaped"


def _normalise(name: str, option: str, raw: str) -> str | None:
    if name in ("rate", "burst_rate"):
        return format_rate(parse_rate(raw, option))
    if name in ("delay", "jitter"):
        us = parse_time(raw, option)
        return format_time(us) if us else None
    if name == "loss":
        percent = parse_loss(raw, option)
        return format_loss(percent) if percent else None
    return format_size(parse_size(raw, option))


def _check_combination(shaping: Shaping) -> None:
    if shaping.jitter is not None and shaping.delay is None:
        raise LabError("--jitter needs --delay (jitter varies the delay)")
    if (shaping.burst_rate is None) != (shaping.bucket is None):
        raise LabError("--burst-rate and --bucket go together (burst emulation needs both)")
    if shaping.burst_rate is None:
        return
    rate = shaping.rate_bps
    burst = shaping.burst_rate_bps
    bucket = shaping.bucket_bytes
    if rate is None:
        raise LabError("--burst-rate needs --rate (the baseline once the bucket is drained)")
    assert burst is not None and bucket is not None
    if burst <= rate:
        raise LabError(f"--burst-rate ({shaping.burst_rate}) must be above --rate ({shaping.rate})")
    if bucket * 8 / rate > MAX_BUCKET_SECONDS:
        raise LabError(
            f"--bucket {shaping.bucket} at --rate {shaping.rate} is over {MAX_BUCKET_SECONDS} s "
            "of tokens, more than tbf can hold: use a smaller bucket or a higher rate"
        )


def parse_shaping(
    rate: str | None = None,
    delay: str | None = None,
    jitter: str | None = None,
    loss: str | None = None,
    burst_rate: str | None = None,
    bucket: str | None = None,
) -> Shaping:
    """Shaping from user values (e.g. command-line options); ``LabError`` on a bad one."""
    return Shaping(rate, delay, jitter, loss, burst_rate, bucket)


def forward_impairment(shaping: Shaping) -> Impairment | None:
    """Delay, jitter and loss on client→server, or None when there are none."""
    if shaping.delay is None and shaping.loss is None:
        return None
    return Impairment(shaping.delay_us, shaping.jitter_us, shaping.loss_percent)


def reverse_impairment(shaping: Shaping) -> Impairment | None:
    """Delay and jitter on server→client (so the round trip is about twice the delay)."""
    if shaping.delay is None:
        return None
    return Impairment(shaping.delay_us, shaping.jitter_us)


def small_burst_bytes(rate_bps: int) -> int:
    """The tbf/htb bucket when no burst is emulated: 4 ms at the rate, at least 128 KiB."""
    return max(int(rate_bps / 8 * SMALL_BURST_SECONDS), MIN_SMALL_BURST_BYTES)


def queue_limit_bytes(rate_bps: int) -> int:
    """The shaper's queue: about 50 ms at the rate, at least 256 KiB."""
    return max(int(rate_bps / 8 * QUEUE_SECONDS), MIN_QUEUE_BYTES)


def netem_limit_packets(rate_bps: int | None, impairment: Impairment) -> int:
    """netem's queue in packets: everything in flight during the delay at the rate, plus slack."""
    bytes_per_s = (rate_bps or 10**10) / 8
    in_flight = bytes_per_s * (impairment.delay_us + impairment.jitter_us) / 1e6 / 1500
    return min(1000 + math.ceil(in_flight), 10_000_000)


def tc_delete_root(dev: str) -> list[str]:
    """Remove the root qdisc of ``dev`` (fails harmlessly when there is none)."""
    return ["tc", "qdisc", "del", "dev", dev, "root"]


def netem_args(impairment: Impairment, limit: int) -> list[str]:
    """netem's own arguments: ``limit N delay D [J] loss P%``."""
    args = ["netem", "limit", str(limit)]
    if impairment.delay_us:
        args += ["delay", format_time(impairment.delay_us)]
        if impairment.jitter_us:
            args.append(format_time(impairment.jitter_us))
    if impairment.loss_percent:
        args += ["loss", format_loss(impairment.loss_percent)]
    return args


def client_qdisc_commands(
    shaping: Shaping, dev: str = "data", netem: bool = True
) -> list[list[str]]:
    """tc argv lists for the client's egress (client→server), after ``tc_delete_root``.

    With a rate: root htb (size table for goodput) → class at the top rate → tbf at the rate
    (bucket = ``bucket`` for burst emulation, else a small one) → netem when impaired. Without
    a rate: netem alone at the root. Unshaped (or impairments left to the delay line when
    ``netem`` is False): nothing. The lists start with ``tc``; no shell is involved.
    """
    impairment = forward_impairment(shaping) if netem else None
    rate = shaping.rate_bps
    top = shaping.top_rate_bps
    if rate is None or top is None:
        if impairment is None:
            return []
        limit = netem_limit_packets(None, impairment)
        return [[*_root_qdisc(dev), *netem_args(impairment, limit)]]
    class_burst = str(small_burst_bytes(top))
    bucket = shaping.bucket_bytes or small_burst_bytes(rate)
    commands = [
        [*_root_qdisc(dev), "stab", "overhead", str(-TCP_HEADER_BYTES), "htb", "default", "10"],
        ["tc", "class", "add", "dev", dev, "parent", "1:", "classid", "1:10", "htb", "rate",
         format_rate(top), "ceil", format_rate(top), "burst", class_burst, "cburst", class_burst,
         "quantum", str(HTB_QUANTUM_BYTES)],
        ["tc", "qdisc", "add", "dev", dev, "parent", "1:10", "handle", "10:", "tbf", "rate",
         format_rate(rate), "burst", str(bucket), "limit", str(queue_limit_bytes(top))],
    ]  # fmt: skip
    if impairment is not None:
        limit = netem_limit_packets(top, impairment)
        commands.append(
            ["tc", "qdisc", "add", "dev", dev, "parent", "10:1", "handle", "20:",
             *netem_args(impairment, limit)]
        )  # fmt: skip
    return commands


def server_qdisc_commands(
    shaping: Shaping, dev: str = "data", netem: bool = True
) -> list[list[str]]:
    """tc argv lists for the server's egress (server→client): netem delay (+ jitter) or nothing."""
    impairment = reverse_impairment(shaping) if netem else None
    if impairment is None:
        return []
    limit = netem_limit_packets(shaping.top_rate_bps, impairment)
    return [[*_root_qdisc(dev), *netem_args(impairment, limit)]]


def _root_qdisc(dev: str) -> list[str]:
    return ["tc", "qdisc", "add", "dev", dev, "root", "handle", "1:"]
