"""The folder a report (storage suite, campaign) is written into: a chart format it can
draw, a directory that is new, empty of reports, or an earlier report of the same kind
(never someone else's ``index.html``), and its charts written in every format."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pairbench.export.charts import ChartRenderer
from pairbench.export.report_page import ChartFiles
from pairbench.export.storage_charts import NamedChart

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


def write_charts(
    charts: Iterable[NamedChart], out_dir: Path, renderer: ChartRenderer, fmt: str
) -> tuple[list[Path], list[ChartFiles]]:
    """Each chart as PNG and SVG (and PDF when ``fmt`` is pdf); the files written, and how
    the index links each chart (SVG shown with ``fmt`` svg, else PNG)."""
    formats = ["png", "svg"] + ([fmt] if fmt == "pdf" else [])
    shown_format = "svg" if fmt == "svg" else "png"
    written: list[Path] = []
    files: list[ChartFiles] = []
    for named in charts:
        names = [f"{named.name}.{suffix}" for suffix in formats]
        for name in names:
            renderer(named.spec, out_dir / name)
            written.append(out_dir / name)
        shown = f"{named.name}.{shown_format}"
        others = tuple(n for n in names if n != shown)
        files.append(ChartFiles(named.name, named.spec.title, shown, others))
    return written, files
