"""``pairbench hosts rename OLD NEW`` and ``pairbench pairs rename OLD NEW``: give a stored host
or pair another name (one reserved for this computer, ``local``, in an older library)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.export.escaping import terminal_text
from pairbench.services.host_names import rename_host, rename_pair
from pairbench.services.library import Library, LibraryError

_WHAT = {
    "host": "its pinned host keys, the hosts that jump through it and its storage suites follow",
    "pair": "its runs follow",
}


def add_subparser(sub: argparse._SubParsersAction[argparse.ArgumentParser], kind: str) -> None:
    """Register ``rename`` under ``hosts`` or ``pairs`` (``kind``: "host" or "pair")."""
    p = sub.add_parser("rename", help=f"give a {kind} another name ({_WHAT[kind]})")
    p.add_argument("old", metavar="OLD")
    p.add_argument("new", metavar="NEW")
    rename = rename_host if kind == "host" else rename_pair
    p.set_defaults(handler=_handler(kind, rename))


def _handler(
    kind: str, rename: Callable[[Library, str, str], None]
) -> Callable[[argparse.Namespace, Environment], ExitStatus]:
    def handle(args: argparse.Namespace, env: Environment) -> ExitStatus:
        """Rename, in one transaction; one line either way."""
        try:
            with env.open_library() as lib:
                rename(lib, args.old, args.new)
        except (ValueError, LibraryError) as exc:
            env.err(terminal_text(f"pairbench: {exc}"))
            return ExitStatus.ERROR
        env.out(terminal_text(f"renamed {kind} {args.old} to {args.new}"))
        return ExitStatus.OK

    return handle
