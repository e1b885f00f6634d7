"""The bundle under test: built fresh from this checkout, unpacked from its tarball elsewhere.

``PAIRBENCH_BUNDLE=DIR`` (an unpacked bundle, ``DIR/pairbench``) tests that bundle instead.
Otherwise one session-wide build runs ``packaging/build-bundle.sh`` into a temporary directory
(a clean PyInstaller work dir, as ``make bundle``), and the tarball is unpacked into another
temporary directory: the bundle under test never sees the source tree or the venv.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from bundle_kit import BundleUnderTest

from pairbench import __version__
from testkit import REPO, require

BUNDLE_ENV = "PAIRBENCH_BUNDLE"
BUILD_TIMEOUT_S = 600


@pytest.fixture(scope="session")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> BundleUnderTest:
    """The bundle to test (see the module docstring)."""
    given = os.environ.get(BUNDLE_ENV)
    if given:
        found = BundleUnderTest(Path(given).resolve())
        require(os.access(found.executable, os.X_OK), f"{BUNDLE_ENV}: no {found.executable}")
        return found
    require(
        shutil.which("objdump") is not None or os.geteuid() == 0,
        "building the bundle needs Debian's binutils (apt-get install binutils)",
    )
    dist = tmp_path_factory.mktemp("bundle-dist")
    proc = subprocess.run(
        [str(REPO / "packaging" / "build-bundle.sh"), str(dist)],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, f"build-bundle.sh failed:\n{proc.stdout}\n{proc.stderr}"
    tarball = dist / f"pairbench-{__version__}-linux-{os.uname().machine}.tar.gz"
    assert tarball.is_file(), f"no tarball {tarball.name} in {sorted(os.listdir(dist))}"
    unpacked = tmp_path_factory.mktemp("bundle-unpacked")
    with tarfile.open(tarball) as tar:
        tar.extractall(unpacked, filter="tar")
    shutil.rmtree(dist / "pairbench")  # only the unpacked copy is left to run
    return BundleUnderTest(unpacked / "pairbench")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A private HOME (settings, default library) for one test."""
    path = tmp_path / "home"
    path.mkdir()
    return path
