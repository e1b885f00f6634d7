"""CloudHarmony's block-storage code (PHP, Apache-2.0) as the reference of the storage suite's
differential tests: the pinned archive, sha256-checked (``pairbench.lab.vendor_archive``: from
``$PAIRBENCH_VENDOR_DIR`` or ``../shared/vendor``, else downloaded from GitHub at the pinned
commit), unpacked into a cache outside the repository
(``~/.cache/pairbench/reference/``), and run there by Debian's ``php`` through our own
driver (``cloudharmony_driver.php``: their workload loop, column computation and results
writer on fio results a test supplies). Nothing of theirs is copied into the repository.
A missing ``php`` or archive skips a test on a laptop and fails it under ``CI=true``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pairbench.domain.storage import Job, StorageTest, block_size_word
from pairbench.lab.vendor import VendorTool
from pairbench.lab.vendor_archive import ArchiveError, obtain
from testkit import require, require_program

COMMIT = "9b15364"
ARCHIVE = VendorTool(
    program="cloudharmony-block-storage",
    version=COMMIT,
    archive=f"cloudharmony-block-storage-{COMMIT}.tar.gz",
    sha256="80d8f5b24a32eeebff5aa9fcc62f833ad4be42e9d86552f220a5a9bb0c1e9377",
    url=f"https://github.com/cloudharmony/block-storage/archive/{COMMIT}.tar.gz",
    version_argv=(),
    version_text="",
)
DRIVER = Path(__file__).with_name("cloudharmony_driver.php")
PHP_TIMEOUT_S = 600


def cache_dir() -> Path:
    """``pairbench/reference`` in the user's cache directory (``$XDG_CACHE_HOME``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pairbench" / "reference"


def reference_lib() -> Path:
    """Their ``lib/`` directory, unpacked once from the checked archive (skip or, under
    CI=true, fail when php or the archive cannot be had)."""
    require_program("php")
    dest = cache_dir() / f"{ARCHIVE.program}-{ARCHIVE.sha256[:16]}"
    lib = dest / "lib"
    if (lib / "BlockStorageTest.php").is_file():
        return lib
    try:
        archive, _origin = obtain(ARCHIVE)
    except ArchiveError as exc:
        require(False, f"CloudHarmony's block-storage archive: {exc}")
        raise
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".unpack-"))
    try:
        with tarfile.open(archive) as tar:
            tar.extractall(work, filter="data")
        (top,) = [p for p in work.iterdir() if p.is_dir()]
        try:
            top.rename(dest)
        except OSError:  # unpacked meanwhile by another test process
            require((lib / "BlockStorageTest.php").is_file(), f"{dest} is incomplete")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return lib


def job_name(test: StorageTest, round_no: int, job: Job) -> str:
    """CloudHarmony's name of a job of a round (``x3-65_35-4k-rand``, ``x1-0_100-1024k-seq``)."""
    mix = f"{job.read_pct}_{100 - job.read_pct}"
    if test is StorageTest.THROUGHPUT:
        return f"x{round_no}-{mix}-{'1024k' if job.bs == '1m' else job.bs}-seq"
    return f"x{round_no}-{mix}-{block_size_word(job.bs)}-rand"


def run_reference(requests: Sequence[Mapping[str, Any]], work: Path) -> list[dict[str, Any]]:
    """Their results for each request (``cloudharmony_driver.php`` says the shapes): one
    php process for the lot. Its PATH holds only an ``nproc`` that prints the CPU count a
    ``threads`` request sets (their run options ask ``nproc``): their results writer asks
    ``fio --version`` each time (a version nothing here compares), which then fails at once
    instead of starting fio hundreds of times."""
    lib = reference_lib()
    php = require_program("php")
    work.mkdir(parents=True, exist_ok=True)
    asked, answered, scratch = work / "requests.json", work / "results.json", work / "rows"
    empty = work / "programs"
    scratch.mkdir()
    empty.mkdir()
    nproc = empty / "nproc"
    nproc.write_text(f"#!/bin/sh\nexec /bin/cat {work / 'cpus'}\n")
    nproc.chmod(0o755)
    asked.write_text(json.dumps(list(requests)))
    argv = [php, str(DRIVER), str(lib), str(asked), str(answered), str(scratch)]
    env = {"PATH": str(empty), "LANG": "C"}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=PHP_TIMEOUT_S, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    said = [line for line in done.stderr.splitlines() if not line.endswith(": not found")]
    assert not said, said[:20]  # no warning from their code either
    results: list[dict[str, Any]] = json.loads(answered.read_text())
    assert len(results) == len(requests)
    return results
