"""The run panel and run tabs, driven by clicks on a real window over the real engine."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot
from run_kit import (
    click_start,
    isolated_settings,
    last_controller,
    open_window,
    save_png,
    set_field,
    tab_of,
)

from pairbench.domain import LOCAL_PAIR, RunSpec, RunStatus
from pairbench.domain.failures import HostKeyUnknownError, RunError
from pairbench.library import Library
from pairbench.library.hosts import add_pair
from pairbench.library.runs import get_run, list_runs
from pairbench.tools.registry import TOOLS
from pairbench.ui.run.controller import RunPhase
from pairbench.ui.run.presets import BUILTIN_PRESETS
from pairbench.ui.run.run_panel import RunPanel
from testkit import require_program


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return isolated_settings(tmp_path)


# -- first start, the form, presets ----------------------------------------------------------


def test_first_start_has_this_computer_ready(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        pair = panel.current_pair()
        assert pair is not None and pair.name == LOCAL_PAIR.name
        assert panel.run_form.pair_choice.combo.currentText() == "local — This computer"
        assert panel.current_tool().name == "iperf3"
        assert panel.form is not None and set(panel.form.fields) == set(TOOLS["iperf3"].params)
        assert panel.start_button.isEnabled()


def test_missing_iperf3_shows_how_to_install_it(
    qtbot: QtBot, library_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_which = shutil.which
    monkeypatch.setattr(
        shutil, "which", lambda name, *a, **k: None if name == "iperf3" else real_which(name)
    )
    with open_window(qtbot, library_path, settings) as window:
        banner = window.run_panel.banner
        assert banner.isVisible()
        assert "apt-get install iperf3" in banner.text()


def test_iperf3_present_means_no_banner(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    require_program("iperf3")
    with open_window(qtbot, library_path, settings) as window:
        assert not window.run_panel.banner.isVisible()


def test_the_form_follows_the_tool_and_its_kinds(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        assert panel.form is not None
        from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QSpinBox

        assert isinstance(panel.form.fields["duration"].widget, QSpinBox)
        assert panel.form.fields["duration"].widget.maximum() == 86400
        assert isinstance(panel.form.fields["udp"].widget, QCheckBox)
        assert isinstance(panel.form.fields["bitrate"].widget, QLineEdit)
        panel.select_tool("fio")
        assert isinstance(panel.form.fields["rw"].widget, QComboBox)
        assert isinstance(panel.form.fields["rwmixread"].widget, QLineEdit)  # optional int
        assert panel.form.values()["iodepth"] == "32"


@pytest.mark.parametrize(
    "preset", [p for p in BUILTIN_PRESETS if p.tool in TOOLS], ids=lambda p: p.name
)
def test_presets_fill_the_form(
    qtbot: QtBot, library_path: Path, settings: QSettings, preset: Any
) -> None:
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        index = panel.preset_combo.findData(preset.name)
        assert index > 0
        panel.preset_combo.setCurrentIndex(index)
        panel.preset_combo.activated.emit(index)  # what choosing it in the list does
        assert panel.current_tool().name == preset.tool
        assert panel.form is not None
        values = panel.form.values()
        for name, value in preset.params.items():
            assert values[name] == value, name
        # Every other field is back at its default.
        for name, field in panel.form.fields.items():
            if name not in preset.params:
                assert values[name] == field.param.default, name
        assert panel.form.errors() == {}
        assert panel.run_form.label_edit.text() == preset.name
        # What Start would submit resolves exactly like the CLI's --set.
        checked = panel.validate()
        assert not isinstance(checked, str), checked
        TOOLS[preset.tool].resolve(checked[1].params)


def test_presets_of_tools_not_yet_available_are_disabled(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        model = panel.preset_combo.model()
        for preset in BUILTIN_PRESETS:
            item = model.item(panel.preset_combo.findData(preset.name))  # type: ignore[attr-defined]
            assert item.isEnabled() == (preset.tool in TOOLS), preset.name


def test_bad_values_show_an_error_and_start_nothing(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        set_field(panel, "bitrate", "fast")
        assert "bitrate must be" in panel.form.fields["bitrate"].widget.toolTip()  # live check
        click_start(qtbot, panel)
        assert panel.error_line.isVisible()
        assert "bitrate must be a rate" in panel.error_line.text()
        assert "Traceback" not in panel.error_line.text()
        assert window.bridge.runs == []
        assert window.run_tabs.tabs == []  # no run tab opened

        set_field(panel, "bitrate", "0")
        set_field(panel, "reverse", "true")
        set_field(panel, "bidir", "true")
        click_start(qtbot, panel)
        assert "reverse and bidir cannot be combined" in panel.error_line.text()
        assert window.bridge.runs == []


def test_user_presets_are_saved_and_come_back(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        set_field(panel, "streams", "4")
        set_field(panel, "duration", "20")
        panel.save_user_preset("four streams")
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        panel.select_tool("fio")
        index = panel.preset_combo.findData("four streams")
        assert index > 0
        assert panel.apply_preset("four streams")
        assert panel.current_tool().name == "iperf3"
        assert panel.form is not None
        assert panel.form.values()["streams"] == "4"
        assert panel.form.values()["duration"] == "20"
        assert panel.delete_user_preset("four streams")
        assert panel.preset_combo.findData("four streams") < 0


def test_last_choices_and_layout_persist(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    with open_window(qtbot, library_path, settings, size=(1200, 800)) as window:
        panel = window.run_panel
        panel.select_tool("fio")
        set_field(panel, "iodepth", "64")
    # Closing saved it all in the test's own settings file (offscreen, the restored size is
    # clamped to the small virtual screen, so only that a layout was stored is checked).
    assert Path(settings.fileName()).is_file()
    assert settings.value("window/geometry") is not None
    assert settings.value("window/state") is not None
    with open_window(qtbot, library_path, settings, size=(1200, 800)) as window:
        assert window.restoreState(settings.value("window/state"))
        panel = window.run_panel
        assert panel.current_tool().name == "fio"
        assert panel.form is not None and panel.form.values()["iodepth"] == "64"


def _refusal(cause: Exception) -> RunError:
    """The engine's refusal of a run, raised from ``cause`` as ``prepare`` raises it."""
    try:
        raise RunError(str(cause)) from cause
    except RunError as refusal:
        return refusal


def test_unknown_host_key_shows_the_fingerprint_and_accept_restarts(
    qtbot: QtBot, library_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_window(qtbot, library_path, settings) as window:
        panel: RunPanel = window.run_panel
        bridge = window.bridge
        started: list[tuple[RunSpec, bool]] = []
        real_start = bridge.start_run

        def start_run(
            pair: Any, spec: RunSpec, *, accept_new_host_key: bool = False, **kwargs: Any
        ) -> Any:
            started.append((spec, accept_new_host_key))
            handle = real_start(pair, spec, accept_new_host_key=accept_new_host_key, **kwargs)
            handle.cancel()  # nothing needs to run: only what the panel does matters here
            return handle

        monkeypatch.setattr(bridge, "start_run", start_run)
        set_field(panel, "duration", "1")
        click_start(qtbot, panel)
        controller = last_controller(panel)
        # A message that only reads like the refusal is not one: the panel decides from the
        # failure's type, never from its text.
        controller.signals.failed.emit(
            "host lab-client: unknown host key SHA256:q1w2e3r4t5y6u7i8o9p0; check it, then "
            "accept it (--accept-new-host-key on the command line)"
        )
        qtbot.waitUntil(panel.error_line.isVisible)
        assert not panel.host_key_box.isVisible()
        # What the engine raises when a host presents a key nobody accepted yet.
        controller.signals.refused.emit(
            _refusal(
                HostKeyUnknownError(
                    "lab-client", "SHA256:q1w2e3r4t5y6u7i8o9p0", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5"
                )
            )
        )
        controller.signals.failed.emit("refused")
        qtbot.waitUntil(panel.host_key_box.isVisible)
        assert "SHA256:q1w2e3r4t5y6u7i8o9p0" in panel.host_key_box.label.text()
        assert "lab-client" in panel.host_key_box.label.text()
        assert "--accept-new-host-key" not in panel.host_key_box.label.text()
        qtbot.mouseClick(panel.host_key_box.accept_button, Qt.MouseButton.LeftButton)
        assert [accept for _spec, accept in started] == [False, True]
        assert started[1][0] == started[0][0]
        assert not panel.host_key_box.isVisible()


def test_engine_errors_are_shown_without_traceback(
    qtbot: QtBot, library_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        real_start = window.bridge.start_run

        def start_run(pair: Any, spec: RunSpec, **kwargs: Any) -> Any:
            # A tool the engine does not know fails in prepare, like a missing program would.
            return real_start(pair, RunSpec(spec.pair, "no-such-tool", {}), **kwargs)

        monkeypatch.setattr(window.bridge, "start_run", start_run)
        click_start(qtbot, panel)
        qtbot.waitUntil(panel.error_line.isVisible, timeout=10_000)
        assert "could not start" in panel.error_line.text()
        assert "unknown tool 'no-such-tool'" in panel.error_line.text()
        assert "Traceback" not in panel.error_line.text()
        assert last_controller(panel).phase is RunPhase.FAILED
        assert window.run_tabs.tabs == []  # a run that never started gets no tab


# -- real runs on this computer ---------------------------------------------------------------


def test_local_iperf3_run_by_clicking_plots_live(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    require_program("iperf3")
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        assert panel.current_pair() is not None and panel.current_pair().name == "local"
        panel.select_tool("iperf3")
        set_field(panel, "duration", "3")
        click_start(qtbot, panel)
        controller = last_controller(panel)
        qtbot.waitUntil(lambda: window.run_tabs.tab_of(controller) is not None, timeout=15_000)
        tab = tab_of(window, controller)
        assert window.tabs.currentWidget() is tab

        def plotted() -> bool:
            buffer = tab.plots.buffer("sum", "throughput_bps")
            return buffer is not None and len(buffer) >= 1

        qtbot.waitUntil(plotted, timeout=10_000)
        assert controller.phase is RunPhase.RUNNING  # samples arrive while it runs
        qtbot.waitUntil(lambda: controller.phase is RunPhase.FINISHED, timeout=20_000)
        assert controller.run is not None and controller.run.status is RunStatus.COMPLETED
        buffer = tab.plots.buffer("sum", "throughput_bps")
        assert buffer is not None and len(buffer) == 3
        assert float(buffer.v.min()) > 0
        qtbot.waitUntil(lambda: ("sum", "throughput_bps") in tab.plots.plots["throughput"].curves)
        curve = tab.plots.plots["throughput"].curves[("sum", "throughput_bps")]
        # drawn, not only buffered
        qtbot.waitUntil(lambda: curve.item.xData is not None and len(curve.item.xData) == 3)
        assert tab.summary_box.isVisible()
        assert tab.raw.total > 3
        assert tab.tab_title.startswith("✓")
        with Library.open(library_path) as lib:
            stored = get_run(lib, controller.run.id)
        assert stored.status is RunStatus.COMPLETED
        assert stored.spec.params["duration"] == "3"
        # The library tab lists it.
        qtbot.waitUntil(lambda: window.runs_view.model.rowCount() == 1)


def test_cancel_a_longer_run_by_clicking(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    require_program("iperf3")
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        set_field(panel, "duration", "60")
        click_start(qtbot, panel)
        controller = last_controller(panel)
        qtbot.waitUntil(lambda: controller.records_received > 0, timeout=15_000)
        tab = tab_of(window, controller)
        assert tab.progress.cancel_button.isVisible()
        qtbot.mouseClick(tab.progress.cancel_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: controller.phase is RunPhase.FINISHED, timeout=15_000)
        assert controller.run is not None
        assert controller.run.status is RunStatus.CANCELLED
        run = controller.run
        assert run.duration is not None and run.duration < 60  # ended before its 60 s
        assert tab.tab_title.startswith("■")
        assert not tab.progress.cancel_button.isVisible()
        with Library.open(library_path) as lib:
            assert get_run(lib, controller.run.id).status is RunStatus.CANCELLED


def test_closing_a_running_tab_asks_and_cancels_the_run(
    qtbot: QtBot, library_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_program("iperf3")
    asked: list[str] = []

    def question(_parent: Any, title: str, *_args: Any) -> Any:
        asked.append(title)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        set_field(panel, "duration", "60")
        click_start(qtbot, panel)
        controller = last_controller(panel)
        qtbot.waitUntil(lambda: controller.records_received > 0, timeout=15_000)
        tab = tab_of(window, controller)
        window.tabs.tabCloseRequested.emit(window.tabs.indexOf(tab))  # its close button
        assert asked == ["Cancel the run?"]
        assert window.run_tabs.tab_of(controller) is None
        qtbot.waitUntil(lambda: controller.phase is RunPhase.FINISHED, timeout=15_000)
        assert controller.run is not None and controller.run.status is RunStatus.CANCELLED
        # The panel's Start works again for that pair.
        assert "busy" not in (panel.validate() if isinstance(panel.validate(), str) else "")


def test_a_second_run_on_a_busy_host_is_refused_with_its_holder(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    """The panel refuses a second run on the same pair; the engine refuses one on another
    pair that shares a host (here the same computer under another name), naming the run
    that holds it; the first run goes on undisturbed. (Two runs on pairs that share no host
    go at once: tests/integration/test_lab_window.py.)"""
    require_program("iperf3")
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        set_field(panel, "duration", "3")
        click_start(qtbot, panel)
        first = last_controller(panel)
        # The same pair is busy: a second run there is refused, with the reason.
        click_start(qtbot, panel)
        assert "busy" in panel.error_line.text()
        qtbot.waitUntil(lambda: first.phase is RunPhase.RUNNING, timeout=15_000)
        with Library.open(library_path) as lib:
            add_pair(lib, replace(LOCAL_PAIR, name="local-2", description="This computer, again"))
        panel.refresh_pairs()
        qtbot.waitUntil(lambda: panel.select_pair("local-2"), timeout=5_000)
        set_field(panel, "duration", "3")
        click_start(qtbot, panel)
        second = last_controller(panel)
        assert second is not first
        qtbot.waitUntil(lambda: second.phase is RunPhase.FAILED, timeout=15_000)
        assert second.error is not None
        assert "busy" in second.error and "iperf3 on pair local" in second.error
        qtbot.waitUntil(lambda: first.phase is RunPhase.FINISHED, timeout=30_000)
        assert first.run is not None and first.run.status is RunStatus.COMPLETED
        buffer = tab_of(window, first).plots.buffer("sum", "throughput_bps")
        assert buffer is not None and len(buffer) == 3


def test_closing_with_a_run_in_progress_asks_then_cancels(
    qtbot: QtBot, library_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_program("iperf3")
    asked: list[str] = []

    def question(_parent: Any, title: str, text: str, *_args: Any) -> Any:
        asked.append(text)
        return answer

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        set_field(panel, "duration", "60")
        click_start(qtbot, panel)
        controller = last_controller(panel)
        qtbot.waitUntil(lambda: controller.records_received > 0, timeout=15_000)

        answer = QMessageBox.StandardButton.No
        window.close()
        assert len(asked) == 1 and "1 run is still in progress" in asked[0]
        assert window.isVisible()  # "No": the window stays and the run goes on
        assert controller.active

        answer = QMessageBox.StandardButton.Yes
        window.close()
        assert len(asked) == 2
        assert not window.isVisible()
        assert window.bridge.active_runs() == []
        assert not window.bridge._thread.is_alive()  # the bridge was shut down
    with Library.open(library_path) as lib:
        runs = list_runs(lib)
    assert [run.status for run in runs] == [RunStatus.CANCELLED]


def test_screenshots_of_the_run_panel_and_a_live_run(
    qtbot: QtBot, library_path: Path, settings: QSettings
) -> None:
    """Saves test-output/run_panel.png and run_tab_live.png for a reviewer to look at."""
    require_program("iperf3")
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        assert panel.apply_preset("iperf3 TCP, 2 streams")
        set_field(panel, "duration", "8")
        save_png(window, "run_panel.png")
        click_start(qtbot, panel)
        controller = last_controller(panel)
        qtbot.waitUntil(lambda: window.run_tabs.tab_of(controller) is not None, timeout=15_000)
        tab = tab_of(window, controller)
        qtbot.waitUntil(
            lambda: (b := tab.plots.buffer("sum", "throughput_bps")) is not None and len(b) >= 4,
            timeout=15_000,
        )
        tab.raw.set_expanded(True)
        tab.plots.refresh(force=True)
        throughput = tab.plots.plots["throughput"]
        throughput.show_cursor(2.0, None)
        tab.plots._sync_cursor(throughput, 2.0)
        qtbot.wait(300)
        path = save_png(window, "run_tab_live.png")
        assert path.stat().st_size > 10_000
        qtbot.waitUntil(lambda: controller.phase is RunPhase.FINISHED, timeout=20_000)
        tab.raw.set_expanded(False)
        save_png(window, "run_tab_finished.png")


def test_fio_on_an_existing_file_needs_it_confirmed_in_the_form(
    qtbot: QtBot, library_path: Path, settings: QSettings, tmp_path: Path
) -> None:
    """As on the command line: the form's fio run on an existing file is refused by the
    host's check until confirm_destroy names the file; nothing is written or stored before."""
    require_program("fio")
    existing = tmp_path / "data.bin"
    existing.write_bytes(b"precious " * 1024)
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        panel.select_tool("fio")
        for name, value in (("rw", "write"), ("file", str(existing)), ("size", "1M")):
            set_field(panel, name, value)
        set_field(panel, "runtime", "1")
        click_start(qtbot, panel)
        refused = last_controller(panel)
        qtbot.waitUntil(lambda: refused.phase is RunPhase.FAILED, timeout=30_000)
        assert refused.error is not None and f"confirm_destroy={existing}" in refused.error
        assert existing.read_bytes() == b"precious " * 1024
        with Library.open(library_path) as lib:
            assert list_runs(lib) == []
        set_field(panel, "confirm_destroy", str(existing))
        click_start(qtbot, panel)
        confirmed = last_controller(panel)
        assert confirmed is not refused
        qtbot.waitUntil(lambda: confirmed.phase is RunPhase.FINISHED, timeout=60_000)
        assert confirmed.run is not None and confirmed.run.status is RunStatus.COMPLETED
        assert existing.read_bytes() != b"precious " * 1024
