"""The PyInstaller bundle the ``bundle_*`` benchmarks measure: built fresh once per run.

``PAIRBENCH_BUNDLE=DIR`` (an unpacked bundle: ``DIR/pairbench``) measures that bundle instead
of building one. A fresh build goes to a temporary directory removed at exit, through
``packaging/build-bundle.sh`` exactly as ``make bundle`` builds ``dist/``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.common import Out, fmt

REPO = Path(__file__).resolve().parent.parent
BUNDLE_ENV = "PAIRBENCH_BUNDLE"
BUILD_SCRIPT = REPO / "packaging" / "build-bundle.sh"


class BundleError(Exception):
    """No bundle to measure (the build failed, or PAIRBENCH_BUNDLE is not a bundle)."""


@dataclass(frozen=True, slots=True)
class Bundle:
    """An unpacked one-folder bundle, its tarball if built here, and how long the build took."""

    directory: Path
    tarball: Path | None
    build_s: float | None

    @property
    def executable(self) -> Path:
        return self.directory / "pairbench"


_built: list[Bundle] = []


def get_bundle(out: Out) -> Bundle:
    """The bundle for this run: ``$PAIRBENCH_BUNDLE``, else one fresh build shared by all."""
    given = os.environ.get(BUNDLE_ENV)
    if given:
        bundle = Bundle(Path(given).resolve(), None, None)
        if not os.access(bundle.executable, os.X_OK):
            raise BundleError(f"{BUNDLE_ENV}={given}: no executable {bundle.executable}")
        return bundle
    if not _built:
        _built.append(_build(out))
    return _built[0]


def _build(out: Out) -> Bundle:
    dist = Path(tempfile.mkdtemp(prefix="pairbench-bench-bundle-"))
    atexit.register(shutil.rmtree, dist, True)
    out(f"  building the bundle (packaging/build-bundle.sh {dist}) ...")
    env = {**os.environ, "PYTHON": sys.executable}
    start = time.monotonic()
    proc = subprocess.run(
        [str(BUILD_SCRIPT), str(dist)], env=env, capture_output=True, text=True, check=False
    )
    build_s = time.monotonic() - start
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
        raise BundleError(f"build-bundle.sh failed (exit {proc.returncode}):\n{tail}")
    tarballs = sorted(dist.glob("pairbench-*.tar.gz"))
    out(f"  info: clean build took {fmt(build_s)} s")
    return Bundle(dist / "pairbench", tarballs[0] if tarballs else None, build_s)
