"""The storage suite on this computer (``--host local``): a host without fio is refused with
the command that installs it, before anything is stored or written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testkit import require_program

# What the suite runs on a host before fio: its target checks and the CPU count.
PROGRAMS = ["sh", "bash", "stat", "test", "df", "dd", "rm", "rmdir", "mktemp", "nproc"]
PROGRAMS += ["readlink", "cat", "id", "awk"]


def test_a_host_without_fio_is_refused_with_the_way_to_install_it(tmp_path: Path) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in PROGRAMS:
        (folder / name).symlink_to(require_program(name))
    target = tmp_path / "target"
    target.mkdir()
    library = tmp_path / "library.sqlite"
    env = {**os.environ, "PATH": str(folder), "HOME": str(tmp_path / "home")}
    argv = [sys.executable, "-m", "pairbench", "--library", str(library), "storage"]
    run = [*argv, "run", "--host", "local", "--test", "throughput", "--target", str(target)]
    result = subprocess.run(
        [*run, "--size", "8MiB", "--round-seconds", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "fio" in result.stderr and "apt-get install fio" in result.stderr, result.stderr
    assert list(target.iterdir()) == []  # no test file, no probe left behind
    listed = subprocess.run(
        [*argv, "list", "--json"], env=env, capture_output=True, text=True, timeout=60
    )
    assert json.loads(listed.stdout) == []  # nothing stored
