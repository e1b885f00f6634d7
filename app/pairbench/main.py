"""Composition root: ``pairbench`` with a command runs the CLI, without one opens the window."""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pairbench.cli.environment import Environment
    from pairbench.export.charts import ChartSpec


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pairbench`` console script and ``python -m pairbench``.

    One parser reads the command line (``cli.main``): with a command, the CLI runs it;
    without one, the window opens on ``--library`` (else ``PAIRBENCH_LIBRARY``, else the
    user data directory).
    """
    # Python's cycle collector off while the program starts: importing the parser and the
    # command's modules makes tens of thousands of objects and no garbage, and its passes
    # over them cost a tenth of the imports' time. On again before the command runs.
    collecting = gc.isenabled()
    gc.disable()
    try:
        from pairbench.cli.main import parse_command_line, run_command

        env = cli_environment()
        parsed = parse_command_line(list(sys.argv[1:] if argv is None else argv), env)
    finally:
        if collecting:
            gc.enable()
    if isinstance(parsed, int):  # --help, --version or a usage error
        return parsed
    if parsed.command is None:
        if parsed.library is not None:
            env.library_path = parsed.library
        return open_window(env.resolve_library_path())
    return run_command(parsed, env)


def open_window(library_path: Path) -> int:
    """Start the desktop workbench on this library file (imports Qt only now)."""
    from pairbench.ui.application import run_app

    return run_app(library_path)


def cli_environment() -> Environment:
    """The CLI's environment with the Qt chart renderer wired in (imported only when used)."""
    from pairbench.cli.environment import Environment

    return Environment(chart_renderer=render_chart_lazily)


def render_chart_lazily(spec: ChartSpec, path: Path) -> None:
    """Import Qt and draw the chart; without a usable Qt, ``ChartUnavailable`` says why."""
    from pairbench.export.charts import ChartUnavailable

    try:
        from pairbench.ui.compare.render import render_chart
    except ImportError as exc:
        raise ChartUnavailable(
            f"charts need Qt (PySide6) and pyqtgraph, which cannot be loaded here: {exc}"
        ) from exc
    render_chart(spec, path)


def cli_entry() -> None:
    """The console script: exit with ``main``'s status."""
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
