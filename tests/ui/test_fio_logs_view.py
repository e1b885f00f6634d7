"""A job file's own fio logs in the window: a stored run's detail shows them in a tab, a plot
per log and direction with a curve per job's file, drawn from the values fio wrote (the
captured logs of a real run, ``fixtures/fio/logs_randread4k``), in the run's units."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from pytestqt.qtbot import QtBot

from pairbench.domain import RunSpec, RunStatus
from pairbench.library import Library
from pairbench.library.analyses import store_analysis
from pairbench.library.runs import create_run, finish_run
from pairbench.tools import fio
from pairbench.tools.base import CollectedFile
from pairbench.tools.fio_logs import LOGS_KIND, logs_payload
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.fio_logs_view import TAB_TITLE
from pairbench.ui.library.run_detail import RunDetailView
from testkit import FIXTURES

LOGS = FIXTURES / "fio" / "logs_randread4k"
SHOTS_ENV = "PAIRBENCH_SHOTS"
# fio's unit → the plot's base unit (KiB/s → B/s, ns → µs)
FACTORS = {"bw": 1024.0, "iops": 1.0, "lat": 1e-3, "clat": 1e-3, "slat": 1e-3}
METRICS = {
    "bw": "read_bytes_per_s",
    "iops": "read_iops",
    "lat": "read_lat_us",
    "clat": "read_clat_us",
    "slat": "read_slat_us",
}


def _column(path: Path, index: int) -> list[float]:
    return [float(line.split(",")[index]) for line in path.read_text().splitlines() if line]


def test_run_detail_shows_each_log_as_fio_wrote_it(
    qtbot: QtBot, library: Library, library_path: Path
) -> None:
    files = {p.name: CollectedFile(p.read_text(), p.stat().st_size, True) for p in LOGS.iterdir()}
    payload = logs_payload(files, ["rr"])
    assert payload is not None
    params = fio.resolve({"jobfile_text": "[rr]\nsize=1m\nrw=randread\nwrite_bw_log=rr\n"})
    run_id = create_run(library, RunSpec("local", "fio", params, "logs"))
    finish_run(library, run_id, RunStatus.COMPLETED, summary={"read_iops": 1.0}, complete=True)
    store_analysis(library, run_id, LOGS_KIND, payload)
    plain = create_run(library, RunSpec("local", "fio", fio.resolve({}), ""))
    finish_run(library, plain, RunStatus.COMPLETED, summary={"read_iops": 1.0}, complete=True)
    bridge = EngineBridge(library_path)
    try:
        view = RunDetailView(bridge)
        qtbot.addWidget(view)
        view.resize(1180, 760)
        view.show()
        with qtbot.waitSignal(view.loaded, timeout=10_000):
            view.show_run(run_id)
        titles = [view.tabs.tabText(i) for i in range(view.tabs.count())]
        assert titles[:2] == ["Plots", TAB_TITLE]
        logs = view.fio_tabs.logs
        assert logs is not None
        plots = {plot.metric: plot for plot in logs.plots}
        assert sorted(plots) == sorted(METRICS.values())
        for log, metric in METRICS.items():
            plot = plots[metric]
            assert sorted(plot.curves) == ["rr.1", "rr.2"]
            for job in (1, 2):
                path = LOGS / f"rr_{log}.{job}.log"
                t, values = plot.curves[f"rr.{job}"].getOriginalDataset()
                assert t is not None and values is not None
                drawn = np.asarray(values) / plot.factor
                expected = np.asarray(_column(path, 1)) * FACTORS[log]
                count = len(drawn)  # a partial last interval is drawn as a marker
                assert np.allclose(drawn, expected[:count], rtol=1e-12)
                assert np.allclose(np.asarray(t), np.asarray(_column(path, 0))[:count] / 1000)
        assert "rr_bw.1.log" in logs.caption.text()
        view.tabs.setCurrentWidget(logs)
        qtbot.wait(50)
        shot = Path(os.environ.get(SHOTS_ENV) or library_path.parent) / "fio-logs.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        assert view.grab().save(str(shot))
        with qtbot.waitSignal(view.loaded, timeout=10_000):
            view.show_run(plain)
        assert view.fio_tabs.logs is None
        assert TAB_TITLE not in [view.tabs.tabText(i) for i in range(view.tabs.count())]
    finally:
        bridge.shutdown()
