"""The one way a file the user names is read (domain/user_files.py): regular files only, a FIFO
refused without blocking even when it appears between the look and the open, a size cap
that the file's growth cannot pass, memory that follows the file, and text by its BOM."""

from __future__ import annotations

import codecs
import os
import socket
from pathlib import Path

import pytest

from pairbench.domain import user_files
from pairbench.domain.failures import UserFileError
from pairbench.domain.user_files import decode_text, read_bytes, read_text

TEXT = (
    "Connecting to host 10.0.0.2, port 5201\n"
    "[  5]   0.00-1.00   sec  1.09 GBytes  9.41 Gbits/sec\nÄö€\n"
)


@pytest.mark.timeout(30)
def test_only_a_regular_file_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock_path = tmp_path / "sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sock_path))
    try:
        cases = {
            fifo: "a named pipe (FIFO)",
            Path("/dev/zero"): "a character device",
            Path("/dev/urandom"): "a character device",
            tmp_path: "a directory",
            sock_path: "a socket",
        }
        for path, kind in cases.items():
            with pytest.raises(UserFileError) as refused:
                read_bytes(path, what="the plan", limit=1 << 20)
            assert str(refused.value) == f"the plan {path} is {kind}, not a regular file"
    finally:
        listener.close()
    with pytest.raises(UserFileError, match=r"cannot read the plan .*missing: No such file"):
        read_bytes(tmp_path / "missing", what="the plan", limit=10)


@pytest.mark.timeout(30)
def test_a_fifo_put_there_after_the_look_does_not_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race: the path was a regular file when looked at, a FIFO when opened. The open
    does not wait for a writer (O_NONBLOCK) and the open descriptor is refused."""
    fifo, regular = tmp_path / "fifo", tmp_path / "plain"
    os.mkfifo(fifo)
    regular.write_text("x")
    real_stat = os.stat
    monkeypatch.setattr(
        user_files.os, "stat", lambda p, *a, **k: real_stat(regular if p == str(fifo) else p)
    )
    with pytest.raises(UserFileError, match="named pipe"):
        read_bytes(fifo, limit=10)


def test_the_cap_is_the_files_size_and_what_it_grows_to(tmp_path: Path) -> None:
    path = tmp_path / "big"
    with path.open("wb") as handle:
        handle.truncate(2 << 30)  # sparse: refused by its size, never read
    with pytest.raises(UserFileError, match=r"larger than 1 MiB \(2,048 MiB\)"):
        read_bytes(path, what="the output file", limit=1 << 20)
    # /proc files say size 0 and hold more: read past the size, refused past the cap.
    status = Path("/proc/self/status")
    assert status.stat().st_size == 0
    assert b"VmSize" in read_bytes(status, limit=1 << 20)
    with pytest.raises(UserFileError, match="larger than 100 bytes"):
        read_bytes(status, limit=100)


def test_memory_follows_the_file_not_the_cap(tmp_path: Path) -> None:
    """A small file under a 512 MiB cap: ``read(limit + 1)`` would set aside the whole cap."""
    import resource

    path = tmp_path / "small"
    path.write_bytes(b"x" * 5000)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/status", encoding="ascii") as status:
        mapped = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    resource.setrlimit(resource.RLIMIT_AS, ((mapped << 10) + (256 << 20), hard))
    try:
        assert read_bytes(path, limit=512 << 20) == b"x" * 5000
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@pytest.mark.parametrize(
    "encoded",
    [
        TEXT.encode("utf-8"),
        codecs.BOM_UTF8 + TEXT.encode("utf-8"),
        codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"),  # PowerShell's `>` and Out-File
        codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"),
        codecs.BOM_UTF32_LE + TEXT.encode("utf-32-le"),
        TEXT.encode("utf-16-le"),  # no byte-order mark: told by its NUL bytes
        TEXT.encode("utf-16-be"),
    ],
)
def test_text_is_read_by_its_byte_order_mark(encoded: bytes, tmp_path: Path) -> None:
    path = tmp_path / "text"
    path.write_bytes(encoded)
    assert read_text(path, limit=1 << 20) == TEXT


def test_undecodable_bytes_are_replaced_or_refused() -> None:
    assert decode_text(b"ok \xff\xfe?") == "ok \ufffd\ufffd?"  # not a BOM: not at the start
    assert decode_text(b"\x7fELF\x02\x01\x01\x00\x00") == "\x7fELF\x02\x01\x01\x00\x00"
    with pytest.raises(UnicodeDecodeError):
        decode_text(b"Z\xfcrich", errors="strict")


def test_read_text_strict_refuses_undecodable_text_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "plan"
    path.write_bytes(b"label = Z\xfcrich")
    with pytest.raises(UserFileError, match=r"the plan .*plan: not UTF-8 text \(.* at byte 9\)"):
        read_text(path, what="the plan", limit=100, errors="strict")
    # after a byte-order mark: the byte counted in the file, the mark included
    path.write_bytes(codecs.BOM_UTF16_LE + "ab".encode("utf-16-le") + b"\x00\xdc")
    with pytest.raises(UserFileError, match=r"not UTF-16 text \(.* at byte 6\)"):
        read_text(path, limit=100, errors="strict")
