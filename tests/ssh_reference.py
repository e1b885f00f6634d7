"""OpenSSH's own answers about a config, for differential tests of ``remote/ssh_config``.

``ssh -G`` takes the user's home and name from the password database (``getpwuid``), not from
``$HOME``, and reads ``/etc/ssh/ssh_config`` when no ``-F`` is given. So every ssh here runs
in a private mount namespace where a copy of ``/etc/passwd`` names uid 0 ``pbtester`` with a
test directory as its home (and, if asked, a test file is mounted over
``/etc/ssh/ssh_config``), with ``HOME`` set to the same directory. It also runs in a private
network namespace (only a loopback that is down): whatever ssh tries to look up in DNS fails
at once and nothing leaves the machine. Needs root and ``unshare`` (util-linux).

The ssh commands of a batch run in one namespace (``Sandbox.run``), four at a time, each
bounded by a timeout.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from testkit import require, require_program

USER = "pbtester"
# Runs inside the namespaces: each job is (argv, environment); prints one JSON list of
# [returncode, stdout, stderr].
_RUNNER = """
import json, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
def run(job):
    argv, env = job
    try:
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=15,
                              stdin=subprocess.DEVNULL)
        return [done.returncode, done.stdout, done.stderr]
    except subprocess.TimeoutExpired:
        return [-1, "", "timed out"]
with ThreadPoolExecutor(4) as pool:
    json.dump(list(pool.map(run, json.load(open(sys.argv[1])))), sys.stdout)
"""


@dataclass(frozen=True, slots=True)
class Answer:
    """What one ssh command did."""

    returncode: int
    stdout: str
    stderr: str

    def fields(self) -> dict[str, list[str]]:
        """``ssh -G`` output: each keyword with its values (a keyword may repeat)."""
        out: dict[str, list[str]] = {}
        for line in self.stdout.splitlines():
            key, _, value = line.partition(" ")
            out.setdefault(key, []).append(value)
        return out

    def identity_files(self) -> list[str]:
        """The identity files ``ssh -v`` says it loads, in order, without the ``-cert``
        variants ssh tries beside each."""
        files: list[str] = []
        for line in self.stderr.splitlines():
            if line.startswith("debug1: identity file ") and " type " in line:
                path = line[len("debug1: identity file ") :].rsplit(" type ", 1)[0]
                if files and path == files[-1] + "-cert":
                    continue
                files.append(path)
        return files

    def certificate_files(self) -> list[str]:
        """The certificate files ``ssh -v`` says it loads, in order."""
        prefix = "debug1: certificate file "
        return [
            line[len(prefix) :].rsplit(" type ", 1)[0]
            for line in self.stderr.splitlines()
            if line.startswith(prefix)
        ]


def require_sandbox() -> None:
    """Skip (fail under CI) unless ssh can be run in private namespaces here."""
    require(os.geteuid() == 0, "ssh's own resolution is run with a test passwd home: needs root")
    require_program("ssh")
    require_program("unshare")


@dataclass
class Sandbox:
    """A home directory for ``pbtester`` and the environment ssh runs with."""

    root: Path
    environ: dict[str, str]
    system_config: Path | None = None

    @classmethod
    def make(cls, root: Path, extra_env: dict[str, str] | None = None) -> Sandbox:
        home = root / "home"
        (home / ".ssh").mkdir(parents=True, exist_ok=True)
        environ = {
            "HOME": str(home),
            "PATH": "/usr/bin:/bin:/usr/sbin:/sbin",
            "SHELL": "/bin/sh",
            "LC_ALL": "C",
            "USER": USER,
            "LOGNAME": USER,
            **(extra_env or {}),
        }
        return cls(root, environ)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def hostname(self) -> str:
        """``gethostname()``: the same inside the namespaces (the UTS one is shared)."""
        return socket.gethostname()

    def _passwd(self) -> Path:
        lines = []
        for line in Path("/etc/passwd").read_text().splitlines():
            fields = line.split(":")
            if len(fields) >= 7 and fields[2] == "0":
                fields = [USER, "x", "0", "0", "Pairbench test", str(self.home), "/bin/sh"]
            lines.append(":".join(fields))
        path = self.root / "passwd"
        path.write_text("\n".join(lines) + "\n")
        return path

    def run(self, commands: Sequence[Sequence[str]]) -> list[Answer]:
        """Run each argv (``ssh ...``) in the namespaces; their answers in order."""
        if not commands:
            return []
        jobs = self.root / "jobs.json"
        jobs.write_text(json.dumps([[list(argv), self.environ] for argv in commands]))
        runner = self.root / "runner.py"
        runner.write_text(_RUNNER)
        mounts = 'mount --bind "$1" /etc/passwd && '
        args = [str(self._passwd())]
        if self.system_config is not None:
            mounts += 'mount --bind "$2" /etc/ssh/ssh_config && '
            args.append(str(self.system_config))
        else:
            args.append("-")
        script = mounts + 'exec "$3" "$4" "$5"'
        argv = [
            shutil.which("unshare") or "unshare",
            "--mount",
            "--net",
            "--propagation",
            "private",
            "--",
            "sh",
            "-c",
            script,
            "sh",
            *args,
            sys.executable,
            str(runner),
            str(jobs),
        ]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        return [Answer(*item) for item in json.loads(done.stdout)]
