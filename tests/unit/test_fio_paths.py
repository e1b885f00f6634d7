"""fio's path checks on the host, run for real on this machine (the constant script over
real files, links, modes, owners and a read-only mount): a kept test file that is a link,
exists unconfirmed or sits in a folder others may change is refused; a ``directory`` that
is missing, read-only or unsafe is refused; what is safe passes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from blockkit import read_only_bind
from pairbench.tools import fio
from pairbench.tools.base import ParamError
from pairbench.tools.fio_paths import parse_path_states, path_state_argv
from testkit import require

NOBODY = 65534


def _check(**given: str) -> None:
    """fio's host check for these parameters, run here: ``ParamError`` when refused."""
    check = fio.target_check(fio.resolve(given))
    assert check is not None
    done = subprocess.run(check.argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    check.verdict(done.stdout)


def _folder(tmp_path: Path, mode: int, name: str = "folder") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    folder.chmod(mode)
    return folder


def test_the_script_reports_kinds_modes_and_mounts(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"x" * 10)
    link = tmp_path / "link"
    link.symlink_to(victim)
    sticky = _folder(tmp_path, 0o1777, "sticky")
    paths = (str(victim), str(link), str(sticky), str(tmp_path / "missing"))
    done = subprocess.run(path_state_argv(*paths), capture_output=True, text=True, timeout=30)
    file, linked, folder, missing = parse_path_states(done.stdout, paths)
    assert (file.kind, file.size, file.mode, file.owner) == ("file", 10, 0o644 & ~_umask(), 0)
    assert linked.kind == "link" and linked.real_type == "regular file"
    assert folder.kind == "directory" and folder.mode == 0o1777 and folder.writable
    assert "rw" in folder.options and not folder.read_only
    assert missing.kind == "missing"
    assert file.me == os.getuid()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("rw", ["write", "randwrite", "randrw", "rw"])
def test_an_existing_file_is_written_only_when_confirmed(tmp_path: Path, rw: str) -> None:
    existing = tmp_path / "data.bin"
    existing.write_bytes(b"precious")
    with pytest.raises(ParamError, match="DESTROYED") as info:
        _check(rw=rw, file=str(existing), size="1M")
    assert f"confirm_destroy={existing}" in str(info.value)
    _check(rw=rw, file=str(existing), size="1M", confirm_destroy=str(existing))
    _check(rw=rw, file=str(tmp_path / "new.bin"), size="1M")  # fio creates it: nothing lost
    assert existing.read_bytes() == b"precious"


def test_reading_a_file_is_free_unless_fio_would_lay_it_out_again(tmp_path: Path) -> None:
    """fio deletes and recreates a file smaller than ``size`` before reading it (seen with
    fio 3.33: a 14-byte file became 1 MiB of fio's data)."""
    big = tmp_path / "big.bin"
    big.write_bytes(b"\0" * 4096)
    _check(rw="randread", file=str(big), size="4k")
    with pytest.raises(ParamError, match="less than size") as info:
        _check(rw="read", file=str(big), size="8k")
    assert "DESTROYED" in str(info.value)
    _check(rw="read", file=str(big), size="8k", confirm_destroy=str(big))


def test_a_link_is_never_followed_even_confirmed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    link = tmp_path / "test.dat"
    link.symlink_to(victim)
    for params in (
        {"rw": "write"},
        {"rw": "write", "confirm_destroy": str(link)},
        {"rw": "read", "size": "4k"},  # smaller: fio would remove the link and make a file
    ):
        with pytest.raises(ParamError, match="symbolic link"):
            _check(file=str(link), **params)
    dangling = tmp_path / "dangling.dat"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(ParamError, match="symbolic link"):
        _check(rw="write", file=str(dangling))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ParamError, match="not a regular file"):
        _check(rw="write", file=str(fifo), confirm_destroy=str(fifo))


@pytest.mark.parametrize(
    ("mode", "refused"),
    [
        (0o777, "its group and everyone"),
        (0o770, "its group"),
        (0o757, "everyone"),
        (0o1777, None),
        (0o755, None),
        (0o700, None),
    ],
)
def test_a_folder_others_may_change_without_the_sticky_bit_is_refused(
    tmp_path: Path, mode: int, refused: str | None
) -> None:
    folder = _folder(tmp_path, mode)
    for params in ({"directory": str(folder)}, {"file": str(folder / "t.dat"), "rw": "write"}):
        if refused is None:
            _check(**params)
            continue
        with pytest.raises(ParamError, match="without the sticky bit") as info:
            _check(**params)
        assert f"may be written by {refused} (mode {mode:o})" in str(info.value)
        assert f"chmod +t {folder}" in str(info.value)


def test_a_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    require(os.geteuid() == 0, "giving a folder to another user needs root")
    folder = _folder(tmp_path, 0o1777)
    os.chown(folder, NOBODY, NOBODY)
    with pytest.raises(ParamError, match=f"another user \\(uid {NOBODY}\\)"):
        _check(directory=str(folder))
    with pytest.raises(ParamError, match="another user"):
        _check(file=str(folder / "t.dat"), rw="write")


def test_missing_read_only_and_non_directories_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ParamError, match="does not exist"):
        _check(directory=str(tmp_path / "nope"))
    with pytest.raises(ParamError, match="does not exist"):
        _check(file=str(tmp_path / "nope" / "t.dat"), rw="write")
    plain = tmp_path / "plain"
    plain.write_text("x")
    with pytest.raises(ParamError, match="is not a directory"):
        _check(directory=str(plain))
    good = _folder(tmp_path, 0o755, "good")
    link = tmp_path / "to-good"
    link.symlink_to(good)
    _check(directory=str(link))  # a folder the user named through a link: its folder counts
    with read_only_bind(good, tmp_path / "ro") as ro:
        with pytest.raises(ParamError, match="read-only file system"):
            _check(directory=str(ro))
        with pytest.raises(ParamError, match="read-only file system"):
            _check(file=str(ro / "t.dat"), rw="read", size="4k")


def test_confirm_destroy_names_the_device_or_the_file() -> None:
    assert fio.resolve({"file": "/srv/t.dat", "confirm_destroy": "/srv/t.dat"})["file"]
    with pytest.raises(ParamError, match=r"must be the file's path \(/srv/t.dat\)"):
        fio.resolve({"file": "/srv/t.dat", "confirm_destroy": "/srv/other.dat"})
    with pytest.raises(ParamError, match="only together with device or file"):
        fio.resolve({"directory": "/srv", "confirm_destroy": "/srv"})
    assert fio.target_check(fio.resolve({})) is None  # the private temporary directory
