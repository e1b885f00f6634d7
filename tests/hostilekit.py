"""What the hostile-input tests share: a library with hosts, pairs and a run in it, the CLI run
in-process (or as a process, for hangs and memory limits), a snapshot of every table, and
the check that a command was refused in one line, stored nothing and ran nothing."""

from __future__ import annotations

import hashlib
import io
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.library import Library
from pairbench.services.hosts import HostForm, save_new_host
from pairbench.services.importing import import_output
from pairbench.services.pairs import PairForm, save_new_pair
from testkit import FIXTURES

MARK = "pwned"  # the file a shell payload would create: it must never exist
HANG_S = 20.0  # a command still running after this has hung
SPARE_MIB = 1024  # what an in-process command may map beyond what the test process has


@dataclass(frozen=True)
class Outcome:
    """What a command did: exit status and both streams (a traceback lands in ``err``)."""

    status: int
    out: str
    err: str


def payloads(marker_dir: Path) -> list[str]:
    """Texts a shell would run, each creating ``marker_dir/MARK``."""
    mark = marker_dir / MARK
    return [f"$(touch {mark})", f"`touch {mark}`", f"x;touch {mark}", f"x|touch {mark}"]


def sparse_file(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no room (its size alone should refuse it)."""
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def link_to(path: Path, target: str) -> Path:
    path.symlink_to(target)
    return path


def not_regular_files(big_mib: int) -> dict[str, Callable[[Path], Path]]:
    """Files that are no input of any kind (made in a test's folder): devices, a directory,
    a link to a device, and a sparse file of ``big_mib`` MiB (over the cap)."""
    return {
        "/dev/zero": lambda _: Path("/dev/zero"),
        "/dev/urandom": lambda _: Path("/dev/urandom"),
        "a directory": lambda folder: folder,
        "a link to /dev/zero": lambda folder: link_to(folder / "zero.in", "/dev/zero"),
        f"a {big_mib} MiB sparse file": lambda folder: sparse_file(
            folder / "big.in", big_mib << 20
        ),
    }


def make_template(folder: Path) -> Path:
    """A library holding hosts ``h1`` and ``h2``, the pair ``p1`` and one imported run."""
    path = folder / "template.sqlite"
    with Library.open(path) as lib:
        for name, address in (("h1", "10.0.0.1"), ("h2", "10.0.0.2")):
            save_new_host(lib, HostForm(name=name, address=address), None)
        save_new_pair(lib, PairForm(name="p1", client="h1", server="h2"))
        text = (FIXTURES / "iperf3" / "tcp_t5_json.out").read_text(encoding="utf-8")
        import_output(lib, "iperf3", text, pair="p1", source_name="tcp_t5_json.out")
    return path


def copy_library(template: Path, folder: Path) -> Path:
    """A library of the template's content for one test."""
    path = folder / "library.sqlite"
    shutil.copyfile(template, path)
    return path


def snapshot(path: Path) -> dict[str, str]:
    """Every table's rows, hashed: equal snapshots mean nothing was stored or changed."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = [
            str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        return {
            table: hashlib.sha256(
                repr(sorted(map(repr, conn.execute(f'SELECT * FROM "{table}"')))).encode()
            ).hexdigest()
            for table in sorted(tables)
        }
    finally:
        conn.close()


@contextmanager
def bounded_memory(extra_mib: int = SPARE_MIB) -> Iterator[None]:
    """This process may map at most ``extra_mib`` more while inside: a command that reads a
    device without end fails with ``MemoryError`` here instead of taking the machine's
    memory from everyone else's tests."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/status", encoding="ascii") as status:
        mapped_kib = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    bound = (mapped_kib << 10) + (extra_mib << 20)
    if soft != resource.RLIM_INFINITY and soft < bound:
        bound = soft
    resource.setrlimit(resource.RLIMIT_AS, (bound, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def run_here(library: Path, *argv: str) -> Outcome:
    """The CLI in this process (as the unit tests run it, within ``bounded_memory``); an
    exception that escapes is what a user would see as a traceback, so it is returned as
    one."""
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library)})
    try:
        with bounded_memory():
            status = run_cli(list(argv), env)
    except Exception:
        return Outcome(-1, out.getvalue(), err.getvalue() + traceback.format_exc())
    return Outcome(status, out.getvalue(), err.getvalue())


def run_here_unblocking(library: Path, fifo: Path, *argv: str) -> Outcome:
    """``run_here`` in a thread; if it is still running after ``HANG_S`` (blocked on
    ``fifo``), a writer opens and closes the FIFO so that it ends, and the outcome says
    it hung."""
    result: list[Outcome] = []
    worker = threading.Thread(target=lambda: result.append(run_here(library, *argv)))
    worker.start()
    worker.join(HANG_S)
    if worker.is_alive():
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # a blocked reader is there
        os.close(fd)
        worker.join(HANG_S)
        return Outcome(-2, "", f"hung on the FIFO {fifo} for {HANG_S} s")
    return result[0]


def run_process(
    library: Path, *argv: str, memory_mib: int | None = None, timeout: float = HANG_S
) -> Outcome:
    """``pairbench ARGV`` as a process of its own (optionally under an address-space limit,
    as ``ulimit -v``); a hang is ended after ``timeout`` and reported as one."""
    environ = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/root"),
        "PAIRBENCH_LIBRARY": str(library),
        "PAIRBENCH_LOCK_DIR": os.environ.get("PAIRBENCH_LOCK_DIR", str(library.parent)),
        "OPENBLAS_NUM_THREADS": "1",
    }
    limit: Callable[[], None] | None = None
    if memory_mib is not None:
        size = memory_mib << 20

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    try:
        done = subprocess.run(
            [sys.executable, "-m", "pairbench", *argv],
            capture_output=True,
            text=True,
            env=environ,
            timeout=timeout,
            preexec_fn=limit,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Outcome(-2, "", f"hung: still running after {timeout} s")
    return Outcome(done.returncode, done.stdout, done.stderr)


def assert_refused(
    outcome: Outcome, before: dict[str, str], library: Path, marker_dir: Path
) -> None:
    """Refused in one line (``pairbench: ...`` on stderr, no traceback, a non-zero status),
    the library's tables as they were, and no payload ran."""
    lines = [line for line in outcome.err.splitlines() if line.strip()]
    assert "Traceback" not in outcome.err, outcome.err
    assert outcome.status > 0, (outcome.status, outcome.err, outcome.out)
    assert len(lines) == 1 and lines[0].startswith("pairbench: "), outcome.err
    assert snapshot(library) == before, f"the library changed: {lines}"
    assert not (marker_dir / MARK).exists(), "a payload ran"


def refused_here(template: Path, folder: Path, *commands: Sequence[str]) -> list[Outcome]:
    """Each command in-process on one copy of ``template`` in ``folder``, each refused as
    ``assert_refused`` says; their outcomes."""
    library = copy_library(template, folder)
    before = snapshot(library)
    outcomes = [run_here(library, *argv) for argv in commands]
    for outcome in outcomes:
        assert_refused(outcome, before, library, folder)
    return outcomes
