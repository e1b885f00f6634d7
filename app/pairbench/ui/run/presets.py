"""Run presets taken from the field reports (plain data, Qt-free), and user presets as JSON.

Each built-in preset names the tool and only the parameters that differ from the tool's
defaults; where it came from is in ``source`` (a file under ``shared/field-reports``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field


def burst_probe_label(streams: str, after_step_s: float) -> str:
    """The burst probe's label for its parameters (the preset's name with the defaults)."""
    count = f"{streams} stream" + ("" if streams == "1" else "s")
    return f"Burst probe (iperf3, {count}, stops {after_step_s:g} s after the step)"


BURST_PROBE_PRESET = burst_probe_label("2", 30)


@dataclass(frozen=True, slots=True)
class Preset:
    """A named set of parameter values for one tool."""

    name: str
    tool: str
    params: Mapping[str, str] = field(default_factory=dict)
    source: str = ""  # the field report it reproduces; "" for a user's own preset
    user: bool = False
    probe: str = ""  # "burst": started as the burst probe (engine.burst), not a plain run


BUILTIN_PRESETS: tuple[Preset, ...] = (
    Preset(
        "uperf latency (90-byte request/response)",
        "uperf",
        {"profile": "latency", "protocol": "tcp", "size": "90", "threads": "1", "duration": "30"},
        "uperf-latency-throughput-oci-vs-aws.txt: netperf.xml, 90-byte write + read, 30 s",
    ),
    Preset(
        "uperf throughput (8 threads, 8k writes)",
        "uperf",
        {
            "profile": "throughput",
            "protocol": "tcp",
            "size": "8k",
            "count": "10",
            "threads": "8",
            "wndsz": "500k",
            "duration": "30",
        },
        "uperf-latency-throughput-oci-vs-aws.txt: iperf.xml, nthr=8, count=10 size=8k, 30 s",
    ),
    Preset(
        "iperf3 TCP, 2 streams",
        "iperf3",
        {"streams": "2", "duration": "10"},
        "ec2-r4-burst-credits-iperf3.txt: two parallel streams avoid the 5 Gbit/s flow limit",
    ),
    Preset(
        "iperf3 TCP long run for burst credits (2 streams, 1 h, 1 s intervals)",
        "iperf3",
        {"streams": "2", "duration": "3600"},
        "ec2-r4-burst-credits-iperf3.txt: iperf3 -i 1 -t 3600 -P 2",
    ),
    Preset(
        BURST_PROBE_PRESET,
        "iperf3",
        {"streams": "2", "duration": "3600"},
        "ec2-r4-burst-credits-iperf3.txt: the long run, ended once the step is measured",
        probe="burst",
    ),
    Preset(
        "iperf3 UDP 1400-byte datagrams",
        "iperf3",
        {"udp": "true", "length": "1400", "bitrate": "1G", "duration": "10"},
        "iperf3-nuttcp-udp-tips-oci.txt: UDP jitter and loss on a 1 Gbit/s shape",
    ),
    Preset(
        "nuttcp UDP 8000-byte at 2 Gbit/s",
        "nuttcp",
        {"udp": "true", "length": "8000", "rate": "2g", "duration": "600"},
        "iperf3-nuttcp-udp-tips-oci.txt: 8000-byte datagrams at 2000 Mbit/s for 600 s",
    ),
    Preset(
        "ping 1400 bytes",
        "ping",
        {"count": "50", "size": "1400", "interval": "0.2"},
        "uperf-latency-throughput-oci-vs-aws.txt: ping -c 50 -s 1400 -i 0.2",
    ),
    Preset(
        "fio 4k random read QD32",
        "fio",
        {"rw": "randread", "bs": "4k", "iodepth": "32", "runtime": "60"},
        "fio-snia-pts-nvme-oci-vs-aws.txt: IOPS at small blocks, 32 outstanding I/Os",
    ),
    Preset(
        "fio 1M sequential read",
        "fio",
        {"rw": "read", "bs": "1M", "iodepth": "32", "runtime": "60"},
        "fio-snia-pts-nvme-oci-vs-aws.txt: throughput at 1024 KiB blocks",
    ),
)


def presets_to_json(presets: list[Preset]) -> str:
    """User presets as a JSON list (what the settings store)."""
    return json.dumps(
        [{"name": p.name, "tool": p.tool, "params": dict(p.params)} for p in presets],
        sort_keys=True,
    )


def presets_from_json(text: str) -> list[Preset]:
    """User presets from ``presets_to_json`` output; malformed entries are skipped."""
    try:
        items = json.loads(text) if text else []
    except ValueError:
        return []
    presets: list[Preset] = []
    if not isinstance(items, list):
        return presets
    for item in items:
        if not isinstance(item, dict):
            continue
        name, tool, params = item.get("name"), item.get("tool"), item.get("params")
        if not isinstance(name, str) or not isinstance(tool, str) or not isinstance(params, dict):
            continue
        clean = {str(k): str(v) for k, v in params.items()}
        presets.append(Preset(name, tool, clean, user=True))
    return presets
