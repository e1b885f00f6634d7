"""The rate a run was told to keep (iperf3 ``bitrate``, nuttcp ``rate``, fio ``rate_iops``,
ping's ``interval``), as the summary metric it shows in: what the diagnosis calls ``rate``."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pairbench.domain.diagnosis import Target
from pairbench.tools.params import is_true, rate_bits

# iperf3 sends UDP at 1 Mbit/s when no bitrate is given (its -b default).
IPERF3_UDP_DEFAULT = "1M"
_FIO_SETTING = re.compile(r"^\s*(rate_iops|numjobs)\s*=\s*([\d,\s]+?)\s*$", re.MULTILINE)


def run_target(tool: str, params: Mapping[str, str]) -> Target | None:
    """The run's own target rate, or None when it was to go as fast as it could."""
    try:
        if tool == "iperf3":
            return _iperf3(params)
        if tool == "nuttcp" and is_true(params.get("udp", "false")):
            rate = params.get("rate", "1g")
            return Target("throughput_bps", rate_bits(rate), f"rate={rate}")
        if tool == "fio":
            return _fio(params)
        if tool == "ping":
            interval = float(params.get("interval", "1") or 1)
            return Target("packets_per_s", 1.0 / interval, f"interval={params.get('interval')}")
    except (ValueError, KeyError, ZeroDivisionError):
        return None
    return None


def _iperf3(params: Mapping[str, str]) -> Target | None:
    """``bitrate``: empty is iperf3's default (UDP 1 Mbit/s, TCP unlimited), 0 unlimited."""
    bitrate = params.get("bitrate", "")
    udp = is_true(params.get("udp", "false"))
    if not bitrate and udp:
        bitrate = IPERF3_UDP_DEFAULT
        setting = f"bitrate unset (iperf3's UDP default, {IPERF3_UDP_DEFAULT})"
    elif not bitrate:
        return None
    else:
        setting = f"bitrate={bitrate}"
    value = rate_bits(bitrate)
    if value <= 0:
        return None
    streams = int(params.get("streams", "1") or 1)  # -b is per stream
    if is_true(params.get("bidir", "false")):
        return None  # two directions, one target each: not one figure to hold it against
    return Target("throughput_bps", value * streams, setting)


def _fio(params: Mapping[str, str]) -> Target | None:
    """fio's ``rate_iops`` (per job, times its ``numjobs``) from its job file or parameters."""
    settings = dict(params)
    for name, value in _FIO_SETTING.findall(params.get("jobfile_text", "")):
        settings.setdefault(name, value)
    rate = settings.get("rate_iops", "")
    if not rate:
        return None
    per_job = sum(int(part) for part in rate.replace(" ", "").split(",") if part)
    jobs = int(settings.get("numjobs", "1") or 1)
    return Target("iops", float(per_job * jobs), f"rate_iops={rate}")


def data_sender(tool: str, params: Mapping[str, str]) -> str | None:
    """Which host sends the data ("client" or "server"); None when both do or none does
    (bidirectional runs, request/response, ping, fio)."""
    if tool in ("iperf3", "nuttcp"):
        if is_true(params.get("bidir", "false")):
            return None
        return "server" if is_true(params.get("reverse", "false")) else "client"
    if tool == "iperf2":
        return "client"
    if tool == "uperf":
        return "client" if params.get("profile", "latency") == "throughput" else None
    return None


def socket_proto(tool: str, params: Mapping[str, str]) -> str:
    """The transport protocol of the tool's data sockets: "tcp", "udp", or "" (ping, fio)."""
    if tool in ("iperf3", "nuttcp"):
        return "udp" if is_true(params.get("udp", "false")) else "tcp"
    if tool == "iperf2":
        return "tcp"
    if tool == "uperf":
        return "udp" if params.get("protocol", "tcp") == "udp" else "tcp"
    return ""
