"""The watchdog every tool runs under, on SSH hosts and on this computer alike.

A tool is never started bare: ``bash`` runs it in its own process group (``setsid``) with the
run's tag in its environment (``PAIRBENCH_RUN_TAG``), prints its pid, and then listens to its
controller. The controller writes a heartbeat byte to the command's stdin every
``HEARTBEAT_PERIOD_S``. When stdin closes (the Pairbench process died, was killed, or its SSH
connection closed: within a few hundred milliseconds) or stays silent for
``SILENCE_LIMIT_S`` (a network cut that no side noticed), the watchdog kills the tool's
process group (nobody is left to read a graceful ending), waits until the tool is gone,
removes the run's work directory and exits. So no
tool keeps sending, and no test file stays behind, after the program that started it is gone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pairbench.remote.base import USER_PATH_SETUP

PID_MARKER = "__PAIRBENCH_PID__"
TAG_VARIABLE = "PAIRBENCH_RUN_TAG"
HEARTBEAT = "."
HEARTBEAT_PERIOD_S = 0.5
SILENCE_LIMIT_S = 10
# Exit status of a watchdog that stopped its tool because the controller went away.
WATCHDOG_STOPPED = 125

WATCHDOG = f"""
tag=$1 cleanup=$2; shift 2
{USER_PATH_SETUP}
# The tool's own process says its pid, then becomes the tool (exec): the pid line is the
# first line on stdout, before anything the tool prints, and setsid has already made the
# tool the leader of its own group. The tag goes to the tool alone (and what it starts),
# not to the watchdog's own helpers.
say='echo "{PID_MARKER} $$"; exec "$@"'
# A command that a shell without job control starts with & ignores SIGINT, and so would the
# tool: a stop's SIGINT (its graceful end) would do nothing to a tool that does not catch it
# (uperf -s, until SIGTERM a second later). env --default-signal (coreutils 8.31+) gives the
# tool SIGINT as it has it in a terminal.
dfl=()
if env --default-signal=INT true 2>/dev/null; then dfl=(env --default-signal=INT); fi
if command -v setsid >/dev/null 2>&1; then
  {TAG_VARIABLE}="$tag" setsid bash -c "$say" pairbench-tool "${{dfl[@]}}" "$@" </dev/null &
else
  set -m; {TAG_VARIABLE}="$tag" bash -c "$say" pairbench-tool "${{dfl[@]}}" "$@" </dev/null & set +m
fi
tool=$!
heard=$SECONDS lost=
while kill -0 "$tool" 2>/dev/null; do
  if read -r -n 1 -t 0.2 _; then heard=$SECONDS
  elif [ $? -le 128 ]; then lost="its controller went away"; break
  elif [ $((SECONDS - heard)) -ge {SILENCE_LIMIT_S} ]; then
    lost="no word from its controller for {SILENCE_LIMIT_S} s"; break
  fi
done
if [ -n "$lost" ]; then
  # Nobody reads our output either: a write (bash reports a killed job on stderr) would
  # end this shell by SIGPIPE before its work is done.
  exec >/dev/null 2>&1
  # Nobody reads the tool's output any more: end it at once, with every process that carries
  # the run's tag (fio's job processes lead sessions of their own), and remove the run's
  # files; wait until they are gone (a tool in the middle of direct I/O, or a busy machine,
  # takes a moment) and remove the files again (a call under way when the kill came may
  # still have made one).
  kill -KILL -- "-$tool" 2>/dev/null || kill -KILL "$tool" 2>/dev/null
  if [ -n "$cleanup" ]; then rm -rf -- "$cleanup"; fi
  i=0
  while [ $i -lt 40 ]; do
    left=
    for f in $(grep -l -a -z -x "{TAG_VARIABLE}=$tag" /proc/[0-9]*/environ 2>/dev/null); do
      p=${{f#/proc/}}; p=${{p%%/*}}
      [ "$p" = "$$" ] && continue
      kill -KILL "$p" 2>/dev/null && left=1
    done
    [ -z "$left" ] && break
    sleep 0.05; i=$((i+1))
  done
  if [ -n "$cleanup" ]; then rm -rf -- "$cleanup"; fi
  exit {WATCHDOG_STOPPED}
fi
wait "$tool"
"""


def watchdog_argv(
    argv: Sequence[str],
    *,
    tag: str,
    cleanup: str = "",
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """The argv that runs ``argv`` under the watchdog (quote it once for SSH: shlex.join).

    ``cleanup`` is a work directory the watchdog removes when it has to stop the tool.
    """
    prefix = ["env", *(f"{k}={v}" for k, v in env.items())] if env else []
    return ["bash", "-c", WATCHDOG, "pairbench-watchdog", tag, cleanup, *prefix, *argv]


def parse_pid_line(line: str) -> int | None:
    """The tool's pid from the watchdog's first line, or None if the line is something else."""
    marker, _, value = line.strip().partition(" ")
    if marker != PID_MARKER or not value.isdigit():
        return None
    return int(value)
