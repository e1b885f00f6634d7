"""The one-line texts of ``storage list`` and ``campaign list``, from their JSON rows: this
library's, and the team library's with who published each."""

from __future__ import annotations

from collections.abc import Mapping

from pairbench.export.escaping import terminal_text


def suite_line(row: Mapping[str, object], ran_by: str | None = None) -> str:
    """A suite: id, test, status, host:target, (who ran it), label."""
    who = f"  {ran_by}" if ran_by is not None else ""
    line = f"{row['id']:>5}  {row['test'] or '?'!s:<10} {row['status']!s:<11} {row['host']}:"
    return terminal_text(f"{line}{row['target'] or '?'}{who}  {row['label']}".rstrip())


def campaign_line(row: Mapping[str, object], ran_by: str | None = None) -> str:
    """A campaign: id, status, runs done/planned, cells, name, (who ran it)."""
    who = f"  ({ran_by})" if ran_by is not None else ""
    return terminal_text(
        f"{row['id']:>5}  {row['status']!s:<11} {row['runs']!s:>4}/{row['runs_planned']!s:<4} "
        f"runs  {row['cells_total']} cells  {row['name']}{who}"
    )
