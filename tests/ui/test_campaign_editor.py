"""The Campaigns tab's matrix editor: as the plan is edited, the preview (cells, runs,
duration from ``preview_plan``) or the plan's error in red, Start only for a plan without
error; plans saved and opened as the CLI's TOML files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from pairbench.library import Library
from pairbench.services.campaign_plan import plan_from_mapping, read_plan
from pairbench.services.campaign_plans import builtin_plans
from pairbench.services.campaigns import preview_plan
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.campaign.campaign_panel import CampaignPanel
from pairbench.ui.campaign.plan_editor import PlanEditor, preview_text

WAIT_MS = 20_000


@pytest.fixture
def panel(qtbot: QtBot, library: Library) -> Iterator[CampaignPanel]:
    bridge = EngineBridge(library.path)
    widget = CampaignPanel(bridge)
    qtbot.addWidget(widget)
    widget.resize(1280, 720)
    widget.show()
    try:
        # The library's pairs are listed (the built-in ``local`` pair at least).
        qtbot.waitUntil(lambda: widget.editor.form.pairs.list.count() > 0, timeout=WAIT_MS)
        yield widget
    finally:
        bridge.shutdown()


def fill(editor: PlanEditor, *, params: str, repeats: tuple[int, int] = (2, 2)) -> None:
    """A plan of one ping test on ``local``."""
    form = editor.form
    form.name_edit.setText("local ping")
    form.pairs.set_checked(["local"])
    box = form.tests.boxes[0]
    box.tool_combo.setCurrentText("ping")
    box.params_edit.setPlainText(params)
    form.min_spin.setValue(repeats[0])
    form.max_spin.setValue(repeats[1])


def checked(qtbot: QtBot, editor: PlanEditor) -> None:
    """Wait for the debounced check of the latest edit."""
    with qtbot.waitSignal(editor.previewed, timeout=WAIT_MS):
        pass
    while editor._debounce.isActive():  # a later edit is still to be checked
        with qtbot.waitSignal(editor.previewed, timeout=WAIT_MS):
            pass


def test_a_valid_plan_shows_its_cells_runs_and_duration(
    qtbot: QtBot, panel: CampaignPanel, library: Library
) -> None:
    editor = panel.editor
    fill(editor, params="count = 2, 3\ninterval = 0.2", repeats=(2, 5))
    checked(qtbot, editor)
    assert editor.error == "", editor.error
    assert editor.plan is not None and editor.start_button.isEnabled()
    expected = preview_plan(library, plan_from_mapping(editor.form.mapping()))
    assert len(expected.cells) == 2  # one pair × the two values of the count axis
    assert (expected.runs_min, expected.runs_max) == (2 * 2, 2 * 5)
    assert editor.preview_label.text().startswith(f"<b>{preview_text(expected)}")
    assert "2 cells on 1 pair · 4 to 10 runs" in editor.preview_label.text()
    assert editor.error_line.isHidden()


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        ("unknown pair", "unknown pair(s) nowhere"),
        ("empty axis", "'count' is an empty list"),
        ("filter removes everything", "removes every cell"),
        ("unknown parameter", "ping"),
        ("tag selecting nothing", "no pair has the tags zone=nowhere"),
    ],
)
def test_a_bad_plan_shows_its_error_and_cannot_start(
    qtbot: QtBot, panel: CampaignPanel, edit: str, words: str
) -> None:
    editor = panel.editor
    fill(editor, params="count = 2, 3\ninterval = 0.2")
    checked(qtbot, editor)
    assert editor.start_button.isEnabled()
    form = editor.form
    if edit == "unknown pair":
        form.pairs.set_checked(["local", "nowhere"])
    elif edit == "empty axis":
        form.tests.boxes[0].params_edit.setPlainText("count =\ninterval = 0.2")
    elif edit == "filter removes everything":
        form.filter_edit.setText("count > 100")
    elif edit == "unknown parameter":
        form.tests.boxes[0].params_edit.setPlainText("cuont = 2")
    else:
        form.pairs.by_tags.setChecked(True)
        form.pairs.tags_edit.setText("zone=nowhere")
    assert not editor.start_button.isEnabled()  # at once: the edit is not checked yet
    checked(qtbot, editor)
    assert words in editor.error, editor.error
    assert not editor.error_line.isHidden() and words in editor.error_line.text()
    assert "#8e0000" in editor.error_line.styleSheet()  # in red
    assert editor.preview_label.text() == ""
    assert not editor.start_button.isEnabled()


def test_a_plan_saved_and_opened_is_the_same_plan(
    qtbot: QtBot, panel: CampaignPanel, tmp_path: Path
) -> None:
    editor = panel.editor
    fill(editor, params="count = 2, 3\ninterval = 0.2\nsize = 56, 120", repeats=(2, 6))
    form = editor.form
    form.tests.boxes[0].zip_edit.setText("count, size")
    form.cv_spin.setValue(5.0)
    form.order_combo.setCurrentIndex(form.order_combo.findData("sequential"))
    form.seed_spin.setValue(1234)
    form.pause_spin.setValue(1.5)
    form.schedule_combo.setCurrentIndex(form.schedule_combo.findData("times"))
    form.times_edit.setText("20:30, 08:00")
    form.days_spin.setValue(3)
    form.outlier_combo.setCurrentIndex(form.outlier_combo.findData("iqr"))
    form.k_spin.setValue(2.0)
    form.retries_spin.setValue(2)
    form.skip_spin.setValue(5)
    form.filter_edit.setText("size > 60 or count == 2")
    second = form.tests.add_test(tool="ping")
    second.name_edit.setText("rtt max")
    second.params_edit.setPlainText("count = 3\ninterval = 0.2\nsize = 56")
    second.metric_edit.setText("rtt_max_ms")
    checked(qtbot, editor)
    assert editor.plan is not None, editor.error
    path = tmp_path / "plan.toml"
    assert editor.save_file(path)
    saved, _text = read_plan(path)
    assert saved == editor.plan
    assert saved.schedule.times == ("08:00", "20:30") and saved.tests[1].name == "rtt max"

    other = PlanEditor(panel.bridge)
    qtbot.addWidget(other)
    assert other.open_file(path)
    checked(qtbot, other)
    assert other.plan == saved
    assert plan_from_mapping(other.form.mapping()) == saved


def test_a_file_that_is_not_a_plan_says_why(panel: CampaignPanel, tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('name = "x"\npairs = ["local"]\nrepeets = 3\n[[tests]]\ntool = "ping"\n')
    assert not panel.editor.open_file(path)
    assert "unknown key 'repeets'" in panel.editor.error_line.text()


def test_saving_a_plan_with_an_error_writes_nothing(
    qtbot: QtBot, panel: CampaignPanel, tmp_path: Path
) -> None:
    editor = panel.editor
    fill(editor, params="count = 2\ninterval = 0.2")
    editor.form.tests.boxes[0].params_edit.setPlainText("count 2")
    path = tmp_path / "plan.toml"
    assert not editor.save_file(path)
    assert not path.exists()
    assert "line 1: write key = value" in editor.error_line.text()


def test_a_built_in_plan_loads_into_the_form_unchanged(panel: CampaignPanel) -> None:
    editor = panel.editor
    combo = editor.builtin_combo
    shipped = builtin_plans()
    assert combo.count() == len(shipped) + 1 and combo.isEnabled() == bool(shipped)
    for index, builtin in enumerate(shipped, start=1):
        editor._builtin_chosen(index)
        plan, _text = read_plan(builtin.path)
        assert editor.path == builtin.path
        assert plan_from_mapping(editor.form.mapping()) == plan, builtin.name
        assert combo.currentIndex() == 0  # the combo is a menu: back to its title


def test_a_storage_suite_test_is_built_in_the_form(
    qtbot: QtBot, panel: CampaignPanel, library: Library, tmp_path: Path
) -> None:
    """Choosing "a storage suite" makes the test fio with the suite's parameters; the preview
    counts a cell per suite, and a device target without its confirmation is refused."""
    editor = panel.editor
    fill(editor, params="count = 2\ninterval = 0.2", repeats=(1, 1))
    box = editor.form.tests.boxes[0]
    box.params_edit.setPlainText("")
    box.probe_combo.setCurrentIndex(box.probe_combo.findData("storage"))
    assert box.tool_combo.currentText() == "fio"
    assert "test = iops, latency, throughput" in box.params_edit.toPlainText()
    box.params_edit.setPlainText(
        f"test = iops, throughput\ntarget = {tmp_path}\nsize = 64MiB\nround_seconds = 10"
    )
    checked(qtbot, editor)
    assert editor.error == "", editor.error
    mapping = editor.form.mapping()
    assert mapping["tests"][0]["probe"] == "storage"  # type: ignore[index]
    expected = preview_plan(library, plan_from_mapping(mapping))
    assert [c.params["test"] for c in expected.cells] == ["iops", "throughput"]
    assert editor.preview_label.text().startswith(f"<b>{preview_text(expected)}")
    box.params_edit.setPlainText("test = iops\ntarget = /dev/nvme9n1")
    checked(qtbot, editor)
    assert "DESTROYS" in editor.error and not editor.start_button.isEnabled()
