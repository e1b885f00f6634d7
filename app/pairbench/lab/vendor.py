"""The benchmark tools the lab builds itself (uperf, iperf3 3.21): pinned archives, where their
builds live, and how the lab finds them.

Debian 12 has no uperf and an iperf3 (3.12) without ``--json-stream``. ``packaging/
vendor_tools.py`` (run by ``make run`` and ``make test``) builds both from their pinned source
archives into a cache outside the repository, one directory per archive keyed by its sha256:

    ${PAIRBENCH_TOOLS_CACHE:-${XDG_CACHE_HOME:-~/.cache}/pairbench/tools}/NAME-SHA16/bin/PROGRAM

``find`` is the one lookup the build step and the lab share: that build when its stamp says it
is complete, else a program already on ``PATH`` that prints the pinned version.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pairbench.lab.errors import LabError

CACHE_ENV = "PAIRBENCH_TOOLS_CACHE"
MIRROR_ENV = "PAIRBENCH_VENDOR_DIR"
STAMP = ".built"
SYSTEM = "system"


@dataclass(frozen=True, slots=True)
class VendorTool:
    """One pinned tool source: what it is, where it comes from, how to tell its version."""

    program: str  # the command name: uperf, iperf3
    version: str  # 1.0.8, 3.21
    archive: str  # the archive's file name (in the mirror directory)
    sha256: str
    url: str  # the upstream download
    version_argv: tuple[str, ...]
    version_text: str  # what ``version_argv`` prints for this version

    @property
    def key(self) -> str:
        """The cache directory's name: program and the archive's sha256 prefix."""
        return f"{self.program}-{self.sha256[:16]}"


UPERF = VendorTool(
    program="uperf",
    version="1.0.8",
    archive="uperf-1.0.8-19-gc93e902.tar.gz",
    sha256="e49ca9c87cfed9b7181d30ae4657f032384358eb6abe088aab214eb3f95ddbb2",
    url="https://github.com/uperf/uperf/archive/c93e902.tar.gz",
    version_argv=("uperf", "-V"),
    version_text="Uperf Version 1.0.8",
)
IPERF3 = VendorTool(
    program="iperf3",
    version="3.21",
    archive="iperf-3.21.tar.gz",
    sha256="16d415ead246b6bc3a7fc6a6a6c17a4175f0888286bc81e3353580715c4155b9",
    url="https://downloads.es.net/pub/iperf/iperf-3.21.tar.gz",
    version_argv=("iperf3", "--version"),
    version_text="iperf 3.21",
)
TOOLS = (UPERF, IPERF3)
# The iperf3 choices of ``lab up --iperf3``: the pinned build, or the host's own.
IPERF3_CHOICES = (IPERF3.version, SYSTEM)
# The lab hosts' PATH after the tool directories (Debian's default for root).
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """Where the builds live: ``$PAIRBENCH_TOOLS_CACHE``, else ``pairbench/tools`` in the user's
    cache directory (``$XDG_CACHE_HOME``, else ``~/.cache``)."""
    env = os.environ if environ is None else environ
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV])
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "pairbench" / "tools"


def build_dir(tool: VendorTool, environ: Mapping[str, str] | None = None) -> Path:
    """The directory of one archive's build (its ``bin/`` holds the program)."""
    return cache_root(environ) / tool.key


def cached(tool: VendorTool, environ: Mapping[str, str] | None = None) -> Path | None:
    """The cached build of ``tool`` when complete (stamped and executable), else None."""
    folder = build_dir(tool, environ)
    program = folder / "bin" / tool.program
    try:
        stamped = (folder / STAMP).read_text().split()[:1] == [tool.sha256]
    except OSError:
        return None
    return program if stamped and os.access(program, os.X_OK) else None


def version_of(program: str | Path, tool: VendorTool) -> str:
    """The first line of ``program``'s version output mentioning a version ("" if it fails)."""
    try:
        result = subprocess.run(
            [str(program), *tool.version_argv[1:]],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = (result.stdout + "\n" + result.stderr).splitlines()
    return next((line.strip() for line in lines if "ersion" in line or " 3." in line), "")


def on_path(tool: VendorTool, path: str | None = None) -> Path | None:
    """``tool``'s program on ``PATH`` when it prints the pinned version, else None."""
    found = shutil.which(tool.program, path=path)
    if found is None:
        return None
    version = version_of(found, tool)
    if version == tool.version_text or version.startswith(tool.version_text + " "):
        return Path(found)
    return None


def find(tool: VendorTool, environ: Mapping[str, str] | None = None) -> Path | None:
    """The program to use for ``tool``: the cached build, else one on PATH in the pinned
    version, else None."""
    return cached(tool, environ) or on_path(tool)


def missing_reason(tool: VendorTool) -> str:
    """Why ``find`` gives nothing, with the way out."""
    return (
        f"{tool.program} {tool.version} is not built (no {build_dir(tool)}/bin/{tool.program}, "
        f"none on PATH): run `make setup` or `python packaging/vendor_tools.py`"
    )


@dataclass(frozen=True, slots=True)
class LabTools:
    """Which iperf3 each lab host runs: the pinned build (``3.21``) or the host's own
    (``system``). uperf's build is always on the lab hosts' PATH when it exists."""

    client_iperf3: str = SYSTEM
    server_iperf3: str = SYSTEM

    def iperf3(self, role: str) -> str:
        """The choice for the host of ``role`` (``client`` or ``server``)."""
        return self.client_iperf3 if role == "client" else self.server_iperf3

    def to_json(self) -> dict[str, str]:
        """The choices as ``{"client": "3.21", "server": "system"}``."""
        return {"client": self.client_iperf3, "server": self.server_iperf3}

    @classmethod
    def from_json(cls, data: object) -> LabTools:
        """The choices saved by ``to_json`` (anything else: the system's iperf3 on both)."""
        if not isinstance(data, dict):
            return cls()
        client, server = data.get("client"), data.get("server")
        return cls(
            client if client in IPERF3_CHOICES else SYSTEM,
            server if server in IPERF3_CHOICES else SYSTEM,
        )

    def describe(self) -> str:
        """``iperf3 3.21 on both hosts`` or ``iperf3 3.21 on the client, system on the server``."""
        if self.client_iperf3 == self.server_iperf3:
            return f"iperf3 {self.client_iperf3} on both hosts"
        return f"iperf3 {self.client_iperf3} on the client, {self.server_iperf3} on the server"


def parse_iperf3_choice(text: str | None) -> LabTools:
    """``lab up --iperf3``: ``3.21`` or ``system`` for both hosts, or per host
    ``client=3.21,server=system`` (a host not named gets ``system``). ``LabError`` otherwise."""
    if text is None or not text.strip():
        return LabTools()
    choices = " or ".join(IPERF3_CHOICES)
    value = text.strip()
    if "=" not in value:
        if value not in IPERF3_CHOICES:
            raise LabError(f"--iperf3 must be {choices} (or client=...,server=...), got {text!r}")
        return LabTools(value, value)
    sides: dict[str, str] = {}
    for part in value.split(","):
        role, sep, choice = (s.strip() for s in part.partition("="))
        if not sep or role not in ("client", "server") or role in sides:
            raise LabError(f"--iperf3: expected client=VERSION,server=VERSION, got {text!r}")
        if choice not in IPERF3_CHOICES:
            raise LabError(f"--iperf3 {role}= must be {choices}, got {choice!r}")
        sides[role] = choice
    return LabTools(sides.get("client", SYSTEM), sides.get("server", SYSTEM))


def host_path(choice: str, environ: Mapping[str, str] | None = None) -> str:
    """The PATH of a lab host running iperf3 ``choice``: the pinned iperf3's directory first
    (for ``3.21``), then uperf's when it is built, then the system's directories.

    ``LabError`` when ``3.21`` is asked for and not built.
    """
    dirs: list[str] = []
    if choice != SYSTEM:
        iperf3 = find(IPERF3, environ)
        if iperf3 is None:
            raise LabError(missing_reason(IPERF3))
        dirs.append(str(iperf3.parent))
    uperf = find(UPERF, environ)
    if uperf is not None and str(uperf.parent) not in dirs:
        dirs.append(str(uperf.parent))
    for folder in dirs:
        if any(c in folder for c in ':"\n\\') or folder != folder.strip():
            raise LabError(f"cannot put {folder!r} on the lab hosts' PATH (':', quotes, spaces)")
    return ":".join([*dirs, SYSTEM_PATH])
