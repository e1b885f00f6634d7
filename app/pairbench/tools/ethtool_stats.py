"""``ethtool -S`` output read as counters: per-queue counters summed, the telling ones chosen.

Drivers name their counters freely (see the captures in ``tests/data/ethtool/``): a line is
``name: value``, and per-queue counters come as ``rx_queue_0_drops`` (virtio_net, veth,
igb), ``rx0_drops`` (virtio_net, mlx5, mlx4), ``queue_0_tx_cnt`` (ENA), ``[0]: rx_discards``
(bnx2x), ``rxq0: rx_drops_no_frags`` (be2net), ``rx_posted_desc[0]`` (gVNIC) or a
``Tx Queue#: 0`` section (vmxnet3). ``collapse``
sums a counter's queues under one name without the queue number; when the driver also gives
the device-wide counter of that name (virtio_net's ``rx_drops`` beside ``rx0_drops``), that
one is kept and the queues' sum dropped.

``telling`` picks what the sampler stores: every allowance counter present (AWS ENA), then
the counters whose names say drops, discards, errors, missed packets, exhausted buffers or
allowances, in the driver's order, at most ``MAX_COUNTERS``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

from pairbench.domain.telemetry import ALLOWANCE_COUNTERS, ALLOWANCE_GAUGES

MAX_COUNTERS: Final = 40

_LINE = re.compile(r"^\s*(?P<name>\S(?:.*\S)?)\s*:\s*(?P<value>-?\d+)\s*$")
_SECTION = re.compile(r"^\s*(Tx|Rx) Queue#:\s*(\d+)\s*$")
# A queue's number in a counter's name, with what marks it (the number becomes "").
_QUEUE_FORMS: Final = (
    re.compile(r"^\[(\d+)\]:\s*"),  # bnx2x "[0]: rx_discards"
    re.compile(r"^(rx|tx)q(\d+):\s*"),  # be2net "rxq0: rx_bytes"
    re.compile(r"\[(\d+)\]$"),  # gve "rx_posted_desc[0]"
    re.compile(r"(?:^|_)(?:queue|q|ch|channel)_?(\d+)(?=_|$)"),  # rx_queue_0_drops, queue_0_x
    re.compile(r"^(rx|tx)(\d+)_"),  # virtio_net / mlx5 "rx0_drops", mlx4 "tx0_bytes"
)
# Words of a counter name that tell a limit, a loss or a fault.
_TELLING = re.compile(
    r"allowance|drop|discard|err|miss|no_?buf|out_of_buffer|no_wqe|no_memory|no_space|"
    r"overrun|overflow|fifo|timeout|fail|exhaust|busy|stopped|full"
)


def parse(text: str) -> dict[str, int]:
    """``ethtool -S`` output as {name: value} in the driver's order (headers and lines that
    are not ``name: number`` skipped; a name given twice keeps its last value). vmxnet3's
    queue sections (``Tx Queue#: 0`` with its counters indented under it) become per-queue
    names (``txq0: ring full``)."""
    counters: dict[str, int] = {}
    section: tuple[str, int] | None = None  # (name prefix, the header's indent)
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        header = _SECTION.match(line)
        if header is not None:
            section = (f"{header[1].lower()}q{header[2]}: ", indent)
            continue
        if section is not None and indent <= section[1]:
            section = None
        match = _LINE.match(line)
        if match is not None:
            prefix = section[0] if section is not None else ""
            counters[prefix + match["name"]] = int(match["value"])
    return counters


def queue_free(name: str) -> str | None:
    """The name of a per-queue counter without its queue (``rx_queue_0_drops`` →
    ``rx_queue_drops``, ``rx0_drops`` → ``rx_drops``, ``rxq0: rx_bytes`` → ``rxq_rx_bytes``);
    None for a device-wide counter."""
    bracket, be2net, suffix, word, prefix = _QUEUE_FORMS
    if (m := bracket.match(name)) is not None:
        return name[m.end() :]
    if (m := be2net.match(name)) is not None:
        return f"{m[1]}q_{name[m.end() :]}"
    if (m := suffix.search(name)) is not None:
        return name[: m.start()]
    if (m := word.search(name)) is not None:
        return (name[: m.start(1)] + name[m.end(1) :]).replace("__", "_").strip("_")
    if (m := prefix.match(name)) is not None:
        return f"{m[1]}_{name[m.end() :]}"
    return None


def collapse(counters: Mapping[str, int]) -> dict[str, int]:
    """Device-wide counters as given, per-queue counters summed over their queues (unless the
    device-wide counter of that name exists), in order of first appearance."""
    out: dict[str, int] = {}
    queues: dict[str, int] = {}
    for name, value in counters.items():
        free = queue_free(name)
        if free is None:
            out[name] = value
        else:
            queues[free] = queues.get(free, 0) + value
    for name, total in queues.items():
        if name not in out:
            out[name] = total
    return out


def telling(names: Iterable[str], limit: int = MAX_COUNTERS) -> list[str]:
    """The counters worth storing, allowance counters and gauges first, then the telling
    ones in the given order, at most ``limit``."""
    given = list(names)
    chosen: list[str] = [n for n in (*ALLOWANCE_COUNTERS, *ALLOWANCE_GAUGES) if n in given]
    chosen += [n for n in given if n not in chosen and _TELLING.search(n)]
    return chosen[:limit]
