"""What limited a run: its verdict from the tool's series and the hosts' telemetry (pure).

``diagnose(DiagnosisInput)`` tries the rules in this order, the first that holds decides:

1. **rate**: the tool's own target (iperf3 ``bitrate``, nuttcp ``rate``, fio ``rate_iops``,
   ping's ``interval``) was reached: the summary is at least ``RATE_REACHED`` of it.
2. **receive-buffer** (UDP): the receiver's ``UdpRcvbufErrors`` rose in most steady
   intervals and add up to at least ``RCVBUF_SHARE`` of the datagrams it received.
3. **cpu**: on one host a core was at least ``CORE_FULL`` busy (softirq and irq included) in
   most steady intervals while throughput stayed flat (CV ≤ ``FLAT_CV``), and that busy core
   was the run's: the tool's busiest thread ran or waited for a CPU at least ``THREAD_FULL``
   of the time (a thread blocked on a full socket or a slow link sleeps instead), or the
   core was mostly in softirq/irq (the network stack). When both hosts share a kernel (a lab
   on one machine), the host is the one whose tool thread needed it. Also cpu: the tool's
   busiest thread seldom slept (ran or waited for a CPU at least ``THREAD_ALONE`` of the time:
   it was not waiting on the network), whatever the cores' accounting: on two cores a sender
   and a receiver bouncing work between them leave both ~80 % busy and neither full. Before the
   window: a receiver too slow to read leaves its window full, which is its CPU's doing.
4. **window** (TCP): the sender's connections were limited by the peer's receive window or
   their own send buffer (ss's ``rwnd_limited`` + ``sndbuf_limited``) over at least
   ``WINDOW_SHARE`` of their busy time, and throughput is window ÷ RTT within a factor of
   ``WINDOW_MATCH``.
5. **network**: none of the above, with telemetry from the hosts to say so: neither host was
   the limit, so the path (or the provider's allowance) was; rising allowance counters
   (AWS ENA) are named first.
6. **unknown**, with the reason: no telemetry (an imported run), no throughput, or evidence
   that decides nothing.

fio runs (``diagnose_storage``): rate; **device** (the disk ≥ ``DEVICE_BUSY`` utilised most of
the run); cpu; else unknown with the disk's utilisation as evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from pairbench.analysis.telemetry_view import MOST, RunView, SeriesLike, median_of, most_common
from pairbench.domain.diagnosis import Diagnosis, Target
from pairbench.domain.telemetry import ALLOWANCE_COUNTERS, ALLOWANCE_MEANING, ROLES, Role
from pairbench.domain.units import format_value

RATE_REACHED: Final = 0.95
RCVBUF_SHARE: Final = 0.001
WINDOW_SHARE: Final = 50.0
WINDOW_MATCH: Final = 2.0
CORE_FULL: Final = 95.0
THREAD_FULL: Final = 60.0
THREAD_ALONE: Final = 80.0
KERNEL_SHARE: Final = 50.0
FLAT_CV: Final = 0.5
DEVICE_BUSY: Final = 90.0
NO_TELEMETRY: Final = (
    "no host telemetry was recorded with this run (an imported output, or a run from before "
    "Pairbench sampled its hosts)"
)


@dataclass(frozen=True, slots=True)
class DiagnosisInput:
    """A finished run as the diagnosis reads it.

    ``telemetry``: the samplers' ``telemetry`` analysis; ``target``: the rate the tool was
    told to keep; ``sender``: the role sending the data (None: both or neither); ``proto``:
    "tcp", "udp" or ""; ``rmem_max``: each host's ``net.core.rmem_max`` (its facts).
    """

    tool: str
    status: str
    summary: Mapping[str, float]
    series: Sequence[SeriesLike]
    telemetry: Mapping[str, Any] | None = None
    target: Target | None = None
    sender: Role | None = None
    proto: str = ""
    rmem_max: Mapping[str, str] = field(default_factory=dict)


def diagnose(given: DiagnosisInput) -> Diagnosis:
    """The run's verdict (see the module's docstring for the rules)."""
    view = RunView(given.series, given.telemetry)
    if given.tool == "fio":
        return diagnose_storage(given, view)
    found = _rate(given)
    if found is not None:
        return found
    if not view.has_telemetry():
        return Diagnosis("unknown", None, (NO_TELEMETRY,))
    measured = given.summary.get("throughput_bps") is not None or any(
        not view.tool(metric).empty for metric in ("throughput_bps", "ops_per_s")
    )
    if not measured:
        return Diagnosis("unknown", None, ("the run measured no throughput to explain",))
    for rule in (_receive_buffer, _cpu, _window):
        found = rule(given, view)
        if found is not None:
            return found
    return _network(given, view)


# --- rate ------------------------------------------------------------------------------------


def _measured(given: DiagnosisInput, target: Target) -> float | None:
    summary = given.summary
    if target.metric == "iops":
        parts = [summary.get("read_iops"), summary.get("write_iops")]
        found = [p for p in parts if p is not None and np.isfinite(p)]
        return float(sum(found)) if found else None
    value = summary.get(target.metric)
    return float(value) if value is not None and np.isfinite(value) else None


def _rate(given: DiagnosisInput) -> Diagnosis | None:
    target = given.target
    if target is None:
        return None
    if given.tool == "ping":
        return Diagnosis(
            "rate",
            None,
            (
                f"ping sends one request every {1 / target.value:g} s ({target.setting}): it "
                "measures the round trip at its own pace, not what the path can carry",
            ),
        )
    measured = _measured(given, target)
    if measured is None or target.value <= 0 or measured < RATE_REACHED * target.value:
        return None
    shown = format_value(target.metric, measured) if target.metric != "iops" else f"{measured:,.0f}"
    return Diagnosis(
        "rate",
        None,
        (
            f"the tool's own target {target.setting} was reached: {shown} measured "
            f"({100 * measured / target.value:.0f} % of it)",
        ),
    )


# --- receive buffer --------------------------------------------------------------------------


def _receiver(given: DiagnosisInput) -> Role | None:
    if given.sender == "client":
        return "server"
    if given.sender == "server":
        return "client"
    return None


def _receive_buffer(given: DiagnosisInput, view: RunView) -> Diagnosis | None:
    receiver = _receiver(given)
    if given.proto != "udp" or receiver is None:
        return None
    errors = view.pick(f"{receiver}:udp", "udp_rcvbuf_error_pps")
    received = view.pick(f"{receiver}:udp", "udp_in_pps")
    if errors.empty or errors.share(errors.v > 0) < MOST / 2:
        return None
    total_received = float(np.sum(received.v)) + float(np.sum(errors.v))
    if total_received <= 0 or float(np.sum(errors.v)) < RCVBUF_SHARE * total_received:
        return None
    buffer = view.pick(f"{receiver}:sock", "sock_rcvbuf_bytes", steady=False).median()
    rmem = given.rmem_max.get(receiver, "")
    size = f"the socket buffer is {buffer:,.0f} bytes" if np.isfinite(buffer) else ""
    advice = "raise net.core.rmem_max" + (f" (now {int(rmem):,})" if rmem.isdigit() else "")
    share = 100 * float(np.sum(errors.v)) / total_received
    evidence = [
        f"UdpRcvbufErrors +{errors.mean():,.0f}/s on the {receiver}"
        + (f"; {size}" if size else "")
        + f": {advice} or set window",
        f"{share:.1f} % of the datagrams reaching the {receiver} overflowed its socket buffer "
        f"in {errors.share(errors.v > 0) * 100:.0f} % of the intervals",
    ]
    return Diagnosis("receive-buffer", receiver, tuple(evidence))


# --- window ------------------------------------------------------------------------------------


def _window(given: DiagnosisInput, view: RunView) -> Diagnosis | None:
    sender = given.sender
    if given.proto != "tcp" or sender is None:
        return None
    stream = f"{sender}:conn"
    rwnd = view.pick(stream, "conn_rwnd_limited_percent")
    sndbuf = view.pick(stream, "conn_sndbuf_limited_percent")
    if rwnd.empty and sndbuf.empty:
        return None
    rwnd_share, sndbuf_share = rwnd.mean(), sndbuf.mean()
    limited = np.nansum([rwnd_share, sndbuf_share])
    if limited < WINDOW_SHARE:
        return None
    by_receiver = np.nan_to_num(rwnd_share) >= np.nan_to_num(sndbuf_share)
    window = view.pick(stream, "conn_snd_wnd_bytes" if by_receiver else "conn_sndbuf_bytes")
    rtt = view.pick(stream, "conn_rtt_ms")
    measured = given.summary.get("throughput_bps")
    if measured is None or not np.isfinite(measured):
        measured = view.tool("throughput_bps").median()
    if window.empty or rtt.empty or not np.isfinite(measured) or rtt.median() <= 0:
        return None
    expected = 8 * window.median() / (rtt.median() / 1000)
    if not 1 / WINDOW_MATCH <= measured / expected <= WINDOW_MATCH:
        return None
    receiver = _receiver(given)
    host = receiver if by_receiver else sender
    what = f"the {receiver}'s receive window" if by_receiver else f"the {sender}'s send buffer"
    evidence = (
        f"{what} limited the sender {limited:.0f} % of its busy time (ss: rwnd_limited "
        f"{np.nan_to_num(rwnd_share):.0f} %, sndbuf_limited {np.nan_to_num(sndbuf_share):.0f} %)",
        f"throughput {format_value('throughput_bps', measured)} ≈ window "
        f"{format_value('conn_snd_wnd_bytes', window.median())} ÷ RTT "
        f"{format_value('conn_rtt_ms', rtt.median())} = {format_value('throughput_bps', expected)}",
    )
    return Diagnosis("window", host, evidence)


# --- cpu -----------------------------------------------------------------------------------


def _flat_cv(view: RunView, given: DiagnosisInput) -> float:
    for metric in ("throughput_bps", "ops_per_s", "read_iops", "write_iops"):
        picked = view.tool(metric)
        if picked.v.size >= 2 and picked.mean() > 0:
            return float(np.std(picked.v) / picked.mean())
    return 0.0


def _thread_need(view: RunView, role: Role) -> float:
    """How much of a core the tool's busiest thread on ``role`` needed: running plus waiting
    for a CPU, % of the time (median over the steady part; NaN when not known)."""
    ran = view.pick(f"{role}:proc", "proc_thread_max_percent")
    waited = view.pick(f"{role}:proc", "proc_thread_wait_percent")
    if ran.empty:
        return float("nan")
    n = min(ran.v.size, waited.v.size)
    need = ran.v[:n] + waited.v[:n] if n else ran.v
    return median_of(need)


@dataclass(frozen=True, slots=True)
class _CoreUse:
    """A host's busiest core over the steady part, and what the tool's thread needed."""

    role: Role
    share: float  # of the intervals with a core at least CORE_FULL busy
    busy: float  # the busiest core's median busy %
    core: int  # the core most often the busiest
    kernel: float  # softirq + irq, % of its busy time
    need: float  # the tool's busiest thread: ran or waited for a CPU, % of the time

    @property
    def full_core(self) -> bool:
        return self.share >= MOST

    @property
    def whole_thread(self) -> bool:
        """The tool's thread seldom slept: the CPU, not the network, kept it waiting."""
        return bool(np.isfinite(self.need) and self.need >= THREAD_ALONE)

    @property
    def runs_it(self) -> bool:
        """The full core was the run's: its thread needed it, or the network stack did."""
        return bool(np.isfinite(self.need) and self.need >= THREAD_FULL) or (
            self.kernel >= KERNEL_SHARE
        )


def _core_use(view: RunView, role: Role, need: float) -> _CoreUse | None:
    busiest = view.busiest_core(role)
    if busiest is None:
        return None
    busy, kernel, core = busiest
    full = busy >= CORE_FULL
    pick = full if bool(np.any(full)) else np.ones_like(full)
    return _CoreUse(
        role,
        float(np.mean(full)),
        median_of(busy[pick]),
        most_common(core[pick]),
        median_of(100 * kernel[pick] / np.maximum(busy[pick], 1e-9)),
        need,
    )


def _cpu(given: DiagnosisInput, view: RunView) -> Diagnosis | None:
    if _flat_cv(view, given) > FLAT_CV:
        return None
    needs = {role: _thread_need(view, role) for role in ROLES}
    if view.shared_kernel:  # one machine's cores: the host is the one whose tool needed one
        known = {r: n for r, n in needs.items() if np.isfinite(n)}
        roles: tuple[Role, ...] = (max(known, key=lambda r: known[r]),) if known else ROLES
    else:
        roles = ROLES
    uses = [u for role in roles if (u := _core_use(view, role, needs[role])) is not None]
    limited = [u for u in uses if (u.full_core and u.runs_it) or u.whole_thread]
    if not limited:
        return None
    use = max(limited, key=lambda u: (np.nan_to_num(u.need), u.busy))
    cv = _flat_cv(view, given) * 100
    evidence = []
    if use.whole_thread:
        ran = view.pick(f"{use.role}:proc", "proc_thread_max_percent").median()
        evidence.append(
            f"{given.tool}'s busiest thread on the {use.role} seldom slept: it ran "
            f"{ran:.0f} % of the time and waited for a CPU {max(use.need - ran, 0):.0f} %, "
            f"slept on its sockets {max(100 - use.need, 0):.0f} %; throughput flat "
            f"(CV {cv:.0f} %)"
        )
        evidence.append(
            f"{use.role} core {use.core}: {use.busy:.0f} % busy ({use.kernel:.0f} % of it "
            "softirq and irq)"
        )
    else:
        evidence.append(
            f"{use.role} core {use.core}: {use.busy:.0f} % busy ({use.kernel:.0f} % of it "
            f"softirq and irq) in {use.share * 100:.0f} % of the intervals, throughput flat "
            f"(CV {cv:.0f} %)"
        )
        if np.isfinite(use.need):
            ran = view.pick(f"{use.role}:proc", "proc_thread_max_percent").median()
            waited = max(use.need - ran, 0)
            evidence.append(
                f"{given.tool}'s busiest thread on the {use.role} ran {ran:.0f} % of the time "
                f"and waited for a CPU {waited:.0f} %"
                + (": other processes held the cores" if waited >= ran else "")
            )
    if view.shared_kernel:
        evidence.append(
            "client and server share one kernel (one machine): the host named is the one "
            "whose tool thread needed the CPU"
        )
    return Diagnosis("cpu", use.role, tuple(evidence))


# --- network ---------------------------------------------------------------------------------


def _cores_sentences(given: DiagnosisInput, view: RunView) -> list[str]:
    """Why the cores were not the limit: none near saturation, or busy but not for the run."""
    quiet: list[str] = []
    busy: list[str] = []
    for role in ROLES:
        cores = view.busiest_core(role)
        if cores is None:
            continue
        level = median_of(cores[0])
        (busy if level >= CORE_FULL else quiet).append(f"{role} {level:.0f} %")
    sentences = []
    if quiet:
        sentences.append(f"no core near saturation (busiest core: {', '.join(quiet)})")
    if busy:
        needs = [
            f"{role} {need:.0f} %"
            for role in ROLES
            if np.isfinite(need := _thread_need(view, role))
        ]
        need_text = (
            f"; {given.tool}'s busiest thread needed {', '.join(needs)} of one" if needs else ""
        )
        sentences.append(
            f"cores busy ({', '.join(busy)}) but not for this run{need_text}: other load"
        )
    return sentences


def _allowances(view: RunView) -> list[str]:
    found = []
    for role in ROLES:
        for counter in ALLOWANCE_COUNTERS:
            picked = view.pick(f"{role}:nic", f"ethtool_{counter}_pps")
            rising = picked.v[picked.v > 0]
            if rising.size:  # its rate while it rose
                found.append(
                    f"{counter} +{float(np.mean(rising)):,.0f}/s on the {role}: "
                    f"{ALLOWANCE_MEANING[counter]}"
                )
    return found


def _network(given: DiagnosisInput, view: RunView) -> Diagnosis:
    allowances = _allowances(view)
    head = "neither host was the limit: the path (or the provider's allowance) was"
    evidence = allowances or [head]
    evidence += _cores_sentences(given, view)
    if given.proto == "tcp" and given.sender is not None:
        rwnd = view.pick(f"{given.sender}:conn", "conn_rwnd_limited_percent").mean()
        sndbuf = view.pick(f"{given.sender}:conn", "conn_sndbuf_limited_percent").mean()
        if np.isfinite(rwnd) or np.isfinite(sndbuf):
            evidence.append(
                f"TCP not window-limited (rwnd_limited {np.nan_to_num(rwnd):.0f} %, "
                f"sndbuf_limited {np.nan_to_num(sndbuf):.0f} % of the sender's busy time)"
            )
        sent = view.pick(f"{given.sender}:tcp", "tcp_out_pps")
        again = view.pick(f"{given.sender}:tcp", "tcp_retrans_pps")
        if not sent.empty and float(np.sum(sent.v)) > 0:
            share = 100 * float(np.sum(again.v)) / float(np.sum(sent.v))
            evidence.append(f"{share:.2f} % of the sender's segments were retransmitted")
    receiver = _receiver(given)
    if given.proto == "udp" and receiver is not None:
        errors = view.pick(f"{receiver}:udp", "udp_rcvbuf_error_pps")
        if not errors.empty:
            evidence.append(f"no receive-buffer overflow on the {receiver} to speak of")
    for role in ROLES:
        drops = view.pick(f"{role}:net", "nic_rx_drop_pps")
        if not drops.empty and drops.mean() > 0:
            evidence.append(f"the {role}'s interface dropped {drops.mean():,.0f} packets/s")
    return Diagnosis("network", None, tuple(evidence))


# --- storage (fio) ----------------------------------------------------------------------------


def diagnose_storage(given: DiagnosisInput, view: RunView) -> Diagnosis:
    """fio: rate, device, cpu, or unknown with the disk's utilisation as evidence."""
    found = _rate(given)
    if found is not None:
        return found
    if not view.has_telemetry():
        return Diagnosis("unknown", None, (NO_TELEMETRY,))
    for role in ROLES:
        util = view.pick(f"{role}:disk", "disk_util_percent")
        if util.empty:
            continue
        queue = view.pick(f"{role}:disk", "disk_queue_depth").median()
        disks = view.host(role).get("disks") or "the device"
        busy = f"{disks} {util.median():.0f} % busy, {queue:.1f} I/Os in flight on average"
        if util.share(util.v >= DEVICE_BUSY) >= MOST:
            share = util.share(util.v >= DEVICE_BUSY) * 100
            return Diagnosis("device", role, (f"{busy} ({share:.0f} % of the intervals)",))
        cpu = _cpu(given, view)
        if cpu is not None:
            return Diagnosis(cpu.limit, cpu.host, (*cpu.evidence, busy))
        return Diagnosis(
            "unknown",
            role,
            (
                f"neither the device ({busy}) nor a core was saturated: the job's iodepth × "
                "numjobs may be what held it",
            ),
        )
    cpu = _cpu(given, view)
    if cpu is not None:
        return cpu
    notes = [n for role in ROLES for n in view.host(role).get("notes") or () if "disk" in n]
    reason = notes[0] if notes else "no disk statistics were recorded for fio's target"
    return Diagnosis("unknown", None, (reason,))
