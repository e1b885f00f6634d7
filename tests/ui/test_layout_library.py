"""The library and compare side of the window at 1280×720 (issue 28): the Library with a
storage suite and a campaign grouped, a run's detail with its burst analysis, a run's detail
on its Hosts tab (the verdict, both hosts' TCP figures in bands), the suites' list, the
compare view of two overlapping runs, and the Storage suite and Campaigns tabs showing a
stored study. In each: the window does not grow, nothing scrolls sideways (text editors of
raw output aside), no label's text is wider than its widget, and every plot is at least
120 px high and 200 px wide: the rules of ``layout_kit.layout_problems``, the run side's too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from campaign_kit import stored_ping_campaign
from layout_kit import SCREEN, VERDICT, layout_problems, shot, telemetry_records
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot
from run_kit import isolated_settings, open_window

from compare_runs import store_run
from pairbench.domain.storage import StorageTest
from pairbench.library import Library
from pairbench.library.analyses import store_analysis
from pairbench.services.burst import analyze_stored_burst
from pairbench.services.compare import compare_inputs
from pairbench.services.importing import import_output
from pairbench.ui.compare.view import CompareView
from pairbench.ui.main_window import MainWindow
from storage_suites import params_of, store_suite
from testkit import FIXTURES, REPO

SIZE = SCREEN
SHOTS = REPO / "test-output" / "layout-1280"
WAIT_MS = 20_000
LONG_LABEL = "a label as long as people write them: same zone, placement group, 9001 MTU, tuned"


# -- the checks -------------------------------------------------------------------------------


def check(window: QWidget, what: str) -> None:
    """Every rule at once (``layout_kit.layout_problems``), naming what broke it."""
    QApplication.processEvents()
    problems = layout_problems(window, size=SIZE)
    assert not problems, f"{what}: " + "; ".join(problems)


# -- the views --------------------------------------------------------------------------------


def _run_with_telemetry(library: Library) -> int:
    """A stored 4-stream TCP run with both hosts' telemetry (the sampler's TCP capture) and
    the longest verdict: its detail's Hosts tab holds the widest Hosts table."""
    streams: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    for stream, t, metrics, values in telemetry_records("tcp"):
        for metric, value in zip(metrics, values, strict=True):
            times, kept = streams.setdefault(stream, {}).setdefault(metric, ([], []))
            times.append(t)
            kept.append(value)
    run_id = store_run(
        library,
        summary={"throughput_bps": 11.9e9},
        params={"streams": "4"},
        series={"throughput_bps": (np.arange(1.0, 4.0), np.full(3, 11.9e9))},
        streams={
            s: {m: (np.array(t), np.array(v)) for m, (t, v) in by.items()}
            for s, by in streams.items()
        },
    )
    store_analysis(library, run_id, "diagnosis", VERDICT.payload())
    library.conn.commit()
    return run_id


@pytest.fixture
def window(
    qtbot: QtBot, library: Library, library_path: Path, tmp_path: Path
) -> Iterator[tuple[MainWindow, dict[str, int]]]:
    burst = import_output(
        library,
        "iperf3",
        (FIXTURES / "iperf3" / "tcp_t12_shaped_burst.out").read_text(),
        label=LONG_LABEL,
        tags={"zone": "a", "placement": "cluster", "instance": "r4.large"},
    ).id
    analyze_stored_burst(library, burst)
    same = [
        import_output(library, "iperf3", (FIXTURES / "iperf3" / "tcp_t5.out").read_text()).id
        for _ in range(2)
    ]
    hosts = _run_with_telemetry(library)
    suite = store_suite(library, params_of(StorageTest.LATENCY, max_rounds=5), 2, host="local")
    stored_ping_campaign(library_path, tmp_path, repeats=1)
    with open_window(qtbot, library_path, isolated_settings(tmp_path), size=SIZE) as opened:
        yield opened, {"burst": burst, "a": same[0], "b": same[1], "suite": suite, "hosts": hosts}


def test_the_library_side_fits_1280_by_720(
    qtbot: QtBot, library: Library, window: tuple[MainWindow, dict[str, int]]
) -> None:
    main, ids = window
    view = main.runs_view
    qtbot.waitUntil(lambda: view.model.rowCount() == 4, timeout=WAIT_MS)
    assert "1 storage suite" in view.count_label.text()  # grouped, not listed
    check(main, "the Library, single runs")

    with qtbot.waitSignal(view.detail.loaded, timeout=WAIT_MS):
        view.open_run(ids["burst"])
    check(main, "a burst run's detail")

    with qtbot.waitSignal(view.detail.loaded, timeout=WAIT_MS):
        view.open_run(ids["hosts"])
    hosts = view.detail.hosts
    view.detail.tabs.setCurrentWidget(hosts)
    qtbot.waitUntil(lambda: len(hosts.panel.bands()) > 1, timeout=WAIT_MS)  # TCP's 8 columns
    assert hosts.verdict.text() == VERDICT.sentence()
    shot(main, SHOTS, "library-run-hosts-tab.png")
    check(main, "a run's detail, its Hosts tab")

    view.show_list()
    with qtbot.waitSignal(view.studies.loaded, timeout=WAIT_MS):
        view.filters.set_mode("suite")
    check(main, "the Library's storage suites")
    view.studies.open_current()
    follower = main.storage_panel.follower
    assert follower is not None
    qtbot.waitUntil(lambda: follower.outcome is not None, timeout=WAIT_MS)
    check(main, "the Storage suite tab showing a stored suite")

    main.tabs.setCurrentWidget(view)
    with qtbot.waitSignal(view.studies.loaded, timeout=WAIT_MS):
        view.filters.set_mode("campaign")
    view.studies.open_current()
    panel = main.campaign_panel
    qtbot.waitUntil(lambda: panel.follower is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: panel.live.grid.model().rowCount() > 0, timeout=WAIT_MS)
    check(main, "the Campaigns tab showing a stored campaign")


def test_the_compare_view_fits_1280_by_720(
    qtbot: QtBot, library: Library, window: tuple[MainWindow, dict[str, int]]
) -> None:
    _main, ids = window
    view = CompareView(compare_inputs(library, [ids["a"], ids["b"], ids["burst"]]))
    qtbot.addWidget(view)
    view.resize(*SIZE)
    view.show()
    qtbot.waitExposed(view)
    assert view.chart is not None and "overlap" in view.chart.spec.note
    for tab in range(view.tabs.count()):
        view.tabs.setCurrentIndex(tab)
        check(view, f"the compare view, {view.tabs.tabText(tab)}")
