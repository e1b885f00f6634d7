"""A text file of the user's read on this computer for a run (a fio job file, a uperf
profile): bounded in size, UTF-8, every failure one line in the caller's error type."""

from __future__ import annotations

from pathlib import Path

__all__ = ["read_text_file"]


def read_text_file(
    path: str | Path, *, max_chars: int, what: str, error: type[ValueError]
) -> tuple[Path, str]:
    """The file at ``path`` (``~`` expanded) and its text; ``error`` if it cannot be read, is
    larger than ``max_chars`` characters could be, or is not UTF-8 text."""
    file = Path(path).expanduser()
    try:
        if file.stat().st_size > max_chars * 4:
            raise error(f"{file}: larger than {max_chars // 1024} KiB")
        data = file.read_bytes()
    except OSError as exc:
        raise error(f"cannot read {what} {file}: {exc.strerror or exc}") from exc
    try:
        return file, data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{file}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
