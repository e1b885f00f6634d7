"""The pinned source archives of the vendor tools: from a mirror directory or upstream, checked.

One place for ``make vendor`` (``packaging/vendor_tools.py``, which builds them for the lab)
and ``pairbench hosts install-tool`` (which builds them on a user's host): the archive comes
from the mirror directory when it holds it (``$PAIRBENCH_VENDOR_DIR``, else ``shared/vendor``
beside a source checkout), else from the download cache, else from the upstream URL into that
cache; whatever its origin, its sha256 must be the pinned one.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
from collections.abc import Mapping
from pathlib import Path

from pairbench.lab.vendor import MIRROR_ENV, VendorTool, cache_root

DOWNLOAD_TIMEOUT_S = 60
# ``shared/vendor`` beside a source checkout (app/pairbench/lab/ → the repository's parent).
CHECKOUT_MIRROR = Path(__file__).resolve().parents[3].parent / "shared" / "vendor"


class ArchiveError(Exception):
    """The archive could not be had, or is not the pinned one; the message says why."""


def mirror_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """The directory holding the archives, when there is one."""
    env = os.environ if environ is None else environ
    given = env.get(MIRROR_ENV)
    if given:
        return Path(given)
    return CHECKOUT_MIRROR if CHECKOUT_MIRROR.is_dir() else None


def sha256_of(path: Path) -> str:
    """The file's sha256, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where downloaded archives are kept (beside the builds)."""
    return cache_root(environ) / "archives"


def obtain(tool: VendorTool, environ: Mapping[str, str] | None = None) -> tuple[Path, str]:
    """The checked archive of ``tool`` and where it came from (a path or the upstream URL).

    ``ArchiveError`` when it is nowhere to be had or its sha256 is not the pinned one (a bad
    download is deleted, a bad mirror file is left as it is and named).
    """
    mirror = mirror_dir(environ)
    kept = download_dir(environ) / tool.archive
    if mirror is not None and (mirror / tool.archive).is_file():
        archive, origin = mirror / tool.archive, str(mirror / tool.archive)
    elif kept.is_file():
        archive, origin = kept, str(kept)
    else:
        archive, origin = _download(tool, kept, mirror), tool.url
    actual = sha256_of(archive)
    if actual != tool.sha256:
        if archive == kept:
            kept.unlink(missing_ok=True)
        raise ArchiveError(
            f"{origin}: sha256 {actual} is not the pinned {tool.sha256}: refusing to use it"
        )
    return archive, origin


def _download(tool: VendorTool, dest: Path, mirror: Path | None) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=dest.parent, prefix=".part-", delete=False) as part:
        try:
            with urllib.request.urlopen(tool.url, timeout=DOWNLOAD_TIMEOUT_S) as response:
                shutil.copyfileobj(response, part)
        except OSError as exc:
            Path(part.name).unlink(missing_ok=True)
            where = f"not in {mirror}; " if mirror is not None else ""
            raise ArchiveError(
                f"{tool.archive}: {where}download of {tool.url} failed: {exc}"
            ) from exc
    os.replace(part.name, dest)
    return dest
