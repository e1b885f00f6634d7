"""``pairbench hosts install-tool HOST uperf|iperf3``: build a pinned tool on a host, in its
user's ``~/.local/bin``."""

from __future__ import annotations

import argparse
import asyncio
import json

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.cli.output import fail, say
from pairbench.cli.prompts import TerminalPrompt
from pairbench.cli.signals import cancel_on_signals, until_cancelled
from pairbench.domain.failures import ToolInstallError, TransportError
from pairbench.export.escaping import terminal_text
from pairbench.services.library import Library, LibraryError
from pairbench.services.tool_install import INSTALLABLE, InstallResult, install_on_host


def add_subparser(hosts_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``hosts install-tool``."""
    names = "|".join(INSTALLABLE)
    p = hosts_sub.add_parser(
        "install-tool",
        help=f"build {names} from its pinned source on a host, into the user's ~/.local/bin",
    )
    p.add_argument("name", metavar="HOST")
    p.add_argument("tool", metavar=names.upper(), choices=sorted(INSTALLABLE))
    p.add_argument(
        "--force", action="store_true", help="build even when the pinned version is there"
    )
    p.add_argument(
        "--accept-new-host-key", action="store_true", help="pin a host key seen the first time"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Install; progress on stderr, the result on stdout. Exit 0 when the tool is there;
    Ctrl-C or SIGTERM stop the build, remove its work directory and exit 130."""

    def progress(text: str) -> None:
        env.err(terminal_text(f"{args.tool} on {args.name}: {text}"))

    async def install(lib: Library) -> InstallResult:
        # Ctrl-C at a password prompt stays the terminal's; once connected, Ctrl-C or SIGTERM
        # cancel the build (also when started with SIGINT ignored, as a script's background
        # job is).
        cancel = asyncio.Event()
        work = install_on_host(
            lib,
            args.name,
            args.tool,
            secrets=TerminalPrompt(),
            accept_new_host_key=args.accept_new_host_key,
            progress=progress,
            force=args.force,
            on_connected=lambda: cancel_on_signals(cancel),
        )
        return await until_cancelled(work, cancel)

    with env.open_library() as lib:
        try:
            result = asyncio.run(install(lib))
        except KeyboardInterrupt:
            return fail(env, "install cancelled (nothing was installed)", ExitStatus.CANCELLED)
        except (ToolInstallError, TransportError, LibraryError, OSError, ValueError) as exc:
            return fail(env, f"cannot install {args.tool} on {args.name}: {exc}")
    if args.json:
        env.out(
            json.dumps(
                {
                    "host": result.host,
                    "tool": result.tool,
                    "path": result.path,
                    "version": result.version,
                    "installed": not result.already,
                }
            )
        )
    elif result.already:
        say(env, f"{result.tool} is already on {result.host}: {result.path} ({result.version})")
    else:
        say(env, f"installed {result.path} on {result.host} ({result.version})")
    return ExitStatus.OK
