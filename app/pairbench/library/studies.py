"""How many runs each storage suite and campaign holds (the Library's grouped view): the
same membership as ``RunFilter.member`` (a suite's jobs; a campaign's runs and its
storage cells' suite jobs), counted in SQL."""

from __future__ import annotations

from pairbench.library.connection import Library


def suite_run_counts(lib: Library) -> dict[int, int]:
    """Suite id → how many of its jobs' runs the library still holds."""
    rows = lib.conn.execute(
        "SELECT suite_id, count(DISTINCT run_id) FROM suite_jobs "
        "WHERE run_id IS NOT NULL GROUP BY suite_id"
    ).fetchall()
    return {int(suite): int(n) for suite, n in rows}


def campaign_run_counts(lib: Library) -> dict[int, int]:
    """Campaign id → how many runs it holds: its own and its storage cells' suite jobs."""
    rows = lib.conn.execute(
        "SELECT campaign_id, count(*) FROM ("
        " SELECT campaign_id, run_id FROM campaign_runs WHERE run_id IS NOT NULL"
        " UNION"
        " SELECT cr.campaign_id, sj.run_id FROM campaign_runs cr"
        " JOIN suite_jobs sj ON sj.suite_id = cr.suite_id WHERE sj.run_id IS NOT NULL"
        ") GROUP BY campaign_id"
    ).fetchall()
    return {int(campaign): int(n) for campaign, n in rows}


def study_totals(lib: Library, suite_kind: str) -> tuple[int, int]:
    """How many suites of ``suite_kind`` and how many campaigns the library holds."""
    (suites,) = lib.conn.execute(
        "SELECT count(*) FROM suites WHERE kind = ?", (suite_kind,)
    ).fetchone()
    (campaigns,) = lib.conn.execute("SELECT count(*) FROM campaigns").fetchone()
    return int(suites), int(campaigns)
