"""Install uperf or iperf3 3.21 on a host: upload the pinned archive, build it there, put the
program in the user's ``~/.local/bin`` (which Pairbench searches first on every host).

Nothing is installed system-wide: the build runs as the SSH user in a private work directory
(removed afterwards, and by the watchdog if Pairbench goes away mid-build) and installs one
file under the user's home. A host that lacks what the build needs is told exactly which
programs are missing and which packages provide them; nothing is uploaded then.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from pairbench.domain import LineSource
from pairbench.domain.failures import MissingBuildToolsError, ToolInstallError, TransportError
from pairbench.domain.processes import RunTag
from pairbench.engine.install_hint import INSTALLABLE as INSTALLABLE
from pairbench.engine.transports import Connector
from pairbench.lab.vendor import VendorTool
from pairbench.lab.vendor_archive import ArchiveError, obtain
from pairbench.library import Library
from pairbench.library.hosts import get_host
from pairbench.remote.base import USER_BIN, Transport
from pairbench.remote.secrets import SecretPrompt

BUILD_TIMEOUT_S: Final = 900.0
TAIL_LINES: Final = 25
# What each build runs, and the packages that provide it (Debian/Ubuntu, Fedora/RHEL).
_NEEDS: Final[dict[str, tuple[str, ...]]] = {
    "uperf": ("tar", "gzip", "make", "gcc", "autoreconf", "automake", "libtoolize"),
    "iperf3": ("tar", "gzip", "make", "gcc"),
}
C_HEADERS: Final = "C headers"
_PACKAGES: Final[dict[str, tuple[str, str]]] = {
    "tar": ("tar", "tar"),
    "gzip": ("gzip", "gzip"),
    "make": ("make", "make"),
    "gcc": ("gcc", "gcc"),
    "autoreconf": ("autoconf", "autoconf"),
    "automake": ("automake", "automake"),
    "libtoolize": ("libtool", "libtool"),
    C_HEADERS: ("libc6-dev", "glibc-devel"),
}
# Prints the missing programs one per line, "C headers" when gcc cannot compile a hello, and
# the OS family (the ID and ID_LIKE of /etc/os-release).
_PROBE: Final = r"""
for p; do command -v "$p" >/dev/null 2>&1 || echo "missing $p"; done
if command -v gcc >/dev/null 2>&1; then
  t=$(mktemp -d) && printf '#include <stdio.h>\nint main(void){return 0;}\n' > "$t/a.c" &&
  { gcc -o "$t/a" "$t/a.c" >/dev/null 2>&1 || echo "missing C headers"; }; rm -rf "$t"
fi
if [ -r /etc/os-release ]; then . /etc/os-release; echo "os $ID $ID_LIKE"; fi
echo "home $HOME"
"""
# Builds in the work directory $1 from the archive $2 the program $3, installs it as $4/$3.
STEP: Final = "== "
_BUILD: Final = r"""
set -e
work=$1 archive=$2 program=$3 dest=$4
cd "$work"
echo "== unpacking"
mkdir src
tar -xzf "$archive" -C src
top=$(find src -mindepth 1 -maxdepth 1 -type d | head -n 1)
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)
case "$program" in
uperf)
  echo "== configuring"
  autoreconf -fi
  ./configure --disable-sctp
  echo "== compiling"
  make -j"$jobs"
  built=$PWD/src/uperf ;;
iperf3)
  echo "== configuring"
  ./configure --prefix="$work/inst" --disable-shared
  echo "== compiling"
  make -j"$jobs"
  make install
  built=$work/inst/bin/iperf3 ;;
*) echo "unknown program $program" >&2; exit 2 ;;
esac
echo "== installing"
mkdir -p "$dest"
install -m 0755 "$built" "$dest/.$program.pairbench-new"
mv -f "$dest/.$program.pairbench-new" "$dest/$program"
"""


@dataclass(frozen=True, slots=True)
class InstallResult:
    """Where the tool is now and what it says it is; ``already``: nothing had to be built."""

    host: str
    tool: str
    path: str
    version: str
    already: bool = False
    log_tail: list[str] = field(default_factory=list)


Progress = Callable[[str], None]


def vendor_tool(name: str) -> VendorTool:
    """The pinned tool called ``name``; ``ToolInstallError`` naming the ones there are."""
    tool = INSTALLABLE.get(name)
    if tool is None:
        known = ", ".join(sorted(INSTALLABLE))
        raise ToolInstallError(f"Pairbench can install {known}, not {name!r}")
    return tool


def install_hint(packages: list[str], os_words: str) -> str:
    """The command that installs ``packages`` (Debian names) on a host of this OS family."""
    words = os_words.split()
    if any(w in ("fedora", "rhel", "centos", "rocky", "almalinux", "amzn") for w in words):
        rpm = [_rpm_name(p) for p in packages]
        return f"install them with `sudo dnf install {' '.join(rpm)}`"
    return f"install them with `sudo apt-get install {' '.join(packages)}`"


def _rpm_name(debian: str) -> str:
    return next((rpm for deb, rpm in _PACKAGES.values() if deb == debian), debian)


async def install_tool(
    transport: Transport,
    host_name: str,
    tool: VendorTool,
    archive: Path,
    *,
    progress: Progress | None = None,
    force: bool = False,
) -> InstallResult:
    """Build ``tool`` from ``archive`` (checked already) on the host and install it in the
    SSH user's ``~/.local/bin``; a copy already there (or on PATH) in the pinned version is
    kept unless ``force``. Raises ``ToolInstallError`` (or ``TransportError``)."""
    say = progress or (lambda _text: None)
    say(f"checking {host_name}")
    if not force:
        present = await _pinned_copy(transport, tool)
        if present is not None:
            return InstallResult(host_name, tool.program, present[0], present[1], already=True)
    home, missing, os_words = await _probe(transport, tool)
    if missing:
        packages = list(dict.fromkeys(_PACKAGES[m][0] for m in missing))
        raise MissingBuildToolsError(
            host_name, tool.program, missing, packages, install_hint(packages, os_words)
        )
    dest = f"{home}/{USER_BIN}"
    workdir = await transport.make_workdir(tag=f"install-{tool.program}")
    tail: list[str] = []
    try:
        say(f"uploading {archive.name} ({archive.stat().st_size // 1024} KiB)")
        remote_archive = f"{workdir}/{tool.archive}"
        await transport.write_bytes(remote_archive, archive.read_bytes())
        status = await _build(transport, [workdir, remote_archive, tool.program, dest], say, tail)
    finally:
        with contextlib.suppress(TransportError, OSError, TimeoutError):
            await transport.remove_workdir(workdir)
    if status != 0:
        shown = "\n".join(tail[-TAIL_LINES:])
        raise ToolInstallError(
            f"building {tool.program} on {host_name} failed (exit {status}); the last lines:\n"
            f"{shown}"
        )
    path = f"{dest}/{tool.program}"
    say(f"checking {path}")
    version = await _version(transport, path, tool)
    if not version.startswith(tool.version_text):
        raise ToolInstallError(
            f"{path} on {host_name} prints {version!r}, not {tool.version_text!r}"
        )
    return InstallResult(host_name, tool.program, path, version, log_tail=tail[-TAIL_LINES:])


async def _pinned_copy(transport: Transport, tool: VendorTool) -> tuple[str, str] | None:
    """The path and version of the program the host runs, when it is the pinned version."""
    found = await transport.run(["sh", "-c", 'command -v "$1"', "sh", tool.program])
    path = found.stdout.strip()
    if found.exit_status != 0 or not path:
        return None
    version = await _version(transport, path, tool)
    return (path, version) if version.startswith(tool.version_text) else None


async def _version(transport: Transport, path: str, tool: VendorTool) -> str:
    result = await transport.run([path, *tool.version_argv[1:]], timeout_s=15)
    lines = (result.stdout + "\n" + result.stderr).splitlines()
    return next((line.strip() for line in lines if tool.version_text.split()[-1] in line), "")


async def _probe(transport: Transport, tool: VendorTool) -> tuple[str, list[str], str]:
    """The SSH user's home, what the build lacks, and the OS family words."""
    result = await transport.run(["sh", "-c", _PROBE, "sh", *_NEEDS[tool.program]], timeout_s=30)
    home, missing, os_words = "", [], ""
    for line in result.stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word == "missing":
            missing.append(rest.strip())
        elif word == "os":
            os_words = rest.lower()
        elif word == "home":
            home = rest.strip()
    if not home.startswith("/"):
        raise ToolInstallError("the host's user has no home directory ($HOME is not set)")
    return home, missing, os_words


async def _build(transport: Transport, args: list[str], say: Progress, tail: list[str]) -> int:
    process = await transport.start(
        ["bash", "-c", _BUILD, "pairbench-install", *args],
        stdout=LineSource.CLIENT_OUT,
        stderr=LineSource.CLIENT_ERR,
        tag=str(RunTag.new()),
        cleanup=args[0],
    )
    try:
        async with asyncio.timeout(BUILD_TIMEOUT_S):
            async for line in process.lines():
                text = line.text.rstrip("\r")
                if text.startswith(STEP):
                    say(text[len(STEP) :])
                tail.append(text)
                del tail[: -TAIL_LINES * 4]
            return await process.wait()
    except BaseException:
        with contextlib.suppress(Exception):
            await process.stop(grace_s=1.0)
        raise


async def install_on_host(
    lib: Library,
    host_name: str,
    tool_name: str,
    *,
    secrets: SecretPrompt | None = None,
    accept_new_host_key: bool = False,
    progress: Progress | None = None,
    force: bool = False,
    on_connected: Callable[[], None] | None = None,
) -> InstallResult:
    """``install_tool`` on a stored host: the archive from the mirror, the download cache or
    upstream (sha256-checked), the host connected as a run would connect to it;
    ``on_connected`` is called once it is (its password asked, if any)."""
    tool = vendor_tool(tool_name)
    host = get_host(lib, host_name)
    say = progress or (lambda _text: None)
    say(f"getting {tool.archive}")
    try:
        archive, _origin = await asyncio.to_thread(obtain, tool)
    except ArchiveError as exc:
        raise ToolInstallError(str(exc)) from exc
    connector = Connector(lib, secrets=secrets, accept_new_host_key=accept_new_host_key)
    try:
        say(f"connecting to {host.name}")
        transport = await connector.transport(host)
        if on_connected is not None:
            on_connected()
        return await install_tool(transport, host.name, tool, archive, progress=say, force=force)
    finally:
        await connector.close()
