"""A host sampler's lines → telemetry records on the run's time axis (pure: no I/O, no clock).

``SamplerParser(role, start)`` reads what ``tools/host_sampler.py`` prints on one host. Each
sample (``#t`` … ``#end``) is compared with the one before (``ss`` and ``ethtool`` with the
last sample that had them) and gives records (``tools/sampler_rates.py``); the first sample is
the baseline and gives none. Times: the sample's host clock, placed on the run's axis by the
first sample's arrival (``Line.t_received`` − ``start``, the controller's monotonic time at
which the tool started): the host's intervals are kept exact, the anchor is off by the
transport's delay (milliseconds).

``meta`` holds the sampler's greeting (interface, boot id, cores, what it could read) and
``notes`` what it could not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from pairbench.domain import Line, LineSource, Record
from pairbench.domain.telemetry import NIC, ROLES, Role, ethtool_metric, stream_name
from pairbench.tools import ethtool_stats, ss_stats
from pairbench.tools.sampler_rates import (
    conn_record,
    cpu_records,
    disk_record,
    net_record,
    proc_record,
    rate,
    snmp_records,
    sock_record,
)

MAX_NOTES: Final = 20
# A line longer than this is no sampler's (it is skipped): a bounded parser.
MAX_LINE: Final = 1 << 16


@dataclass
class _Sample:
    """One sample as read: the host's time (µs) and its sections."""

    t_us: int
    stat: dict[str, list[int]] = field(default_factory=dict)
    net: list[int] | None = None
    snmp: dict[tuple[str, str], int] = field(default_factory=dict)
    procs: dict[Role, dict[int, tuple[int, int]]] = field(default_factory=dict)
    disks: dict[str, list[int]] = field(default_factory=dict)
    ethtool: list[str] | None = None
    ss: list[str] | None = None


def _ints(words: list[str]) -> list[int] | None:
    try:
        return [int(w) for w in words]
    except ValueError:
        return None


class SamplerParser:
    """Reads one host's sampler (``role`` is the host's role in the pair)."""

    def __init__(self, role: Role, start: float, *, proto: str = "") -> None:
        self.role = role
        self.start = start
        self.proto = proto
        self.meta: dict[str, str] = {}
        self.notes: list[str] = []
        self._headers: dict[str, list[str]] = {}
        self._sample: _Sample | None = None
        self._section = ""
        self._proc_role: Role | None = None
        self._before: _Sample | None = None
        self._slow_before: _Sample | None = None
        self._anchor: tuple[int, float] | None = None  # (first t_us, its run time)
        self._counters: list[str] | None = None  # the ethtool counters stored, once chosen

    def feed(self, line: Line) -> list[Record]:
        """The records ``line`` completes (a sample's ``#end``), else none."""
        text = line.text
        if len(text) > MAX_LINE:
            return []
        if line.source == LineSource.SAMPLER_ERR:
            self._note(text.strip())
            return []
        if text.startswith("#"):
            return self._marker(text, line.t_received)
        sample = self._sample
        if sample is not None and text.strip():
            self._read(sample, text)
        return []

    def _note(self, text: str) -> None:
        if text and len(self.notes) < MAX_NOTES:
            self.notes.append(text[:300])

    def _marker(self, text: str, received: float) -> list[Record]:
        word, _, rest = text.partition(" ")
        if word == "#t":
            t_us = _ints(rest.split()[:1])
            self._sample = _Sample(t_us[0]) if t_us else None
            if t_us and self._anchor is None:
                self._anchor = (t_us[0], received - self.start)
            self._section = ""
        elif word == "#end":
            done, self._sample = self._sample, None
            return self._finish(done) if done is not None else []
        elif word == "#hello":
            for item in rest.split():
                key, _, value = item.partition("=")
                self.meta[key] = value
        elif word == "#note":
            self._note(rest)
        elif word == "#net":
            if self._sample is not None:
                self._sample.net = _ints(rest.split())
            self._section = ""
        else:
            self._section = word[1:]
            self._proc_role = None
            if word == "#proc" and rest.strip() in ROLES:
                self._proc_role = "client" if rest.strip() == "client" else "server"
                if self._sample is not None:
                    self._sample.procs.setdefault(self._proc_role, {})
            if self._sample is not None and word == "#ethtool":
                self._sample.ethtool = []
            if self._sample is not None and word == "#ss":
                self._sample.ss = []
        return []

    def _read(self, sample: _Sample, text: str) -> None:
        section = self._section
        words = text.split()
        if section == "stat" and words[0].startswith("cpu"):
            numbers = _ints(words[1:])
            if numbers is not None:
                sample.stat[words[0]] = numbers
        elif section == "snmp" and words[0].endswith(":"):
            prefix = words[0][:-1]
            numbers = _ints(words[1:])
            if numbers is None:
                self._headers[prefix] = words[1:]
            else:
                names = self._headers.get(prefix, [])
                sample.snmp.update(((prefix, n), v) for n, v in zip(names, numbers, strict=False))
        elif section == "proc" and self._proc_role is not None:
            numbers = _ints(words[:3])
            if numbers is not None and len(numbers) == 3:
                sample.procs[self._proc_role][numbers[0]] = (numbers[1], numbers[2])
        elif section == "disk" and len(words) >= 14:
            numbers = _ints(words[3:14])
            if numbers is not None:
                sample.disks[words[2]] = numbers
        elif section == "ethtool" and sample.ethtool is not None:
            sample.ethtool.append(text)
        elif section == "ss" and sample.ss is not None:
            sample.ss.append(text)

    def _time(self, sample: _Sample) -> float:
        assert self._anchor is not None
        first_us, first_t = self._anchor
        return first_t + (sample.t_us - first_us) / 1e6

    def _finish(self, sample: _Sample) -> list[Record]:
        before, self._before = self._before, sample
        records: list[Record] = []
        if sample.ethtool is not None or sample.ss is not None:
            slow, self._slow_before = self._slow_before, sample
            if slow is not None:
                records += self._slow_records(slow, sample)
        if before is None:
            return records
        dt = (sample.t_us - before.t_us) / 1e6
        if dt <= 0:
            return records
        t = self._time(sample)
        role = self.role
        fast = cpu_records(role, t, before.stat, sample.stat)
        if before.net is not None and sample.net is not None:
            fast.append(net_record(role, t, before.net, sample.net, dt))
        if sample.snmp and before.snmp:
            fast += snmp_records(role, t, before.snmp, sample.snmp, dt)
        for proc_role, threads in sample.procs.items():
            fast.append(proc_record(proc_role, t, before.procs.get(proc_role, {}), threads, dt))
        disk = disk_record(role, t, before.disks, sample.disks, dt)
        if disk is not None:
            fast.append(disk)
        return fast + records

    def _slow_records(self, before: _Sample, sample: _Sample) -> list[Record]:
        dt = (sample.t_us - before.t_us) / 1e6
        if dt <= 0:
            return []
        t = self._time(sample)
        records: list[Record] = []
        if before.ethtool is not None and sample.ethtool is not None:
            nic = self._nic_record(t, before.ethtool, sample.ethtool, dt)
            if nic is not None:
                records.append(nic)
        if before.ss is not None and sample.ss is not None:
            then, now = ss_stats.parse(before.ss), ss_stats.parse(sample.ss)
            if self.proto == "tcp":
                records.append(conn_record(self.role, t, then, now, dt))
            elif self.proto == "udp":
                sock = sock_record(self.role, t, then, now, dt)
                if sock is not None:
                    records.append(sock)
        return records

    def _nic_record(
        self, t: float, before: list[str], after: list[str], dt: float
    ) -> Record | None:
        then = ethtool_stats.collapse(ethtool_stats.parse("\n".join(before)))
        now = ethtool_stats.collapse(ethtool_stats.parse("\n".join(after)))
        if self._counters is None:
            self._counters = ethtool_stats.telling(now)
            self.meta["ethtool_counters"] = ",".join(self._counters)
        if not self._counters:
            return None
        values = []
        for name in self._counters:
            if name not in now or name not in then:
                values.append(float("nan"))
            elif ethtool_metric(name).endswith("_pps"):
                values.append(rate(then[name], now[name], dt))
            else:
                values.append(float(now[name]))
        metrics = tuple(ethtool_metric(name) for name in self._counters)
        return Record(stream_name(self.role, NIC), t, metrics, tuple(values))
