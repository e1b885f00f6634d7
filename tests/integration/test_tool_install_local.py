"""What ``hosts install-tool`` says before building: a host without a compiler is told which
programs it lacks and the packages that give them, and nothing is uploaded; the pinned archive
is refused when its sha256 differs, and a failed download names its URL."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import os
from pathlib import Path

import pytest

from pairbench.domain.failures import MissingBuildToolsError, ToolInstallError
from pairbench.engine.install_hint import install_words
from pairbench.lab import vendor
from pairbench.lab.vendor_archive import ArchiveError, obtain
from pairbench.remote.local import LocalTransport
from pairbench.services.tool_install import install_tool, vendor_tool
from testkit import require_program


def _restricted_path(tmp_path: Path, programs: list[str]) -> Path:
    """A directory holding only links to ``programs``: a host that has just these."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in programs:
        (folder / name).symlink_to(require_program(name))
    return folder


def test_a_host_without_a_compiler_is_told_what_to_install_and_nothing_is_uploaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _restricted_path(tmp_path, ["sh", "tar", "gzip", "make"])
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    before = set(Path(os.environ.get("TMPDIR", "/tmp")).glob("pairbench.*"))
    archive = tmp_path / "never-read.tar.gz"  # the probe fails first: it is never opened
    with pytest.raises(MissingBuildToolsError) as caught:
        asyncio.run(install_tool(LocalTransport(), "local", vendor.UPERF, archive))
    error = caught.value
    assert error.programs == ["gcc", "autoreconf", "automake", "libtoolize"]
    assert error.packages == ["gcc", "autoconf", "automake", "libtool"]
    text = str(error)
    assert "cannot build uperf on local: it lacks gcc, autoreconf, automake, libtoolize" in text
    if "debian" in Path("/etc/os-release").read_text().lower():
        assert "`sudo apt-get install gcc autoconf automake libtool`" in text
    assert "nothing was uploaded" in text
    assert set(Path(os.environ.get("TMPDIR", "/tmp")).glob("pairbench.*")) == before
    assert not (tmp_path / "home" / ".local").exists()


def test_iperf3_needs_no_autotools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _restricted_path(tmp_path, ["sh", "tar", "make"])
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(MissingBuildToolsError) as caught:
        asyncio.run(install_tool(LocalTransport(), "local", vendor.IPERF3, tmp_path / "x"))
    assert caught.value.programs == ["gzip", "gcc"]


def test_only_the_pinned_tools_can_be_installed() -> None:
    assert vendor_tool("uperf") is vendor.UPERF
    with pytest.raises(ToolInstallError, match="can install iperf3, uperf, not 'fio'"):
        vendor_tool("fio")


def test_the_words_for_a_missing_tool_name_the_way_to_install_it() -> None:
    assert install_words("uperf", "db1") == (
        "install it with `pairbench hosts install-tool db1 uperf` "
        "(or “Install uperf…” in the Hosts tab)"
    )
    assert install_words("iperf3", "db1") == (
        "install it with `sudo apt-get install iperf3`, or build 3.21 with "
        "`pairbench hosts install-tool db1 iperf3`"
    )
    assert install_words("fio", "db1") == "install it with `sudo apt-get install fio`"


def _tool_at(archive: Path, url: str = "http://127.0.0.1:9/none.tar.gz") -> vendor.VendorTool:
    digest = hashlib.sha256(archive.read_bytes()).hexdigest() if archive.exists() else "0" * 64
    return dataclasses.replace(vendor.UPERF, archive=archive.name, sha256=digest, url=url)


def test_the_archive_comes_from_the_mirror_when_it_holds_it(tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    archive = mirror / "tool-1.tar.gz"
    archive.write_bytes(b"pinned bytes")
    tool = _tool_at(archive)
    env = {"PAIRBENCH_VENDOR_DIR": str(mirror), "PAIRBENCH_TOOLS_CACHE": str(tmp_path / "c")}
    assert obtain(tool, env) == (archive, str(archive))

    archive.write_bytes(b"other bytes")  # the mirror's file changed: refused, left as it is
    with pytest.raises(ArchiveError, match="is not the pinned"):
        obtain(tool, env)
    assert archive.read_bytes() == b"other bytes"


def test_a_failed_download_names_the_url_and_keeps_nothing(tmp_path: Path) -> None:
    tool = _tool_at(tmp_path / "absent-1.tar.gz")  # port 9 on loopback: refused at once
    env = {"PAIRBENCH_VENDOR_DIR": str(tmp_path / "empty"), "PAIRBENCH_TOOLS_CACHE": str(tmp_path)}
    with pytest.raises(ArchiveError, match=r"download of http://127\.0\.0\.1:9/none\.tar\.gz"):
        obtain(tool, env)
    assert list((tmp_path / "archives").iterdir()) == []
