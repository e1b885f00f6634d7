"""Before a run: find what earlier runs left on a host (tagged processes, work directories),
end what belongs to a dead controller, and refuse to measure next to a live one.

Everything a run starts carries its run tag (``PAIRBENCH_RUN_TAG`` in the environment of its
processes, ``pairbench.TAG.*`` as its work directory's name), so leftovers are found by tag,
never by a program's name. A process whose controller ran on this computer and has died is
ended here (its watchdog normally has already); one whose controller is on another computer
is waited for (its watchdog ends it within ``SILENCE_LIMIT_S`` if that controller is gone)
and, if it stays, the run is refused: it would measure next to another run's traffic.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass

from pairbench.domain.failures import HostInUseError, TransportError
from pairbench.domain.processes import RunTag
from pairbench.remote.base import Transport, checked_workdir
from pairbench.remote.launcher import SILENCE_LIMIT_S, TAG_VARIABLE

# Lists tagged processes ("proc PID TAG ARGS") and tagged work directories ("dir PATH") in
# the temporary directory and in the folders given as arguments.
SCAN_SCRIPT = f"""
grep -a -z -H -o '^{TAG_VARIABLE}=[A-Za-z0-9_.-]*' /proc/[0-9]*/environ 2>/dev/null |
  tr '\\0' '\\n' | while IFS= read -r line; do
    [ -n "$line" ] || continue
    pid=${{line#/proc/}}; pid=${{pid%%/*}}; tag=${{line#*=}}
    args=$(tr '\\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)
    [ -n "$args" ] && echo "proc $pid $tag $args"
  done
for base in "${{TMPDIR:-/tmp}}" "$@"; do
  for d in "$base"/pairbench.pb.*; do [ -d "$d" ] && echo "dir $d"; done
done
exit 0
"""
# Kills every process that carries exactly the run tag given as $1 (but not itself).
END_TAGGED_SCRIPT = f"""
for f in $(grep -l -a -z -x "{TAG_VARIABLE}=$1" /proc/[0-9]*/environ 2>/dev/null); do
  p=${{f#/proc/}}; p=${{p%%/*}}
  [ "$p" = "$$" ] || kill -KILL "$p" 2>/dev/null
done
exit 0
"""
WAIT_FOR_ORPHANS_S = SILENCE_LIMIT_S + 2.0
# The tags of the runs this process is running now: its other tagged processes are leftovers.
ACTIVE_TAGS: set[str] = set()
POLL_S = 0.25
END_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class TaggedProcess:
    """A process some Pairbench run started on a host."""

    pid: int
    tag: str
    args: str

    def describe(self) -> str:
        return f"pid {self.pid} `{self.args.strip()}` (run tag {self.tag})"


@dataclass(frozen=True, slots=True)
class Scan:
    """What a host holds of Pairbench runs."""

    processes: tuple[TaggedProcess, ...]
    workdirs: tuple[str, ...]


async def scan(transport: Transport, folders: tuple[str, ...] = ()) -> Scan:
    """The tagged processes and work directories on a host."""
    result = await transport.run(["sh", "-c", SCAN_SCRIPT, "pairbench-scan", *folders])
    processes: list[TaggedProcess] = []
    workdirs: list[str] = []
    for line in result.stdout.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "proc":
            pid, _, rest = rest.partition(" ")
            tag, _, args = rest.partition(" ")
            if pid.isdigit():
                processes.append(TaggedProcess(int(pid), tag, args))
        elif kind == "dir" and rest:
            workdirs.append(rest)
    return Scan(tuple(processes), tuple(workdirs))


def _tag_of_workdir(path: str) -> str:
    """``pb.…`` from ``/tmp/pairbench.pb.….XXXXXXXX``."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return name.removeprefix("pairbench.").rsplit(".", 1)[0]


def _ours_alive(process: TaggedProcess) -> bool:
    """A process of a run whose controller runs on this computer and is alive: a run held
    by our host locks elsewhere (a concurrent run on another pair that shares this machine,
    as the lab's namespaces and ``local`` do), not a leftover."""
    tag = RunTag.parse(process.tag)
    if tag is None or not tag.controller_here() or tag.controller_gone():
        return False
    if tag.pid == os.getpid():  # this process: alive only while that run is
        return process.tag in ACTIVE_TAGS
    return True


async def clear_leftovers(
    transport: Transport,
    folders: tuple[str, ...] = (),
    *,
    wait_s: float = WAIT_FOR_ORPHANS_S,
) -> list[str]:
    """End orphans of dead runs and remove their work directories; return what was done.

    Raises ``HostInUseError`` when a run of another controller still runs on the host after
    ``wait_s``.
    """
    notes: list[str] = []
    deadline = time.monotonic() + wait_s
    attempts = 0
    while True:
        found = await scan(transport, folders)
        others = [p for p in found.processes if not _ours_alive(p)]
        orphans = [p for p in others if _controller_gone(p)]
        if orphans and attempts < END_ATTEMPTS:
            attempts += 1
            await _end(transport, orphans)
            notes.append(
                f"{transport.host_name}: stopped {len(orphans)} process(es) left by a run "
                f"whose Pairbench had died: {'; '.join(p.describe() for p in orphans[:3])}"
            )
            continue
        if not others:
            break
        if time.monotonic() >= deadline:
            raise HostInUseError(
                f"host {transport.host_name} is running another Pairbench run, started from "
                f"another computer: {'; '.join(p.describe() for p in others[:3])}; measuring "
                "now would share the link with it. Wait for it to end, or stop it there"
            )
        await asyncio.sleep(POLL_S)
    live_tags = {p.tag for p in found.processes}
    stale = [
        d
        for d in found.workdirs
        if _tag_of_workdir(d) not in live_tags and _gone(_tag_of_workdir(d))
    ]
    for path in stale:
        try:
            await transport.run(["rm", "-rf", "--", checked_workdir(path)], timeout_s=30)
        except (TransportError, TimeoutError):
            continue
        notes.append(f"{transport.host_name}: removed {path}, left by a run that did not end")
    return notes


def _controller_gone(process: TaggedProcess) -> bool:
    return _gone(process.tag)


async def end_tagged(transport: Transport, tag: str) -> None:
    """Kill whatever still carries ``tag`` on a host (a tool's children that left its process
    group, such as fio's job processes)."""
    await transport.run(["sh", "-c", END_TAGGED_SCRIPT, "pairbench-end-run", tag], timeout_s=15)


def _gone(text: str) -> bool:
    """True for the tag of a run whose controller ran on this computer and has died, or of a
    finished run of this process (what another computer's controller left is its own
    watchdog's to remove)."""
    tag = RunTag.parse(text)
    if tag is None:
        return False
    if tag.controller_here() and tag.pid == os.getpid() and not tag.controller_gone():
        return text not in ACTIVE_TAGS
    return tag.controller_gone()


async def _end(transport: Transport, processes: list[TaggedProcess]) -> None:
    """Interrupt, then kill, each process's group (the tools lead their own)."""
    pids = [str(p.pid) for p in processes]
    script = (
        'for p in "$@"; do kill -INT -- "-$p" 2>/dev/null || kill -INT "$p" 2>/dev/null; done; '
        "sleep 1; "
        'for p in "$@"; do kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null; done; '
        "exit 0"
    )
    await transport.run(["sh", "-c", script, "pairbench-end", *pids], timeout_s=15)
