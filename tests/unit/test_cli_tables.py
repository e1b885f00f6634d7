"""The CLI's tables (``hosts list``, ``pairs list``) are ``text_table``s: aligned, ruled, whole."""

from __future__ import annotations

import io
from pathlib import Path

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli


def _cli(library_path: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    return run_cli(list(argv), env), out.getvalue(), err.getvalue()


def _columns(header: str, rule: str) -> list[tuple[int, int]]:
    """(start, end) of each column from the rule under the header."""
    spans, start = [], 0
    for dashes in rule.split("  "):
        spans.append((start, start + len(dashes)))
        start += len(dashes) + 2
    assert header.startswith("NAME")
    return spans


def test_hosts_and_pairs_lists_are_aligned_tables_that_keep_long_names(
    library_path: Path,
) -> None:
    long_name = "h" * 64  # the longest valid name: shown whole, not cut
    for name, address in ((long_name, "10.0.0.5"), ("web2", "10.0.0.6")):
        assert _cli(library_path, "hosts", "add", name, "--address", address)[0] == 0
    pair = ("pairs", "add", "p1", "--client", long_name, "--server", "web2")
    assert _cli(library_path, *pair)[0] == 0

    status, out, _ = _cli(library_path, "hosts", "list")
    assert status == 0
    header, rule, *rows = out.splitlines()
    assert header.split() == ["NAME", "ADDRESS", "PORT", "USER", "AUTH", "JUMP", "TAGS"]
    spans = _columns(header, rule)
    long_row = next(r for r in rows if r.startswith(long_name))
    assert long_row[spans[0][0] : spans[0][1]] == long_name
    for row in rows:  # every address starts under its header; the port is right-aligned
        assert row[spans[1][0] :].startswith("10.0.0.") or row.startswith("localhost")
        assert row[spans[2][0] : spans[2][1]].strip().isdigit()
        assert row[spans[2][1] - 1].isdigit()

    status, out, _ = _cli(library_path, "pairs", "list")
    assert status == 0
    header, rule, *rows = out.splitlines()
    assert header.split() == ["NAME", "CLIENT", "SERVER", "TARGET", "TAGS", "DESCRIPTION"]
    spans = _columns(header, rule)
    p1 = next(r for r in rows if r.startswith("p1 "))
    assert p1[spans[1][0] : spans[1][1]] == long_name
    assert p1[spans[2][0] :].startswith("web2")
