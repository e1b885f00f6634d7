"""A job file's paths checked on the host, run for real on this machine (the constant script
over real files, links, modes, a read-only mount and loop devices in ``tmp_path``): the
rules of the ``directory``/``file``/``device`` parameters hold for every path a job file
opens; what would destroy data passes only when ``confirm_destroy`` names it."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockkit import loop_device, mounted, read_only_bind
from pairbench.tools import fio
from pairbench.tools.base import ParamError


def _check(text: str, **given: str) -> None:
    """fio's host check for the job file with these parameters, run here."""
    check = fio.target_check(fio.resolve({"jobfile_text": text, **given}))
    assert check is not None
    done = subprocess.run(check.argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    check.verdict(done.stdout)


def _job(rw: str, path: Path | str, extra: str = "") -> str:
    return f"[global]\nsize=64k\nbs=4k\n[j]\nrw={rw}\nfilename={path}\n{extra}"


@pytest.fixture
def safe(tmp_path: Path) -> Path:
    folder = tmp_path / "safe"
    folder.mkdir(mode=0o700)
    return folder


def test_a_new_file_in_a_safe_folder_passes_and_names_no_confirmation(safe: Path) -> None:
    _check(_job("randwrite", safe / "new.bin"))
    assert fio.target_check(fio.resolve({"jobfile_text": _job("write", "rel.bin")})) is None


@pytest.mark.parametrize("rw", ["write", "randrw", "trim", "read:8k\nunlink=1"])
def test_an_existing_file_a_job_changes_needs_confirmation(safe: Path, rw: str) -> None:
    victim = safe / "data.bin"
    victim.write_bytes(b"k" * 4096)
    with pytest.raises(ParamError, match=rf"DESTROY data: {victim} \(an existing file.*"):
        _check(_job(rw, victim))
    _check(_job(rw, victim), confirm_destroy=str(victim))
    assert victim.read_bytes() == b"k" * 4096  # a check, not a run


def test_reading_within_a_file_is_free_beyond_it_needs_confirmation(safe: Path) -> None:
    data = safe / "data.bin"
    data.write_bytes(b"r" * 128 * 1024)
    _check(_job("randread", data))  # 64k of 128 KiB
    _check(_job("randread", data, "size=50%\n"))
    with pytest.raises(ParamError, match="less than the 196608 the jobs"):
        _check(_job("read", data, "size=128k\noffset=64k\n"))
    with pytest.raises(ParamError, match="size is not a number"):
        _check(_job("read", data, "size=(2*$mb_memory)\n"))


def test_a_link_is_refused_confirmed_or_not(safe: Path) -> None:
    target = safe / "precious"
    target.write_bytes(b"p")
    link = safe / "link.bin"
    link.symlink_to(target)
    for confirm in ("", str(link)):
        with pytest.raises(ParamError, match=f"{link} is a symbolic link"):
            _check(_job("read", link), confirm_destroy=confirm)


@pytest.mark.parametrize(("mode", "refused"), [(0o777, True), (0o770, True), (0o1777, False)])
def test_a_folder_others_may_change_is_refused_without_the_sticky_bit(
    tmp_path: Path, mode: int, refused: bool
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(mode)
    for text in (_job("write", shared / "f.bin"), f"[j]\nsize=64k\ndirectory={shared}\n"):
        if refused:
            with pytest.raises(ParamError, match=f"{shared} may be written by"):
                _check(text)
        else:
            _check(text)


def test_directories_missing_linked_or_read_only_are_refused(tmp_path: Path, safe: Path) -> None:
    with pytest.raises(ParamError, match=rf"directory={tmp_path}/gone: .* does not exist"):
        _check(f"[j]\nsize=64k\ndirectory={tmp_path}/gone\n")
    link = tmp_path / "to-safe"
    link.symlink_to(safe)
    with pytest.raises(ParamError, match="is a symbolic link: give the directory's own path"):
        _check(f"[j]\nsize=64k\ndirectory={link}\n")
    with pytest.raises(ParamError, match=r"its folder: .* does not exist"):
        _check(_job("write", tmp_path / "gone" / "f.bin"))
    with read_only_bind(safe, tmp_path / "ro") as ro:
        with pytest.raises(ParamError, match="read-only file system"):
            _check(f"[j]\nsize=64k\ndirectory={ro}\n")
        with pytest.raises(ParamError, match="read-only file system"):
            _check("[j]\nsize=64k\nfilename=x\n", directory=str(ro))


def test_null_and_zero_pass_other_character_devices_do_not(safe: Path) -> None:
    _check(_job("write", "/dev/null"))
    _check(_job("read", "/dev/zero"))
    with pytest.raises(ParamError, match="/dev/full is a character device"):
        _check(_job("write", "/dev/full"))
    with pytest.raises(ParamError, match=f"{safe} is a directory"):
        _check(_job("read", safe))


def test_every_destroyed_path_is_listed_and_confirmed_in_fios_list_syntax(safe: Path) -> None:
    one, two = safe / "one.bin", safe / "t:wo.bin"
    for path in (one, two):
        path.write_bytes(b"x")
    text = f"[j]\nsize=4k\nrw=write\nfilename={one}:{str(two).replace(':', chr(92) + ':')}\n"
    escaped = str(two).replace(":", "\\:")
    with pytest.raises(ParamError) as refused:
        _check(text)
    assert str(refused.value).endswith(f"--set confirm_destroy={one}:{escaped}")
    _check(text, confirm_destroy=f"{one}:{escaped}")
    with pytest.raises(ParamError, match="confirm_destroy names /etc/passwd, which the job"):
        fio.resolve({"jobfile_text": text, "confirm_destroy": "/etc/passwd"})


@pytest.fixture
def device() -> Iterator[str]:
    yield from loop_device(8)


def test_a_block_device_is_written_only_confirmed_and_never_in_use(
    device: str, tmp_path: Path
) -> None:
    _check(_job("randread", device))  # reading a free device destroys nothing
    with pytest.raises(ParamError, match=f"{device} \\(a block device the jobs \\[j\\] write"):
        _check(_job("randwrite", device))
    _check(_job("randwrite", device), confirm_destroy=device)
    subprocess.run(["mkfs.ext4", "-q", device], check=True, timeout=60, capture_output=True)
    with mounted(device, tmp_path / "mnt"):
        for rw in ("randread", "randwrite"):
            with pytest.raises(ParamError, match=f"refusing to run fio on {device}: it is in use"):
                _check(_job(rw, device), confirm_destroy=device)
