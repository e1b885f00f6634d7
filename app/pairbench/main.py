"""Composition root: ``pairbench`` with a command runs the CLI, without one opens the window."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pairbench`` console script and ``python -m pairbench``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or (len(args) == 2 and args[0] == "--library"):
        from pairbench.library import default_library_path
        from pairbench.ui.application import run_app

        return run_app(Path(args[1]) if args else default_library_path())
    from pairbench.cli.main import run_cli

    return run_cli(args)


def cli_entry() -> None:
    """The console script: exit with ``main``'s status."""
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
