"""The folder a report (storage suite, campaign) is written into: a chart format it can
draw, and a directory that is new, empty of reports, or an earlier report of the same kind
(never someone else's ``index.html``)."""

from __future__ import annotations

from pathlib import Path

FORMATS = ("png", "svg", "pdf")
INDEX = "index.html"


def check_format(fmt: str, error: type[Exception]) -> None:
    """``error`` unless ``fmt`` is a chart format the reports write."""
    if fmt not in FORMATS:
        raise error(f"chart format: one of {', '.join(FORMATS)}, got {fmt!r}")


def prepare_out_dir(out_dir: Path, generator: str, kind: str, error: type[Exception]) -> None:
    """Refuse a file, or a directory whose ``index.html`` does not carry ``generator`` (it
    would be overwritten), with ``error``; create the directory if missing."""
    if out_dir.exists() and not out_dir.is_dir():
        raise error(f"{out_dir} is a file: --out takes a directory")
    index = out_dir / INDEX
    if index.is_file():
        head = index.read_text(encoding="utf-8", errors="replace")[:2000]
        if generator not in head:
            raise error(f"{index} exists and is not a Pairbench {kind}: choose another --out")
    out_dir.mkdir(parents=True, exist_ok=True)
