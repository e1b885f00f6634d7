#!/usr/bin/env python3
"""Build the lab's benchmark tools (uperf, iperf3 3.21) into a cache outside the repository.

Run by ``make run`` and ``make test`` (``make vendor``) with the project's venv Python:

    .venv/bin/python packaging/vendor_tools.py

For each tool of ``pairbench.lab.vendor.TOOLS`` (the pinned archives and their sha256 sums,
the same as ``../shared/vendor/README.md``):

- a complete build in the cache (``NAME-SHA16/`` with its ``.built`` stamp) is used as is, so
  nothing is rebuilt until the pinned archive changes;
- else a program already on ``PATH`` that prints the pinned version is used as is;
- else the archive is taken from the mirror directory (``$PAIRBENCH_VENDOR_DIR``, default
  ``../shared/vendor`` beside the repository when it exists) or downloaded from upstream
  (kept in the cache's ``archives/``), checked against the pinned sha256
  (``pairbench.lab.vendor_archive``), unpacked in a temporary directory and built.

It prints one line per tool (where it is, or why it is not) and exits 0 even when a build
fails: the lab then refuses that tool with the reason, and its lab tests fail under CI.
Build dependencies (autoconf, automake, libtool, gcc, make) come from ensure-system.sh.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "app"))

from pairbench.lab import vendor, vendor_archive  # noqa: E402
from pairbench.lab.vendor import IPERF3, UPERF, VendorTool  # noqa: E402

JOBS = str(max(1, min(os.cpu_count() or 1, 4)))


class BuildError(Exception):
    """A tool could not be obtained or built; the message says why."""


def obtain(tool: VendorTool) -> tuple[Path, str]:
    """The checked archive and where it came from (``pairbench.lab.vendor_archive``)."""
    try:
        return vendor_archive.obtain(tool)
    except vendor_archive.ArchiveError as exc:
        raise BuildError(str(exc)) from exc


def unpack(archive: Path, work: Path) -> Path:
    """The archive's top directory, unpacked in ``work``."""
    dest = work / "src"
    dest.mkdir()
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    tops = [p for p in dest.iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise BuildError(f"{archive.name}: expected one top directory, found {len(tops)}")
    return tops[0]


def sh(argv: list[str], cwd: Path, log: Path) -> None:
    """Run one build command, its output appended to ``log``; BuildError naming it on failure."""
    with log.open("a") as out:
        out.write(f"$ {' '.join(argv)}\n")
        out.flush()
        try:
            result = subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        except OSError as exc:
            raise BuildError(f"`{argv[0]}` cannot run: {exc}") from exc
    if result.returncode != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-1:] or [""]
        raise BuildError(f"`{' '.join(argv)}` failed (exit {result.returncode}): {tail[0][:200]}")


def compile_tool(tool: VendorTool, src: Path, prefix: Path, log: Path) -> None:
    """Build ``src`` and put the program into ``prefix/bin``."""
    if tool is UPERF:
        sh(["autoreconf", "-fi"], src, log)
        sh(["./configure", "--disable-sctp"], src, log)
        sh(["make", f"-j{JOBS}"], src, log)
        (prefix / "bin").mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / "src" / "uperf", prefix / "bin" / "uperf")
    else:
        # Static libiperf: a plain binary that needs no library path.
        sh(["./configure", f"--prefix={prefix}", "--disable-shared"], src, log)
        sh(["make", f"-j{JOBS}"], src, log)
        sh(["make", "install"], src, log)


def missing_build_programs(tool: VendorTool) -> list[str]:
    needed = ["gcc", "make"] + (["autoreconf", "automake", "libtoolize"] if tool is UPERF else [])
    return [p for p in needed if shutil.which(p) is None]


@contextlib.contextmanager
def cache_lock(root: Path) -> Iterator[None]:
    """One build at a time per cache (two `make` at once wait for each other)."""
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".lock").open("w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def ensure(tool: VendorTool) -> str:
    """Make ``tool`` available; one line saying where it is (raises BuildError)."""
    label = f"{tool.program} {tool.version}"
    found = vendor.cached(tool)
    if found is not None:
        return f"{label}: {found} (cached build)"
    found = vendor.on_path(tool)
    if found is not None:
        return f"{label}: {found} (already on PATH)"
    missing = missing_build_programs(tool)
    if missing:
        raise BuildError(
            f"cannot build: {', '.join(missing)} missing "
            "(packaging/ensure-system.sh installs autoconf automake libtool gcc make)"
        )
    root = vendor.cache_root()
    with cache_lock(root):
        found = vendor.cached(tool)  # built by another process meanwhile
        if found is not None:
            return f"{label}: {found} (cached build)"
        prefix = vendor.build_dir(tool)
        shutil.rmtree(prefix, ignore_errors=True)
        prefix.mkdir(parents=True)
        log = root / f"{tool.key}.log"
        log.unlink(missing_ok=True)
        with tempfile.TemporaryDirectory(prefix=f"build-{tool.program}-", dir=root) as tmp:
            work = Path(tmp)
            archive, origin = obtain(tool)
            src = unpack(archive, work)
            try:
                compile_tool(tool, src, prefix, log)
            except BuildError as exc:
                shutil.rmtree(prefix, ignore_errors=True)
                raise BuildError(f"{exc} (log: {log})") from exc
        program = prefix / "bin" / tool.program
        version = vendor.version_of(program, tool)
        if not version.startswith(tool.version_text):
            shutil.rmtree(prefix, ignore_errors=True)
            raise BuildError(f"the build prints {version!r}, not {tool.version_text!r}")
        (prefix / vendor.STAMP).write_text(f"{tool.sha256} {tool.archive} {version}\n")
        return f"{label}: {program} (built now from {origin})"


def main() -> int:
    for tool in (UPERF, IPERF3):
        try:
            line = ensure(tool)
        except (BuildError, OSError) as exc:
            line = f"{tool.program} {tool.version}: NOT AVAILABLE: {exc}"
        print(f"vendor tools: {line}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
