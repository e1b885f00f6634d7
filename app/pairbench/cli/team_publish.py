"""Around a command that stores runs, when the library publishes to a team library
automatically: its runs published live while they record, then the outbox published; one
line on stderr, never a failure of the command itself."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from pairbench.cli.environment import Environment


@contextlib.contextmanager
def live_publishing(env: Environment) -> Iterator[None]:
    """While the command runs, a thread publishes the runs it records (see
    ``services.team_live``); nothing when the library does not publish automatically."""
    path = env.resolve_library_path()
    publisher = None
    if path.exists():
        from pairbench.services.team_live import LivePublisher, live_target

        with env.open_library() as lib:
            target = live_target(lib)
        if target is not None:
            publisher = LivePublisher(path, target).start()
    try:
        yield
    finally:
        if publisher is not None:
            publisher.stop()


def publish_after(env: Environment) -> None:
    """Publish what waits, if this library publishes automatically; say what happened."""
    path = env.resolve_library_path()
    if not path.exists():
        return
    from pairbench.services.team_outbox import publishing_due

    with env.open_library() as lib:  # a library opened full publishes nothing
        if lib.full is not None or not publishing_due(lib):
            return
    from pairbench.services.team import LibraryError, TeamError, publish_waiting

    try:
        with env.open_library() as lib:
            result = publish_waiting(lib)
    except (LibraryError, TeamError) as exc:
        env.err(f"team: not published ({exc}); `pairbench team push` later")
        return
    if result is None:
        return
    if result.pushed or result.skipped:
        env.err(f"team: published {len(result.pushed) + len(result.skipped)} run(s)")
    if result.suites.pushed or result.campaigns.pushed:
        env.err(
            f"team: published {len(result.suites.pushed)} suite(s), "
            f"{len(result.campaigns.pushed)} campaign(s)"
        )
    if result.error:
        env.err(
            f"team: {result.pending} run(s) wait in the outbox ({result.error}); "
            f"they are published on the next command or `pairbench team push`"
        )
