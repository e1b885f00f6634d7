"""Flent's data files (``*.flent.gz``): the JSON Flent's ``ResultSet`` writes (gzip, bzip2 or
plain), read into one run's records, summary, parameters and start time.

A file is one Flent test. Its series become the run's streams under their Flent names, on
Flent's own step grid (``x_values``, seconds since ``T0``: the values Flent's plots show):
throughput (Mbits/s, Kbits/s) as ``throughput_bps``; pings and RTTs (``Ping (ms) ...``,
``...::rtt``) as ``rtt_ms``; VoIP jitter, loss and delays as ``jitter_ms``,
``lost_packets``, ``one_way_delay_ms``, ``induced_delay_ms``. As in Pairbench's own runs the
aggregate is stream ``"sum"``: the uploads' total (Flent's ``... upload sum`` when it has one,
else the sum of the flows, or the one flow), and ``"sum-reverse"`` the downloads' when both
directions ran (a test of downloads alone has them as ``"sum"``). Flent's other derived
series (averages, totals) and what Pairbench has no metric for (TCP stats, CPU, qdisc) are
left out, each named in the run's notes.
"""

from __future__ import annotations

import bz2
import json
import math
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from pairbench.domain import Record, Summary
from pairbench.tools.base import ParseError, preview
from pairbench.tools.flent_meta import meta_text, raw_times, run_params, start_time

NAME: Final = "flent"
# The newest data-file version Flent writes (flent/resultset.py, Flent 2.x); older ones (1-3)
# have the same x_values/results, which is all that is read here.
FILEFORMAT_VERSION: Final = 4
MAX_JSON_BYTES: Final = 512 * 1024 * 1024
SUFFIXES: Final = (".flent.gz", ".flent.bz2", ".flent")
_GZIP: Final = b"\x1f\x8b"
_BZIP2: Final = b"BZh"
_PIECE: Final = 1 << 20
_THROUGHPUT_SCALE: Final = {"mbits/s": 1e6, "kbits/s": 1e3, "kbps": 1e3, "bits/s": 1.0}
_AGGREGATE_RUNNERS: Final = frozenset({"SumRunner", "AverageRunner", "SmoothAverageRunner"})
_RTT_RUNNERS: Final = frozenset({"PingRunner", "IrttRunner", "UdpRttRunner", "FpingRunner"})
_VOIP_METRICS: Final = {
    "rtt": "rtt_ms",
    "jitter": "jitter_ms",
    "loss": "lost_packets",
    "delay": "one_way_delay_ms",
    "induced_delay": "induced_delay_ms",
}


@dataclass(frozen=True, slots=True)
class FlentRun:
    """What one Flent data file holds, in Pairbench's terms."""

    records: list[Record]
    summary: Summary
    params: dict[str, str]
    started_at: float | None
    hosts: tuple[str, ...]
    local_host: str
    version: str
    text: str  # the file's JSON, as stored with the run
    notes: list[str] = field(default_factory=list)


def looks_like_flent(name: str, head: bytes) -> bool:
    """True for a file named as Flent names its data files, or whose start is gzip or
    bzip2 data (no tool output Pairbench reads is compressed)."""
    lowered = name.lower()
    return lowered.endswith(SUFFIXES) or head.startswith((_GZIP, _BZIP2))


def decompress(data: bytes, limit: int = MAX_JSON_BYTES) -> bytes:
    """The JSON bytes of a data file: gunzipped, bunzipped or as they are; at most
    ``limit`` bytes. The inflated size is counted first, nothing kept, so a small file that
    inflates past the limit is refused without ever holding what it inflates to."""
    if not data.startswith((_GZIP, _BZIP2)):
        return data
    try:
        size = sum(len(piece) for piece in _inflate(data, limit))
        if size > limit:
            raise ParseError(f"its data inflates to more than {limit // 2**20} MiB")
        return b"".join(_inflate(data, limit))
    except (zlib.error, OSError, EOFError) as exc:
        raise ParseError(f"damaged compressed data: {exc}") from exc


def _inflate(data: bytes, limit: int) -> Iterator[bytes]:
    """The inflated pieces of gzip or bzip2 ``data`` (1 MiB at a time), stopping once more
    than ``limit`` bytes came out."""
    total = 0
    if data.startswith(_GZIP):
        gunzip = zlib.decompressobj(wbits=47)
        piece = gunzip.decompress(data, _PIECE)
        while piece:
            total += len(piece)
            yield piece
            if total > limit or not gunzip.unconsumed_tail:
                break
            piece = gunzip.decompress(gunzip.unconsumed_tail, _PIECE)
        if total <= limit:
            yield gunzip.flush()
        return
    bunzip = bz2.BZ2Decompressor()
    piece = bunzip.decompress(data, max_length=_PIECE)
    while piece:
        total += len(piece)
        yield piece
        if total > limit or bunzip.eof:
            break
        piece = bunzip.decompress(b"", max_length=_PIECE)


def read_flent(data: bytes) -> FlentRun:
    """A Flent data file's run; ``ParseError`` saying why when it is not one Pairbench can
    read (not JSON, not Flent's shape, a newer format version)."""
    try:
        raw = decompress(data)
        text = raw.decode("utf-8")
        document = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        if isinstance(exc, ParseError):
            raise
        raise ParseError(f"no JSON in it: {exc}"[:300]) from exc
    except MemoryError:
        raise ParseError(
            f"its {len(data) / 2**20:.0f} MiB do not fit in the memory Pairbench may use"
        ) from None
    if not isinstance(document, dict) or not {"x_values", "results"} <= set(document):
        raise ParseError(
            "its JSON has no x_values and results "
            f"({preview(sorted(document) if isinstance(document, dict) else document)})"
        )
    version = _version(document.get("version", 1))
    metadata = document.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ParseError("its metadata is not an object")
    x = _numbers(document["x_values"], "x_values")
    results = document["results"]
    if not isinstance(results, dict):
        raise ParseError("its results are not an object")
    series_meta = metadata.get("SERIES_META") or {}
    if not isinstance(series_meta, dict):
        series_meta = {}
    chosen, notes = _choose(results, series_meta)
    records = _records(x, chosen)
    summary = _summary(chosen, series_meta, metadata, version)
    started, note = start_time(metadata, raw_times(document.get("raw_values")))
    if note:
        notes.append(note)
    hosts = _hosts(metadata)
    return FlentRun(
        records=records,
        summary=summary,
        params=run_params(metadata, hosts),
        started_at=started,
        hosts=hosts,
        local_host=meta_text(metadata.get("LOCAL_HOST")),
        version=f"Flent {meta_text(metadata.get('FLENT_VERSION'))}".strip(),
        text=text,
        notes=notes,
    )


def _hosts(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """The hosts Flent tested against (``HOSTS``, else ``HOST``), as printable texts."""
    hosts = metadata.get("HOSTS")
    if not isinstance(hosts, list):
        hosts = [hosts if isinstance(hosts, str) else metadata.get("HOST")]
    texts = (meta_text(h) for h in hosts[:16] if isinstance(h, str | int | float))
    return tuple(text for text in texts if text)


# ------------------------------------------------------------------------------ series


@dataclass(frozen=True, slots=True)
class _Chosen:
    """A series kept: its stream, metric and values (scaled), and Flent's own figures of it
    (``SERIES_META``'s ``MEAN_VALUE``, ``MIN_VALUE``, ``MAX_VALUE``: from the raw values or
    the tool's own summary, e.g. iperf's whole-run rate), scaled, where Flent gives them."""

    stream: str
    metric: str
    values: Sequence[float | None]
    mean: float | None = None
    low: float | None = None
    high: float | None = None


def _figure(meta: Mapping[str, Any], key: str, scale: float) -> float | None:
    value = meta.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value) * scale


def _version(value: object) -> int:
    try:
        version = int(str(value))
    except ValueError:
        version = 1  # as Flent reads it (ResultSet.unserialise)
    if version > FILEFORMAT_VERSION:
        raise ParseError(
            f"its format version {version} is newer than Flent's {FILEFORMAT_VERSION}, the "
            "newest Pairbench reads"
        )
    return version


def _numbers(values: object, what: str) -> list[float | None]:
    if not isinstance(values, list):
        raise ParseError(f"its {what} are not a list")
    out: list[float | None] = []
    for value in values:
        if value is None:
            out.append(None)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out.append(float(value))
        else:
            raise ParseError(f"its {what} hold {preview(value)}, not a number")
    return out


def _kind(name: str, meta: Mapping[str, Any]) -> tuple[str, float] | None:
    """(metric, scale) of a series, or None when Pairbench has no metric for it."""
    units = meta_text(meta.get("UNITS")).lower()
    runner = meta_text(meta.get("RUNNER"))
    parts = name.split("::")
    sub = parts[-1] if len(parts) > 1 and not parts[-1].isdigit() else ""
    if sub.startswith("tcp_") or sub == "bitrate":
        return None  # per-flow TCP stats and VoIP's configured bitrate: no such metric
    if sub in _VOIP_METRICS:
        return _VOIP_METRICS[sub], 1.0
    if units in _THROUGHPUT_SCALE:
        return "throughput_bps", _THROUGHPUT_SCALE[units]
    if units == "ms" and (name.lower().startswith("ping") or runner in _RTT_RUNNERS):
        return "rtt_ms", 1.0
    return None


def _direction(name: str) -> str:
    return "download" if "download" in name.lower() else "upload"


def _choose(
    results: Mapping[str, Any], series_meta: Mapping[str, Any]
) -> tuple[list[_Chosen], list[str]]:
    """The series kept (flows, pings...) and the aggregate streams; notes on what was not."""
    chosen: list[_Chosen] = []
    flows: dict[str, list[_Chosen]] = {"upload": [], "download": []}
    sums: dict[str, _Chosen] = {}
    left: list[str] = []
    for name, values in results.items():
        meta = series_meta.get(name) or {}
        meta = meta if isinstance(meta, dict) else {}
        numbers = _numbers(values, f"results of {name!r}")
        kind = _kind(str(name), meta)
        if kind is None:
            left.append(str(name))
            continue
        metric, scale = kind
        one = _Chosen(
            _stream_name(str(name)),
            metric,
            [None if v is None else v * scale for v in numbers],
            _figure(meta, "MEAN_VALUE", scale),
            _figure(meta, "MIN_VALUE", scale),
            _figure(meta, "MAX_VALUE", scale),
        )
        if metric == "throughput_bps" and meta_text(meta.get("RUNNER")) in _AGGREGATE_RUNNERS:
            if meta_text(meta.get("RUNNER")) == "SumRunner" and "total" not in str(name).lower():
                sums.setdefault(_direction(str(name)), one)
            else:
                left.append(str(name))  # an average or the totals: the flows say it
            continue
        if metric == "throughput_bps":
            flows[_direction(str(name))].append(one)
        chosen.append(one)
    both = bool(flows["upload"]) and bool(flows["download"])
    for direction in ("upload", "download"):
        total = sums.get(direction) or _total(flows[direction])
        if total is not None:
            stream = "sum-reverse" if both and direction == "download" else "sum"
            chosen.insert(0, replace(total, stream=stream))
    notes = [f"Flent series not imported (no Pairbench metric, or derived): {', '.join(left)}"]
    return chosen, notes if left else []


def _stream_name(name: str) -> str:
    """A Flent series name as a stream name: printable, bounded, never "sum"."""
    text = meta_text(name)[:120] or "series"
    return f"flent {text}" if text.startswith("sum") else text


def _total(flows: list[_Chosen]) -> _Chosen | None:
    """The flows of a direction summed at each step where every one has a value (their
    means too, when Flent gives each one); the one flow itself."""
    if not flows:
        return None
    if len(flows) == 1:
        return flows[0]
    values: list[float | None] = []
    for column in zip(*(flow.values for flow in flows), strict=False):
        numbers = [v for v in column if v is not None]
        values.append(math.fsum(numbers) if len(numbers) == len(column) else None)
    means = [flow.mean for flow in flows if flow.mean is not None]
    mean = math.fsum(means) if len(means) == len(flows) else None
    return _Chosen("sum", "throughput_bps", values, mean)


def _records(x: Sequence[float | None], chosen: list[_Chosen]) -> list[Record]:
    records: list[Record] = []
    for series in chosen:
        metrics = (series.metric,)
        last = -math.inf
        for t, value in zip(x, series.values, strict=False):
            if t is None or value is None or t <= last:
                continue
            last = t
            records.append(Record(series.stream, t, metrics, (value,)))
    return records


# ----------------------------------------------------------------------------- summary


def _summary(
    chosen: list[_Chosen],
    series_meta: Mapping[str, Any],
    metadata: Mapping[str, Any],
    version: int,
) -> Summary:
    """The run's figures, Flent's own where it gives them (else the mean of the series'
    values): the aggregate throughput of each direction; the mean, least and most RTT of the
    first ping (ICMP's when there is one) or of irtt's VoIP flow, its loss; the mean jitter."""
    values: dict[str, float] = {}
    streams = {(c.stream, c.metric): c for c in chosen}
    for stream, name in (("sum", "throughput_bps"), ("sum-reverse", "throughput_reverse_bps")):
        if (total := streams.get((stream, "throughput_bps"))) is not None:
            values[name] = total.mean if total.mean is not None else _mean(total.values)
    pings = sorted(
        (c for c in chosen if c.metric == "rtt_ms" and any(v is not None for v in c.values)),
        key=lambda c: ("icmp" not in c.stream.lower(), c.stream),
    )
    voip = series_meta.get("VoIP") if isinstance(series_meta.get("VoIP"), dict) else None
    if voip is not None and pings and pings[0].stream.startswith("VoIP"):
        ping = replace(
            pings[0],
            mean=_figure(voip, "RTT_MEAN", 1.0),
            low=_figure(voip, "RTT_MIN", 1.0),
            high=_figure(voip, "RTT_MAX", 1.0),
        )
        if (loss := _figure(voip, "PACKET_LOSS_RATE", 100.0)) is not None:
            values["lost_percent"] = loss
        pings[0] = ping
    if pings:
        ping = pings[0]
        numbers = [v for v in ping.values if v is not None]
        values["rtt_avg_ms"] = ping.mean if ping.mean is not None else _mean(numbers)
        values["rtt_min_ms"] = ping.low if ping.low is not None else min(numbers)
        values["rtt_max_ms"] = ping.high if ping.high is not None else max(numbers)
    jitters = [v for c in chosen if c.metric == "jitter_ms" for v in c.values if v is not None]
    if jitters:
        values["jitter_ms"] = _mean(jitters)
    failed = _count(metadata.get("FAILED_RUNNERS"))
    error = f"Flent says {failed} of its runners failed" if failed else None
    return Summary(values, True, error, f"flent data file v{version}")


def _mean(values: Sequence[float | None]) -> float:
    numbers = [v for v in values if v is not None]
    return math.fsum(numbers) / len(numbers) if numbers else math.nan


def _count(value: object) -> int:
    try:
        return max(0, int(str(value)))
    except ValueError:
        return 0
