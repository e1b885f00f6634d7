"""Which tools Pairbench can build on a host, and how an error tells the user to get a tool."""

from __future__ import annotations

from typing import Final

from pairbench.lab.vendor import IPERF3, UPERF, VendorTool
from pairbench.tools.registry import TOOLS

# The tools this builds, by the name users give (``hosts install-tool HOST NAME``).
INSTALLABLE: Final[dict[str, VendorTool]] = {UPERF.program: UPERF, IPERF3.program: IPERF3}


def install_words(tool: str, host: str) -> str:
    """How to get ``tool`` onto ``host``, for an error message: Pairbench's own install for
    the tools it builds, else the Debian package."""
    own = f"pairbench hosts install-tool {host} {tool}"
    known = TOOLS.get(tool)
    if tool not in INSTALLABLE:
        hint = known.install_hint if known is not None else f"apt-get install {tool}"
        return f"install it with `sudo {hint}`"
    if known is not None and tool == "iperf3":
        return f"install it with `sudo {known.install_hint}`, or build 3.21 with `{own}`"
    return f"install it with `{own}` (or “Install {tool}…” in the Hosts tab)"
