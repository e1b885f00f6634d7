"""The host sampler: one small bash script, started beside the tool on each host of a run.

It reads the kernel's own counters at the run's interval and prints them as they are; the
controller computes rates and percentages (``tools/sampler_parse.py``). Nothing is installed:
bash and ``/proc`` (``/proc/stat``, ``/proc/net/dev``, ``/proc/net/snmp``,
``/proc/net/netstat``, ``/proc/diskstats``, the tool's ``/proc/PID/task/*/schedstat``), plus
``ip`` (which interface routes to the peer), and ``ss`` and ``ethtool -S`` where present.
Those two start a process each, so they are read at most once a second (``SLOW_PERIOD_US``);
everything else is read with bash builtins (``mapfile``, ``read``), and the script sleeps
with ``read -t`` on a pipe of its own, so a sample forks nothing.

The script runs under the tool's watchdog (``remote/launcher.py``), tagged with the run's tag,
so it ends with the run, with its controller, or with leftovers cleanup. On SIGTERM it prints
one last sample, then exits (started in the background by the watchdog, bash ignores SIGINT
and cannot trap it: the engine stops it with SIGTERM, ``RemoteProcess.stop(interrupt=False)``).

Output, per sample::

    #t MICROSECONDS            (the host's clock; only differences are used)
    #stat / cpu lines of /proc/stat
    #net FIELDS                (/proc/net/dev's line of the data interface)
    #snmp / /proc/net/snmp and /proc/net/netstat (headers in the first sample only)
    #proc ROLE / "TID RUN_NS WAIT_NS" per thread of the tool's processes and their children
    #disk / /proc/diskstats lines of the devices under test
    #ethtool / ethtool -S output          (at most once a second)
    #ss / ss -tainmH or ss -uainmH output (at most once a second)
    #end

and once, first: ``#hello v=1 boot=ID cores=N hz=HZ dev=IF ethtool=0|1 ss=0|1 disks=A,B``,
with ``#note TEXT`` lines for what it could not find.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pairbench.domain.telemetry import Role

SLOW_PERIOD_US: Final = 1_000_000
MIN_INTERVAL_S: Final = 0.1
MAX_INTERVAL_S: Final = 10.0

# A constant script: every value (addresses, ports, paths, pids) is a positional argument,
# quoted once with the rest of the argv at the SSH boundary.
SAMPLER_SCRIPT: Final = r"""
export LC_ALL=C PATH="$PATH:/usr/sbin:/sbin"
iv=$1 route=$2 own=$3 sockets=$4 proto=$5 ndisks=$6; shift 6
paths=("${@:1:ndisks}"); shift "$ndisks"
procs=("$@")
note() { printf '#note %s\n' "$*"; }
dev=
if [ -n "$own" ]; then
  r=$(ip -o addr show to "$own" 2>/dev/null); r=${r#*: }; dev=${r%% *}
fi
if [ -z "$dev" ] && [ -n "$route" ]; then
  r=$(ip -o route get "$route" 2>/dev/null)
  case $r in *" dev "*) r=${r#* dev }; dev=${r%% *};; esac
fi
if [ -n "$dev" ] && [ ! -d "/sys/class/net/$dev" ]; then note "no interface $dev"; dev=; fi
[ -z "$dev" ] && [ -n "$route$own" ] && note "no interface routes to ${own:-$route}"
eth=0
if [ -n "$dev" ] && command -v ethtool >/dev/null 2>&1; then
  case $(ethtool -S "$dev" 2>/dev/null) in *statistics:*) eth=1;; esac
fi
ssok=0
if [ -n "$proto" ] && [ -n "$sockets" ]; then
  if command -v ss >/dev/null 2>&1; then ssok=1; else note "ss is not installed"; fi
fi
sched=0; [ -r /proc/self/schedstat ] && sched=1
hz=100; ((sched)) || hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
boot=; read -r boot 2>/dev/null < /proc/sys/kernel/random/boot_id
names=()
for p in "${paths[@]}"; do
  if [ -b "$p" ]; then
    n=$(stat -L -c '%t %T' -- "$p" 2>/dev/null) || n=
    [ -n "$n" ] || { note "disk: cannot read $p"; continue; }
    set -- $n; mm=$((16#$1)):$((16#$2))
  else
    d=$(stat -c '%d' -- "$p" 2>/dev/null) || d=
    [ -n "$d" ] || { note "disk: cannot read $p"; continue; }
    mm=$(( ((d >> 8) & 0xfff) | ((d >> 32) & ~0xfff) )):$(( (d & 0xff) | ((d >> 12) & ~0xff) ))
  fi
  l=$(readlink "/sys/dev/block/$mm" 2>/dev/null) || l=
  if [ -n "$l" ]; then names+=("${l##*/}"); else note "disk: no block device holds $p"; fi
done
now() { t=${EPOCHREALTIME/[.,]/}; [ -n "$t" ] || t=$(date +%s%6N); }
if ! exec {sfd}<> <(:) 2>/dev/null; then sfd=; fi
snooze() { if [ -n "$sfd" ]; then read -r -t "$1" -u "$sfd" _; else sleep "$1"; fi; }
ncpu=0
while read -r c _; do
  case $c in cpu[0-9]*) ncpu=$((ncpu + 1));; cpu) ;; *) break;; esac
done < /proc/stat
printf '#hello v=1 boot=%s cores=%s hz=%s dev=%s ethtool=%s ss=%s disks=%s\n' \
  "$boot" "$ncpu" "$hz" "$dev" "$eth" "$ssok" "$(IFS=,; echo "${names[*]}")"
first=1 slow=0
sample() {
  now
  local out=("#t $t" "#stat") l i f x task pids kid wt
  mapfile -t -n $((ncpu + 1)) l < /proc/stat; out+=("${l[@]}")
  if [ -n "$dev" ]; then
    mapfile -t l < /proc/net/dev
    for f in "${l[@]}"; do
      case $f in *" $dev:"*|"$dev:"*) out+=("#net ${f#*:}"); break;; esac
    done
  fi
  out+=("#snmp")
  for f in /proc/net/snmp /proc/net/netstat; do
    mapfile -t l < "$f"
    if ((first)); then out+=("${l[@]}")
    else for ((i = 1; i < ${#l[@]}; i += 2)); do out+=("${l[i]}"); done
    fi
  done
  for x in "${procs[@]}"; do
    out+=("#proc ${x%%:*}")
    pids=("${x#*:}")
    read -r -a kid 2>/dev/null < "/proc/${x#*:}/task/${x#*:}/children" && pids+=("${kid[@]}")
    for i in "${pids[@]}"; do
      for task in /proc/$i/task/*; do
        if ((sched)); then read -r f wt _ 2>/dev/null < "$task/schedstat" || continue
        else
          read -r f 2>/dev/null < "$task/stat" || continue
          set -- ${f##*) }; f=$(( (${12} + ${13}) * 1000000000 / hz )) wt=-1
        fi
        out+=("${task##*/} $f $wt")
      done
    done
  done
  if ((${#names[@]})); then
    out+=("#disk"); mapfile -t l < /proc/diskstats
    for f in "${l[@]}"; do
      set -- $f
      for i in "${names[@]}"; do [ "$3" = "$i" ] && out+=("$f"); done
    done
  fi
  printf '%s\n' "${out[@]}"
  first=0 slow=$((slow - iv))
  if ((slow <= 0)); then
    slow=SLOW
    if ((eth)); then echo "#ethtool"; ethtool -S "$dev" 2>/dev/null; fi
    if ((ssok)); then
      echo "#ss"
      ss -"${proto:0:1}"ainmH "$sockets" 2>/dev/null
    fi
  fi
  echo "#end"
}
trap 'sample; exit 0' TERM INT
now; next=$t
while :; do
  sample
  next=$((next + iv)); now; w=$((next - t))
  if ((w < 0)); then next=$t; w=0; fi
  printf -v w '%d.%06d' $((w / 1000000)) $((w % 1000000))
  snooze "$w"
done
""".replace("slow=SLOW", f"slow={SLOW_PERIOD_US}")


@dataclass(frozen=True, slots=True)
class SamplerRequest:
    """What a host's sampler watches.

    ``route_to``: an address the data goes to (the client's view: the interface routing to
    it is the data interface); ``own_address``: an address of this host (the server's view:
    the interface holding it). ``sockets``: an ``ss`` filter selecting the tool's sockets
    (``socket_filter``), ``proto``: "tcp", "udp" or "" (no sockets). ``disks``: paths whose
    block devices fio exercises. ``processes``: (role, pid) of the tool's processes here.
    """

    interval_s: float
    route_to: str = ""
    own_address: str = ""
    sockets: str = ""
    proto: str = ""
    disks: tuple[str, ...] = ()
    processes: tuple[tuple[Role, int], ...] = ()


def sampling_interval(interval_s: float) -> float:
    """The run's interval as the sampler takes it: between 0.1 s and 10 s."""
    return min(max(interval_s, MIN_INTERVAL_S), MAX_INTERVAL_S)


def sampler_argv(request: SamplerRequest) -> list[str]:
    """The argv that runs the sampler for ``request`` (start it under the watchdog)."""
    interval_us = round(sampling_interval(request.interval_s) * 1e6)
    proto = request.proto if request.proto in ("tcp", "udp") else ""
    return [
        "bash",
        "-c",
        SAMPLER_SCRIPT,
        "pairbench-sampler",
        str(interval_us),
        request.route_to,
        request.own_address,
        request.sockets if proto else "",
        proto,
        str(len(request.disks)),
        *request.disks,
        *(f"{role}:{pid}" for role, pid in request.processes),
    ]


def port_filter(first: int, last: int) -> str:
    """An ``ss`` filter for sockets whose local or remote port is in ``first..last``."""
    return (
        f"( sport >= :{first} and sport <= :{last} ) or ( dport >= :{first} and dport <= :{last} )"
    )


def peer_filter(address: str, ssh_ports: tuple[int, ...]) -> str:
    """An ``ss`` filter for sockets to or from ``address`` (an IP literal), SSH's left out
    (uperf's data connections use ports its slave picks, so only the peer tells them)."""
    shown = f"[{address}]" if ":" in address else address
    ssh = " or ".join(f"sport = :{p} or dport = :{p}" for p in sorted(set(ssh_ports)))
    return f"( dst {shown} or src {shown} )" + (f" and not ( {ssh} )" if ssh else "")
