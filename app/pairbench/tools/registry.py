"""The explicit table of tools Pairbench can run (no import magic: PyInstaller sees it too)."""

from __future__ import annotations

from pairbench.tools import fio, iperf2, iperf3, nuttcp, ping, uperf
from pairbench.tools.base import ParamError, Tool

TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (iperf3.TOOL, uperf.TOOL, nuttcp.TOOL, ping.TOOL, iperf2.TOOL, fio.TOOL)
}


def get_tool(name: str) -> Tool:
    """The tool with this name; ``ParamError`` naming the known tools otherwise."""
    tool = TOOLS.get(name)
    if tool is None:
        raise ParamError(f"unknown tool {name!r}; known: {', '.join(sorted(TOOLS))}")
    return tool
