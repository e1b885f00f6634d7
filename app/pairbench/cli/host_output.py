"""How ``hosts`` and ``pairs`` show a host: the widest a list column grows, its JSON."""

from __future__ import annotations

from typing import Any

from pairbench.domain import Host
from pairbench.export.run_json import host_payload

# Widest a column of ``hosts list`` / ``pairs list`` grows: the longest valid value (names
# 64, host names 253, users 32); text imported without those checks is cut there.
NAME_MAX, ADDRESS_MAX, USER_MAX, TAGS_MAX = 64, 253, 32, 200


def host_json(host: Host) -> dict[str, Any]:
    """A host's fields for ``--json``: its stored fields (``host_payload``, as exports and
    bundles write them) and whether it is this machine."""
    return {**host_payload(host), "local": host.is_local}
