"""The Library shows studies as studies (issue 28, point 2): a storage suite's and a
campaign's runs are grouped under them (the list shows single runs and names what is
grouped), Show ▸ Storage suites / Campaigns lists one row each with its runs counted, Open
shows it in its own tab, and "List its runs" lists exactly its runs.

The campaign is a real one (ping on loopback, run by the CLI in this process); the suite is
stored through the library API as the scheduler stores one (its jobs' runs in suite_jobs),
so no fio is needed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from campaign_kit import stored_ping_campaign
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot
from run_kit import isolated_settings, open_window

from pairbench.domain.storage import StorageTest
from pairbench.library import Library
from pairbench.library.campaigns import campaign_runs
from pairbench.library.suites import suite_jobs
from pairbench.services.importing import import_output
from pairbench.ui.main_window import MainWindow
from storage_suites import params_of, store_suite
from testkit import FIXTURES

WAIT_MS = 20_000


@pytest.fixture
def grouped(library: Library, library_path: Path, tmp_path: Path) -> dict[str, object]:
    """Two single runs (imports), a storage suite and a real campaign."""
    singles = [
        import_output(library, "iperf3", (FIXTURES / "iperf3" / name).read_text()).id
        for name in ("tcp_t5.out", "tcp_t12_shaped_burst.out")
    ]
    suite = store_suite(library, params_of(StorageTest.LATENCY, max_rounds=5), 1, host="local")
    stored_ping_campaign(library_path, tmp_path, repeats=2)
    campaign_id = 1
    return {
        "singles": singles,
        "suite": suite,
        "suite_runs": {j.run_id for j in suite_jobs(library, suite)},
        "campaign": campaign_id,
        "campaign_runs": {r.run_id for r in campaign_runs(library, campaign_id)},
    }


@pytest.fixture
def window(qtbot: QtBot, library_path: Path, tmp_path: Path) -> Iterator[MainWindow]:
    settings: QSettings = isolated_settings(tmp_path)
    with open_window(qtbot, library_path, settings, size=(1280, 720)) as opened:
        yield opened


def _ids(window: MainWindow) -> set[int]:
    return {run.id for run in window.runs_view.model.runs()}


def test_studies_are_grouped_counted_and_opened(
    qtbot: QtBot, grouped: dict[str, object], window: MainWindow
) -> None:
    view = window.runs_view
    filters = view.filters
    suite_runs, campaign_ids = grouped["suite_runs"], grouped["campaign_runs"]
    assert isinstance(suite_runs, set) and isinstance(campaign_ids, set)
    assert len(suite_runs) > 12 and len(campaign_ids) == 2
    # Single runs by default: the suite's and the campaign's runs do not flood the list.
    qtbot.waitUntil(lambda: _ids(window) == set(grouped["singles"]), timeout=WAIT_MS)  # type: ignore[arg-type]
    assert filters.mode() == "single"
    text = filters.count_label.text()
    assert text.startswith("2 single runs · ")
    assert f"1 storage suite ({len(suite_runs)} runs)" in text
    assert "1 campaign (2 runs)" in text

    # Show ▸ Storage suites: one row, its runs counted; Open shows it in its tab.
    studies = view.studies
    with qtbot.waitSignal(studies.loaded, timeout=WAIT_MS):
        filters.set_mode("suite")
    assert len(studies.studies) == 1
    assert view.list_stack.currentWidget() is studies and studies.isVisible()
    assert studies.table.item(0, 5).text() == str(len(suite_runs))
    assert studies.table.item(0, 0).text() == f"#{grouped['suite']}"
    assert not filters.search_edit.isEnabled()  # run filters do not apply to suites
    studies.open_button.click()
    storage = window.storage_panel
    assert window.tabs.currentWidget() is storage
    follower = storage.follower
    assert follower is not None and follower.suite_id == grouped["suite"]
    qtbot.waitUntil(lambda: follower.outcome is not None, timeout=WAIT_MS)
    assert not follower.active and len(follower.done) == len(suite_runs)
    assert storage.progress.where_label.text().startswith(f"Suite #{grouped['suite']} completed")
    assert storage.error_text() == ""

    # "List its runs": exactly the suite's runs; ✕ lists every run.
    window.tabs.setCurrentWidget(view)
    studies.runs_button.click()
    qtbot.waitUntil(lambda: _ids(window) == suite_runs, timeout=WAIT_MS)
    assert filters.study_label.text() == f"Runs of storage suite #{grouped['suite']}"
    assert filters.count_label.text() == f"{len(suite_runs)} runs"
    filters.study_clear.click()
    everything = suite_runs | campaign_ids | set(grouped["singles"])  # type: ignore[arg-type]
    qtbot.waitUntil(lambda: _ids(window) == everything, timeout=WAIT_MS)
    assert filters.mode() == "any"

    # Show ▸ Campaigns: Open shows its grid in the Campaigns tab.
    with qtbot.waitSignal(studies.loaded, timeout=WAIT_MS):
        filters.set_mode("campaign")
    assert len(studies.studies) == 1
    assert studies.table.item(0, 5).text() == "2" and studies.table.item(0, 2).text() == "local"
    studies.table.setFocus()
    studies.open_current()
    campaigns = window.campaign_panel
    assert window.tabs.currentWidget() is campaigns
    qtbot.waitUntil(
        lambda: (
            campaigns.follower is not None and campaigns.follower.campaign_id == grouped["campaign"]
        ),
        timeout=WAIT_MS,
    )
    # Back to single runs: as at the start.
    window.tabs.setCurrentWidget(view)
    filters.set_mode("single")
    qtbot.waitUntil(lambda: _ids(window) == set(grouped["singles"]), timeout=WAIT_MS)  # type: ignore[arg-type]
    assert view.list_stack.currentIndex() == 0
