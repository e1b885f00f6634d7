"""fio in the window: a run's detail shows its json+ latency histogram (a tab, log-scale
buckets, percentiles marked) and its p50...p99.99 summary rows; the run form reads a job
file and lists its jobs before the run starts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from pairbench.domain import RunSpec, RunStatus
from pairbench.domain.metrics import metric_label
from pairbench.domain.units import format_value
from pairbench.library import Library
from pairbench.library.runs import create_run, finish_run
from pairbench.services.importing import import_output
from pairbench.tools import fio
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.latency_histogram import TAB_TITLE, outline
from pairbench.ui.library.run_detail import RunDetailView
from pairbench.ui.run.job_file_field import JobTextField
from pairbench.ui.run.param_form import ParamForm
from pairbench.ui.run.run_tab import summary_rows
from parser_checks import fixture_text

SHOTS_ENV = "PAIRBENCH_SHOTS"  # a folder to keep the screenshot in (else the test's own)


def _tab_titles(view: RunDetailView) -> list[str]:
    return [view.tabs.tabText(i) for i in range(view.tabs.count())]


def _final_bins(text: str) -> dict[int, int]:
    """The last document's read bins (one job in the fixture), found without the parser."""
    doc = json.loads(text[text.rfind("\n{\n") + 1 :] if "\n{\n" in text else text)
    bins: dict[int, int] = {}
    for job in doc["jobs"]:
        for key, count in job["read"]["clat_ns"]["bins"].items():
            bins[int(key)] = bins.get(int(key), 0) + count
    return bins


def test_run_detail_shows_the_histogram_tab_and_percentile_rows(
    qtbot: QtBot, library: Library, library_path: Path
) -> None:
    text = fixture_text("fio", "randread4k_qd32_j2_jsonplus.out")
    run = import_output(library, "fio", text, label="json+ capture")
    plain = create_run(library, RunSpec("local", "fio", fio.resolve({}), ""))
    finish_run(library, plain, RunStatus.COMPLETED, summary={"read_iops": 1.0}, complete=True)
    bridge = EngineBridge(library_path)
    try:
        view = RunDetailView(bridge)
        qtbot.addWidget(view)
        view.resize(1180, 700)
        view.show()
        with qtbot.waitSignal(view.loaded, timeout=10_000):
            view.show_run(run.id)
        assert TAB_TITLE in _tab_titles(view)
        histogram = view.fio_tabs.histogram
        assert histogram is not None
        assert list(histogram.curves) == ["read"]
        bins = _final_bins(text)
        x, y = histogram.curves["read"].getOriginalDataset()
        assert x is not None and y is not None
        assert float(np.max(y)) == max(bins.values())
        assert float(np.sum(y)) == 2 * sum(bins.values())  # each bar's top drawn twice
        assert {key for _, key in histogram.markers} == {"p50", "p99", "p999", "p9999"}
        p99 = run.summary["read_lat_p99_us"]
        assert histogram.markers[("read", "p99")].value() == np.log10(p99)
        assert f"p99 {format_value('read_lat_p99_us', p99)}" in histogram.caption.text()
        rows = view.summary_texts()
        tab_rows = dict(summary_rows(run.summary, "fio"))  # the run tab's summary
        for suffix in ("p50", "p99", "p999", "p9999"):
            name = f"read_lat_{suffix}_us"
            shown = format_value(name, run.summary[name])
            assert rows[metric_label(name, "fio")] == shown == tab_rows[metric_label(name, "fio")]
        view.tabs.setCurrentWidget(histogram)
        qtbot.wait(50)
        shot = Path(os.environ.get(SHOTS_ENV) or library_path.parent) / "fio-histogram.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        assert view.grab().save(str(shot))
        # a run without a histogram: no tab
        with qtbot.waitSignal(view.loaded, timeout=10_000):
            view.show_run(plain)
        assert TAB_TITLE not in _tab_titles(view) and view.fio_tabs.histogram is None
    finally:
        bridge.shutdown()


def test_outline_draws_each_bucket_as_a_bar() -> None:
    from pairbench.services.fio_histogram import DirectionHistogram

    one = DirectionHistogram("read", [1.0, 4.0], [2.0, 5.0], [3.0, 7.0], {})
    x, y = outline(one)
    assert list(x) == [1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 5.0, 5.0]
    assert list(y) == [0.0, 3.0, 3.0, 0.0, 0.0, 7.0, 7.0, 0.0]


JOB_FILE = "[global]\nsize=1m\nruntime=2\n[first]\nrw=randread\n[second]\nrw=write\nbs=64k\n"


def test_the_run_form_reads_a_job_file_and_lists_its_jobs(qtbot: QtBot, tmp_path: Path) -> None:
    form = ParamForm(fio.PARAMS)
    qtbot.addWidget(form)
    field = form.fields["jobfile_text"].widget
    assert isinstance(field, JobTextField)
    path = tmp_path / "two.fio"
    path.write_text(JOB_FILE)
    with qtbot.waitSignal(form.changed, timeout=1_000):
        assert field.load(str(path))
    listed = field.jobs_label.text().splitlines()
    assert listed[0] == "2 jobs:"
    assert [line.split()[:3] for line in listed[1:]] == [
        ["[first]", "randread", "bs=4k"],
        ["[second]", "write", "bs=64k"],
    ]
    assert "runtime=2" in listed[2] and "filename" not in listed[2]
    values = form.changed_values()
    assert values == {"jobfile": "two.fio", "jobfile_text": JOB_FILE}
    assert fio.resolve(values)["jobfile"] == "two.fio"
    assert form.errors() == {}
    # a file Pairbench will not run: refused with its reason, nothing loaded
    bad = tmp_path / "bad.fio"
    bad.write_text("[x]\nrw=read\nexec_prerun=reboot\n")
    assert not field.load(str(bad))
    assert "exec_prerun" in field.jobs_label.text()
    assert form.values()["jobfile_text"] == JOB_FILE
    # text typed in: checked live; the form reports the error before a run starts
    field.edit.setPlainText("[x]\nioengine=exec\n")
    assert "ioengine=exec" in form.errors()["jobfile_text"]
    field.clear_button.click()
    assert form.changed_values() == {}
    assert QApplication.instance() is not None
