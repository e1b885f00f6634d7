"""Reading a file the user names: a regular file only (a FIFO or a device is refused without
ever blocking), never more than the size allowed for what it should be, text decoded by its
byte-order mark (UTF-8, UTF-16 as PowerShell writes it, UTF-32)."""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path
from typing import BinaryIO

from pairbench.domain.failures import UserFileError

MIB = 1 << 20

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
# Byte-order marks, longest first (UTF-32 LE's begins with UTF-16 LE's).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_SNIFF = 512  # bytes looked at to tell UTF-16 without a byte-order mark
_CHUNK = MIB  # what is read at a time past a file's stated size


def size_text(size: int) -> str:
    """A byte count for a message: ``1,000,000 bytes``, ``512 MiB``."""
    if size >= MIB and size % MIB == 0:
        return f"{size // MIB:,} MiB"
    if size >= 10 * MIB:
        return f"{size / MIB:,.0f} MiB"
    return f"{size:,} bytes"


def _kind(mode: int) -> str:
    return next((text for test, text in _KINDS if test(mode)), "not a regular file")


def _refuse_kind(what: str, path: str, mode: int) -> UserFileError:
    return UserFileError(f"{what} {path} is {_kind(mode)}, not a regular file", path=path)


def _refuse_size(what: str, path: str, size: int, limit: int) -> UserFileError:
    return UserFileError(
        f"{what} {path} is larger than {size_text(limit)} ({size_text(size)}), the most "
        "Pairbench reads of it",
        path=path,
    )


def open_regular(path: Path | str, *, what: str = "the file", limit: int | None = None) -> BinaryIO:
    """``path`` opened for reading when it is a regular file of at most ``limit`` bytes.

    The path is looked at first (``stat``: a device is never even opened), then opened with
    ``O_NONBLOCK`` (a FIFO put there meanwhile does not block the open) and checked again on
    the open descriptor, which is what is read. ``UserFileError`` says why not.
    """
    name = os.fspath(path)
    try:
        before = os.stat(name)
        if not stat.S_ISREG(before.st_mode):
            raise _refuse_kind(what, name, before.st_mode)
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise UserFileError(
            f"cannot read {what} {name}: {exc.strerror or exc}", path=name, os_error=exc
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _refuse_kind(what, name, info.st_mode)
        if limit is not None and info.st_size > limit:
            raise _refuse_size(what, name, info.st_size, limit)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: Path | str, *, what: str = "the file", limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (a file that grows past it
    while read is refused too); ``UserFileError`` says why not.

    Memory follows the file, not the limit: what its size says is read at once, anything
    more in chunks (``read(n)`` sets aside ``n`` bytes before it reads any).
    """
    name = os.fspath(path)
    with open_regular(name, what=what, limit=limit) as handle:
        try:
            size = os.fstat(handle.fileno()).st_size
            parts = [handle.read(min(size, limit) + 1)]
            total = len(parts[0])
            while total > size and total <= limit:  # it grew (or its size said too little)
                part = handle.read(min(_CHUNK, limit + 1 - total))
                if not part:
                    break
                parts.append(part)
                total += len(part)
        except OSError as exc:
            raise UserFileError(
                f"cannot read {what} {name}: {exc.strerror or exc}", path=name, os_error=exc
            ) from None
        except MemoryError:
            raise _no_memory(what, name, size) from None
    if total > limit:
        raise _refuse_size(what, name, total, limit)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def decode_text(data: bytes, errors: str = "replace") -> str:
    """Text from bytes: by its byte-order mark (dropped), as UTF-16 when it has none but
    nearly every other byte of its start is NUL and the bytes between are not (mostly
    ASCII text saved as UTF-16), else as UTF-8. ``errors`` as ``bytes.decode`` takes it
    ("replace": undecodable bytes become U+FFFD)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(encoding, errors=errors)
    head = data[:_SNIFF]
    if len(head) >= 16 and b"\x00" in head:
        even, odd = head[0::2], head[1::2]
        if _mostly_nul(odd) and not even.count(0):
            return data.decode("utf-16-le", errors=errors)
        if _mostly_nul(even) and not odd.count(0):
            return data.decode("utf-16-be", errors=errors)
    return data.decode("utf-8", errors=errors)


def _mostly_nul(data: bytes) -> bool:
    return data.count(0) >= 0.9 * len(data)


def read_text(
    path: Path | str, *, what: str = "the file", limit: int, errors: str = "replace"
) -> str:
    """``read_bytes`` then ``decode_text``; with ``errors="strict"`` text that does not decode
    is refused too (``UserFileError`` saying which encoding and at which byte)."""
    data = read_bytes(path, what=what, limit=limit)
    try:
        return decode_text(data, errors)
    except UnicodeDecodeError as exc:
        raise _not_text(what, os.fspath(path), exc, len(data)) from None
    except MemoryError:
        raise _no_memory(what, os.fspath(path), len(data)) from None


def _not_text(what: str, path: str, exc: UnicodeDecodeError, size: int) -> UserFileError:
    # ``exc.object`` is what was decoded: the bytes after a byte-order mark, if any.
    at = exc.start + size - len(exc.object)
    encoding = exc.encoding.upper().replace("-LE", "").replace("-BE", "").replace("_", "-")
    return UserFileError(
        f"cannot read {what} {path}: not {encoding} text ({exc.reason} at byte {at:,})",
        path=path,
    )


def _no_memory(what: str, path: str, size: int) -> UserFileError:
    return UserFileError(
        f"{what} {path} ({size_text(size)}) does not fit in the memory this process may use",
        path=path,
    )
