"""The distinct pairs and tools that stored runs name: a Library tab's filter choices."""

from __future__ import annotations

from pairbench.library.connection import Library


def run_pairs(lib: Library) -> list[str]:
    """Every pair name some run was recorded on (the runs_pair index answers it)."""
    return [str(row[0]) for row in lib.conn.execute("SELECT DISTINCT pair FROM runs ORDER BY pair")]


def run_tools(lib: Library) -> list[str]:
    """Every tool some run used (the runs_tool index answers it)."""
    return [str(row[0]) for row in lib.conn.execute("SELECT DISTINCT tool FROM runs ORDER BY tool")]
