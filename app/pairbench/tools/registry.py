"""The explicit table of tools Pairbench can run (no import magic: PyInstaller sees it too)."""

from __future__ import annotations

from pairbench.tools import iperf3
from pairbench.tools.base import ParamError, Tool

TOOLS: dict[str, Tool] = {
    iperf3.NAME: Tool(
        name=iperf3.NAME,
        debian_package=iperf3.DEBIAN_PACKAGE,
        version_argv=iperf3.VERSION_ARGV,
        server_ready_text=iperf3.SERVER_READY_TEXT,
        default_port=iperf3.DEFAULT_PORT,
        params=iperf3.PARAMS,
        resolve=iperf3.resolve,
        capabilities=iperf3.capabilities,
        expected_seconds=iperf3.expected_seconds,
        commands=iperf3.commands,
        parser=iperf3.parser,
    ),
}


def get_tool(name: str) -> Tool:
    """The tool with this name; ``ParamError`` naming the known tools otherwise."""
    tool = TOOLS.get(name)
    if tool is None:
        raise ParamError(f"unknown tool {name!r}; known: {', '.join(sorted(TOOLS))}")
    return tool
