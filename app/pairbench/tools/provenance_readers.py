"""What a saved tool output says about its own run: when it started, the addresses of its
client and server, the parameters it ran with and the tool's version (iperf3 JSON and verbose
text, iperf 2, fio JSON, ping -D, uperf -R, nuttcp -v); nothing is guessed. Each tool's
record names its reader (``Tool.provenance``); ``tools/provenance.py`` calls it safely."""

from __future__ import annotations

import datetime
import email.utils
import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Provenance:
    """What an output records about its own run (empty where it records nothing)."""

    started_at: float | None = None  # epoch seconds
    client: str = ""  # the client's address, as the output names it
    server: str = ""  # the address the client reached
    params: Mapping[str, str] = field(default_factory=dict)  # in Pairbench's parameter names
    version: str = ""
    system: str = ""  # the host's description (iperf3's system_info)


# ------------------------------------------------------------------------------ iperf3


def read_iperf3(text: str) -> Provenance:
    start = _iperf3_start_json(text)
    if start is not None:
        return _iperf3_from_json(start)
    return _iperf3_from_text(text)


def _iperf3_start_json(text: str) -> Mapping[str, Any] | None:
    """The ``start`` object of a ``-J`` document or of ``--json-stream``'s start event."""
    for line in text.split("\n"):
        if line.startswith('{"event":"start"'):
            data = json.loads(line).get("data")
            return data if isinstance(data, dict) else None
    at = text.find("{")
    if at < 0 or '"start"' not in text:
        return None
    document, _ = json.JSONDecoder().raw_decode(text[at:])
    start = document.get("start") if isinstance(document, dict) else None
    return start if isinstance(start, dict) else None


def _iperf3_from_json(start: Mapping[str, Any]) -> Provenance:
    stamp = start.get("timestamp") or {}
    started = None
    if "timemillisecs" in stamp:
        started = float(stamp["timemillisecs"]) / 1000.0
    elif "timesecs" in stamp:
        started = float(stamp["timesecs"])
    connected = start.get("connected") or [{}]
    first = connected[0] if connected else {}
    server = str((start.get("connecting_to") or {}).get("host") or first.get("remote_host", ""))
    test = start.get("test_start") or {}
    params: dict[str, str] = {}
    for key, name in (("bytes", "bytes"), ("blocks", "blockcount")):
        if int(test.get(key, 0) or 0):
            params[name] = str(int(test[key]))
    if "duration" in test and not params:  # a run by bytes or blocks has no duration
        params["duration"] = str(int(test["duration"]))
    if float(test.get("interval", 1) or 0) not in (0.0, 1.0):
        params["interval"] = _seconds_text(float(test["interval"]))
    if "num_streams" in test:
        params["streams"] = str(int(test["num_streams"]))
    if str(test.get("protocol", "")).upper() == "UDP":
        params["udp"] = "true"
    for name in ("reverse", "bidir"):
        if int(test.get(name, 0) or 0):
            params[name] = "true"
    if int(test.get("omit", 0) or 0):
        params["omit"] = str(int(test["omit"]))
    if int(test.get("blksize", 0) or 0):
        params["length"] = str(int(test["blksize"]))
    if int(test.get("target_bitrate", 0) or 0):
        params["bitrate"] = str(int(test["target_bitrate"]))
    elif params.get("udp") and "target_bitrate" in test:
        params["bitrate"] = "0"  # UDP at 0: unlimited (iperf3's default would be 1 Mbit/s)
    if int(test.get("tos", 0) or 0):
        params["tos"] = str(int(test["tos"]))
    if int(start.get("fq_rate", 0) or 0):
        params["fq_rate"] = str(int(start["fq_rate"]))
    if int(start.get("sock_bufsize", 0) or 0):
        params["window"] = str(int(start["sock_bufsize"]))
    return Provenance(
        started,
        str(first.get("local_host", "")),
        server,
        params,
        str(start.get("version", "")),
        str(start.get("system_info", "")),
    )


_TIME = re.compile(r"^Time: (.+)$", re.M)
_CONNECTING = re.compile(r"^Connecting to host (\S+), port \d+", re.M)
_CONNECTED = re.compile(r"^\[\s*\d+\] local (\S+) port \d+ connected to (\S+) port \d+", re.M)
_STARTING = re.compile(
    r"^Starting Test: protocol: (\w+), (\d+) streams, (\d+) byte blocks, omitting (\d+) "
    r"seconds, (\d+) (second test|bytes to send|blocks to send)(?:, tos (\d+))?",
    re.M,
)
_ENDS = {"second test": "duration", "bytes to send": "bytes", "blocks to send": "blockcount"}
# The first report of the first stream: its end is the interval (-i).
_FIRST_INTERVAL = re.compile(r"^\[\s*\d+\](?:\[[TR]X-[CS]\])?\s+0\.00-(\d+\.\d+)\s+sec", re.M)
_VERSION = re.compile(r"^(iperf \d+\.\d+\S*)", re.M)


def _iperf3_from_text(text: str) -> Provenance:
    """iperf3's text with ``-V``: ``Time:``, the connection lines and ``Starting Test``."""
    started = None
    if m := _TIME.search(text):
        started = email.utils.parsedate_to_datetime(m.group(1).strip()).timestamp()
    client = server = ""
    if m := _CONNECTED.search(text):
        client, server = m.group(1), m.group(2)
    elif m := _CONNECTING.search(text):
        server = m.group(1)
    params: dict[str, str] = {}
    if m := _STARTING.search(text):
        protocol, streams, block, omit, amount, end, tos = m.groups()
        params = {_ENDS[end]: amount, "streams": streams, "length": block}
        if protocol.upper() == "UDP":
            params["udp"] = "true"
        if omit != "0":
            params["omit"] = omit
        if tos and tos != "0":
            params["tos"] = tos
    if (m := _FIRST_INTERVAL.search(text)) and float(m.group(1)) not in (0.0, 1.0):
        params["interval"] = _seconds_text(float(m.group(1)))
    version = m.group(1) if (m := _VERSION.search(text)) else ""
    system = ""
    if version:
        lines = text.split("\n")
        at = next(i for i, line in enumerate(lines) if line.startswith(version))
        following = lines[at + 1].strip() if at + 1 < len(lines) else ""
        if following.split(" ", 1)[0] in ("Linux", "FreeBSD", "Darwin"):
            system = following
    return Provenance(started, client, server, params, version, system)


def _seconds_text(seconds: float) -> str:
    """An interval as a ``seconds`` parameter writes it: "0.1", "2"."""
    return f"{seconds:.3f}".rstrip("0").rstrip(".")


# --------------------------------------------------------------------------------- fio

# fio's option names that are Pairbench's parameters too (the same names), and how a
# stored value reads back.
_FIO_BOOLS = ("direct", "time_based", "group_reporting", "refill_buffers", "norandommap")


def read_fio(known: Collection[str], text: str) -> Provenance:
    """fio's JSON: ``timestamp_ms`` (when it wrote the document) less the longest job's
    runtime, the global and the first job's options (those among ``known``, fio's
    parameters), ``fio version``."""
    at = text.find("{")
    if at < 0:
        return Provenance()
    document, _ = json.JSONDecoder().raw_decode(text[at:])
    jobs = document.get("jobs") or []
    runtime_ms = max((float(j.get("job_runtime", 0) or 0) for j in jobs), default=0.0)
    started = None
    if "timestamp_ms" in document:
        started = float(document["timestamp_ms"]) / 1000.0 - runtime_ms / 1000.0
    elif "timestamp" in document:
        started = float(document["timestamp"]) - runtime_ms / 1000.0
    options: dict[str, str] = {
        str(k): str(v) for k, v in (document.get("global options") or {}).items()
    }
    if jobs:
        options.update({str(k): str(v) for k, v in (jobs[0].get("job options") or {}).items()})
    params = {k: v for k, v in options.items() if k in known}
    for name in _FIO_BOOLS:
        if name in params:
            params[name] = "true" if params[name] in ("1", "true") else "false"
    if "filename" in options and "device" in known and options["filename"].startswith("/dev/"):
        params["device"] = options["filename"]
    return Provenance(started, "", "", params, str(document.get("fio version", "")), "")


# ------------------------------------------------------------------------ ping, uperf

_PING_HEAD = re.compile(r"^PING (\S+) \(([^)]+)\) (\d+)\(\d+\) bytes of data", re.M)
_PING_STAMP = re.compile(r"^\[(\d+\.\d+)\]", re.M)
_PING_SENT = re.compile(r"^(\d+) packets transmitted", re.M)


def read_ping(text: str) -> Provenance:
    """ping's header (the address and payload size), ``-D`` time stamps, packets sent."""
    server = ""
    params: dict[str, str] = {}
    if m := _PING_HEAD.search(text):
        server = m.group(2)
        params["size"] = m.group(3)
    if m := _PING_SENT.search(text):
        params["count"] = m.group(1)
    started = float(m.group(1)) if (m := _PING_STAMP.search(text)) else None
    return Provenance(started, "", server, params)


_UPERF_STAMP = re.compile(r"^timestamp_ms:(\d+(?:\.\d+)?) ", re.M)
_UPERF_START = re.compile(r"^Starting (\d+) threads running profile:(\S+)", re.M)


def read_uperf(text: str) -> Provenance:
    """uperf ``-R``: the first raw line's ``timestamp_ms``; the threads, and the profile when
    it is one of Pairbench's (``pairbench-latency``, ``pairbench-throughput``)."""
    m = _UPERF_STAMP.search(text)
    params: dict[str, str] = {}
    if start := _UPERF_START.search(text):
        params["threads"] = start.group(1)
        profile = start.group(2).removeprefix("pairbench-")
        if profile in ("latency", "throughput"):
            params["profile"] = profile
    return Provenance(float(m.group(1)) / 1000.0 if m else None, params=params)


_NUTTCP_SETUP = re.compile(
    r"^nuttcp-([tr]): buflen=(\d+), nstream=(\d+), port=\d+ (tcp|udp)(?: -> (\S+))?", re.M
)
_NUTTCP_LIMIT = re.compile(r"^nuttcp-[tr]: time limit = ([\d.]+) seconds", re.M)
_NUTTCP_ACCEPT = re.compile(r"^nuttcp-[tr]: accept from (\S+)", re.M)
_NUTTCP_VERSION = re.compile(r"^nuttcp-[tr]: v(\d+(?:\.\d+)+):", re.M)


def read_nuttcp(text: str) -> Provenance:
    """nuttcp ``-v``: the buffer length, streams, protocol and peer; ``-r`` (the client
    receives) when the client's first line is the receiver's. nuttcp prints no time."""
    m = _NUTTCP_SETUP.search(text)
    if m is None:
        return Provenance()
    side, buflen, nstream, protocol, peer = m.groups()
    params = {"length": buflen, "streams": nstream}
    if protocol == "udp":
        params["udp"] = "true"
    if side == "r":
        params["reverse"] = "true"
    if limit := _NUTTCP_LIMIT.search(text):
        params["duration"] = str(round(float(limit.group(1))))
    server = peer or ""
    if not server and (accept := _NUTTCP_ACCEPT.search(text)):
        server = accept.group(1)
    version = f"nuttcp {v.group(1)}" if (v := _NUTTCP_VERSION.search(text)) else ""
    return Provenance(None, "", server, params, version)


# ------------------------------------------------------------------------------ iperf 2

_IPERF2_CONNECTED = re.compile(
    r"^\[\s*(\d+)\] local (\S+?)(?:%\S+)? port \d+ connected with (\S+?) port \d+(.*)$", re.M
)
_IPERF2_ON = re.compile(r" on (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \(UTC\)")


def read_iperf2(text: str) -> Provenance:
    """iperf 2's client output: the addresses of its "connected with" lines, their number
    (the streams), the start time that ``-e`` writes on them ("on 2026-11-22 00:35:15
    (UTC)"). iperf 2 does not print its version in a run's output."""
    connected = _IPERF2_CONNECTED.findall(text)
    if not connected:
        return Provenance()
    _, client, server, rest = connected[0]
    params = {"streams": str(len({stream for stream, *_ in connected}))}
    started = None
    if on := _IPERF2_ON.search(rest):
        stamp = datetime.datetime.strptime(on.group(1), "%Y-%m-%d %H:%M:%S")
        started = stamp.replace(tzinfo=datetime.UTC).timestamp()
    return Provenance(started, client, server, params)
