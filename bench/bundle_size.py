"""bundle_size: the unpacked size of the one-folder bundle (MB), against the installed packages.

The baseline is what the bundle is made from, as installed in this venv: the site-packages
directories of PySide6, shiboken6, numpy, pyqtgraph, cryptography, asyncssh, bcrypt, ... The
ratio shows what the spec's exclusions and trimming save.
"""

from __future__ import annotations

import importlib.util
import os
from collections import Counter
from pathlib import Path

from bench.bundle_build import get_bundle
from bench.common import Out, Verdict, fmt

NAME = "bundle_size"
# The unpacked bundle may be this fraction of the same packages as installed in the venv (the
# baseline, measured in the same run; what the app does not use is left out): about 250 MB
# where the venv holds 340 MB.
TARGET_RATIO = 0.75
MB = 1e6
# Top-level import names of what the bundle carries (the app's dependencies).
DEPENDENCIES = (
    "PySide6", "shiboken6", "numpy", "pyqtgraph", "cryptography", "asyncssh", "bcrypt",
    "keyring", "platformdirs", "cffi", "jeepney", "secretstorage",
)  # fmt: skip


def tree_bytes(root: Path) -> int:
    """Apparent size of every regular file under ``root`` (symbolic links not followed)."""
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                total += os.stat(path).st_size
    return total


def _installed_bytes() -> int:
    """The installed size of ``DEPENDENCIES`` (package dirs and their ``*.libs`` dirs)."""
    total = 0
    for name in DEPENDENCIES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        package = Path(next(iter(spec.submodule_search_locations)))
        total += tree_bytes(package)
        libs = package.parent / f"{name}.libs"
        if libs.is_dir():
            total += tree_bytes(libs)
    return total


def _largest_parts(internal: Path, count: int = 8) -> list[tuple[str, int]]:
    """The biggest pieces of ``_internal``: top-level entries, with PySide6/Qt/lib split."""
    parts: Counter[str] = Counter()
    for dirpath, _dirs, files in os.walk(internal):
        rel = Path(dirpath).relative_to(internal)
        for name in files:
            path = Path(dirpath) / name
            if path.is_symlink():
                continue
            key_parts = (rel / name).parts
            key = (
                "/".join(key_parts[:4])
                if key_parts[:3] == ("PySide6", "Qt", "lib")
                else (key_parts[0])
            )
            parts[key] += path.stat().st_size
    return parts.most_common(count)


def run(quick: bool, out: Out = print) -> Verdict:
    """Build (or take) the bundle and report its unpacked size."""
    bundle = get_bundle(out)
    size = tree_bytes(bundle.directory)
    files = sum(len(f) for _d, _s, f in os.walk(bundle.directory))
    baseline = _installed_bytes()
    out(f"{NAME}: {bundle.directory} ({files} files)")
    out(f"  baseline: the same packages installed in the venv  {fmt(baseline / MB)} MB")
    out(f"  bundle, unpacked                                  {fmt(size / MB)} MB")
    if bundle.tarball is not None:
        out(f"  info: {bundle.tarball.name}  {fmt(bundle.tarball.stat().st_size / MB)} MB")
    for part, nbytes in _largest_parts(bundle.directory / "_internal"):
        out(f"  info: {part:<36} {fmt(nbytes / MB):>6} MB")
    out(f"  ratio bundle / installed packages: {fmt(size / baseline)}x")
    return Verdict(
        NAME,
        size / baseline,
        TARGET_RATIO,
        "the same packages installed in the venv",
        info=f"unpacked {fmt(size / MB)} MB",
    )
