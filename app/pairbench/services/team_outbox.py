"""Whether this library has runs, suites or campaigns to publish to its team library now,
answered from the library alone (no PostgreSQL driver loaded: the CLI asks after every
command that stores)."""

from __future__ import annotations

from pairbench.library import Library
from pairbench.library.team import local
from pairbench.library.team.entity_local import KINDS, waiting_count


def publishing_due(lib: Library) -> bool:
    """True when the library publishes automatically and its outbox holds runs, or suites
    or campaigns that ended (or changed since published) wait."""
    if local.get_setting(lib, local.AUTO) != "on" or not local.get_setting(lib, local.URL):
        return False
    return bool(local.outbox(lib)) or any(waiting_count(lib, kind) for kind in KINDS)
