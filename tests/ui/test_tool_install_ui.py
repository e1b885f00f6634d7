"""Installing a tool from the window: the hosts panel's "Install tool" action, and the run panel
offering it when a run is refused for a missing uperf; real builds on this computer, into a
HOME of the test's own."""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot
from run_kit import (
    click_start,
    isolated_settings,
    last_controller,
    open_window,
    save_png,
    set_field,
)

from pairbench.domain import LOCAL_HOST, RunStatus
from pairbench.lab import vendor
from pairbench.lab.vendor_archive import ArchiveError, obtain
from pairbench.library import Library
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.hosts.hosts_panel import HostsPanel
from pairbench.ui.run.controller import RunPhase
from testkit import require, require_program

BUILD_MS = 300_000
WAIT_MS = 10_000


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This computer's HOME for the test: its ~/.local/bin starts empty."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def _archive_at_hand(tool: vendor.VendorTool) -> None:
    """The pinned archive in the mirror or the download cache (nothing is downloaded)."""
    for program in ("gcc", "make", "tar"):
        require_program(program)
    try:
        obtain(dataclasses.replace(tool, url="http://127.0.0.1:9/offline"))
    except ArchiveError as exc:
        require(False, f"the pinned archive cannot be had: {exc}")


@pytest.fixture
def bridge(library: Library, library_path: Path) -> Iterator[EngineBridge]:
    engine = EngineBridge(library_path)
    try:
        yield engine
    finally:
        engine.shutdown()


def test_the_hosts_panel_builds_iperf3_321_on_the_chosen_host(
    qtbot: QtBot, bridge: EngineBridge, home: Path
) -> None:
    _archive_at_hand(vendor.IPERF3)
    panel = HostsPanel(bridge)
    qtbot.addWidget(panel)
    panel.resize(1200, 760)
    panel.show()
    qtbot.waitUntil(lambda: bool(panel.hosts), timeout=WAIT_MS)
    assert not panel.hosts_list.install_button.isEnabled()  # no host chosen yet
    panel.select_host(LOCAL_HOST.name)
    assert panel.hosts_list.install_button.isEnabled()
    menu = panel.hosts_list.install_button.menu()
    assert menu is not None
    labels = [action.text() for action in menu.actions()]
    assert labels == ["Install uperf on this host…", "Install iperf3 3.21 on this host…"]

    menu.actions()[1].trigger()
    dialog = panel.dialog
    assert dialog is not None and dialog.windowTitle() == "Install iperf3 3.21 on localhost"
    with qtbot.waitSignal(dialog.installed, timeout=BUILD_MS) as blocker:  # type: ignore[attr-defined]
        pass
    result = blocker.args[0]
    program = home / ".local" / "bin" / "iperf3"
    assert result.path == str(program) and not result.already
    version = subprocess.run([program, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("iperf 3.21")
    log = dialog.log.toPlainText()  # type: ignore[attr-defined]
    for step in ("uploading iperf-3.21.tar.gz", "configuring", "compiling", "installing"):
        assert step in log
    assert dialog.status.text().startswith(f"Installed {program} on localhost")  # type: ignore[attr-defined]
    assert panel.message.label.text().startswith(f"iperf3 on localhost: {program}")
    save_png(dialog, "tool-install-dialog.png")


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return isolated_settings(tmp_path)


def test_a_missing_uperf_is_offered_by_the_run_panel_and_the_pair_check(
    qtbot: QtBot, library_path: Path, settings: QSettings, home: Path
) -> None:
    """The run refused for a missing uperf offers the install; so does the pair check, whose
    button builds it and checks again; the run panel's button then starts the run again."""
    _archive_at_hand(vendor.UPERF)
    for program in ("autoreconf", "automake", "libtoolize"):
        require_program(program)
    require(
        subprocess.run(["sh", "-c", "command -v uperf"], capture_output=True).returncode != 0,
        "uperf is on this computer's PATH: the refusal cannot be shown",
    )
    with open_window(qtbot, library_path, settings) as window:
        panel = window.run_panel
        panel.select_tool("uperf")
        set_field(panel, "duration", "2")
        click_start(qtbot, panel)
        refused = last_controller(panel)
        qtbot.waitUntil(lambda: refused.phase is RunPhase.FAILED, timeout=WAIT_MS)
        assert panel.install_box.isVisible()
        assert panel.install_box.button.text() == "Install uperf on localhost"
        assert "uperf is not installed on localhost" in panel.install_box.label.text()
        assert not panel.error_line.isVisible()
        save_png(panel, "run-panel-install-offer.png")

        hosts = window.hosts_panel
        hosts.select_pair("local")
        with qtbot.waitSignal(hosts.checkFinished, timeout=60_000):
            hosts.check_pair("local")
        offers = [b.text() for b in hosts.check_view.install_buttons]
        assert offers and set(offers) == {"Install uperf on localhost"}
        assert any("uperf missing; install: install it with `pairbench hosts install-tool "
                   "localhost uperf`" in line for line in hosts.check_view.texts())  # fmt: skip
        with qtbot.waitSignal(hosts.checkFinished, timeout=BUILD_MS):  # the check after it
            qtbot.mouseClick(hosts.check_view.install_buttons[0], Qt.MouseButton.LeftButton)
        assert (home / ".local" / "bin" / "uperf").is_file()
        assert hosts.check_view.install_buttons == []
        assert any(
            line.startswith("uperf Uperf Version 1.0.8") for line in hosts.check_view.texts()
        )

        qtbot.mouseClick(panel.install_box.button, Qt.MouseButton.LeftButton)
        dialog = panel.install_dialog
        assert dialog is not None
        qtbot.waitUntil(lambda: dialog.install_result is not None or dialog.error is not None,
                        timeout=60_000)  # fmt: skip
        assert dialog.error is None and dialog.install_result is not None
        assert dialog.install_result.already
        assert not panel.install_box.isVisible()
        again = last_controller(panel)
        assert again is not refused  # started again by itself, with the same parameters
        qtbot.waitUntil(lambda: again.phase is RunPhase.FINISHED, timeout=60_000)
        assert again.run is not None and again.run.status is RunStatus.COMPLETED
        assert again.run.spec.params["duration"] == "2"
        assert again.run.tool_version.startswith("Uperf Version 1.0.8")
