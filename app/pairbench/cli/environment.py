"""The CLI's environment (streams, variables, library path), injectable for in-process tests."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # imported when used: `pairbench --version` needs neither (CLI start)
    from pairbench.export.charts import ChartRenderer
    from pairbench.services.library import Library


@dataclass
class Environment:
    """Where the CLI reads and writes; tests pass StringIO streams and their own variables."""

    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    library_path: Path | None = None
    # Draws charts (``compare --chart``, bundles). The CLI never imports ``ui``: the
    # composition root (``pairbench.main``) injects Qt's renderer; None means no charts here.
    chart_renderer: ChartRenderer | None = None

    def resolve_library_path(self) -> Path:
        """``--library``, else ``PAIRBENCH_LIBRARY``, else the user data directory."""
        if self.library_path is not None:
            return self.library_path
        # Imported here, not for `--version` (CLI start time).
        from pairbench.services.library import default_library_path

        return default_library_path(self.environ)

    def open_library(self) -> Library:
        """Open the library this environment points at; say what its opening repaired."""
        from pairbench.services.library import open_library

        library = open_library(self.resolve_library_path())
        if library.warnings:  # the escaping tables are built only when there is one to print
            from pairbench.export.escaping import terminal_text

            for warning in library.warnings:
                self.err(terminal_text(f"pairbench: warning: {warning}"))
        return library

    def out(self, text: str = "") -> None:
        """A line on stdout, flushed (live output must not sit in a buffer)."""
        print(text, file=self.stdout, flush=True)

    def err(self, text: str) -> None:
        """A line on stderr."""
        print(text, file=self.stderr, flush=True)
