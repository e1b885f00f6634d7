"""A job file's ``${VAR}``s in the run form: a line per variable appears as the file is read
or edited, the values typed become ``jobfile_env`` (the file that runs has them), a run
again fills them back, and a missing one is refused before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from pairbench.tools import fio
from pairbench.tools.base import Capabilities, CommandContext
from pairbench.ui.run.job_env_field import JobEnvField
from pairbench.ui.run.job_file_field import JobTextField
from pairbench.ui.run.param_form import ParamForm

TEXT = "[global]\nsize=${SIZE}\n[a]\nrw=${RW}\nbs=4k\n"


def _form(qtbot: QtBot) -> tuple[ParamForm, JobTextField, JobEnvField]:
    form = ParamForm(fio.PARAMS)
    qtbot.addWidget(form)
    texts, values = form.fields["jobfile_text"].widget, form.fields["jobfile_env"].widget
    assert isinstance(texts, JobTextField) and isinstance(values, JobEnvField)
    return form, texts, values


def test_a_line_per_variable_and_the_values_run(qtbot: QtBot, tmp_path: Path) -> None:
    form, texts, values = _form(qtbot)
    assert values.edits == {}
    path = tmp_path / "vars.fio"
    path.write_text(TEXT)
    assert texts.load(str(path))
    assert list(values.edits) == ["SIZE", "RW"]
    assert "variables: SIZE, RW" in texts.jobs_label.text()
    with pytest.raises(ValueError, match=r"uses \$\{SIZE\}: give its value"):
        fio.resolve(form.changed_values())  # what the run panel does before a run
    values.edits["SIZE"].setText("1m")
    values.edits["RW"].setText("randwrite")
    changed = form.changed_values()
    assert changed["jobfile_env"] == "RW=randwrite SIZE=1m"
    resolved = fio.resolve(changed)
    context = CommandContext("h", 0, "/tmp/pairbench.x")
    uploaded = fio.commands(resolved, Capabilities(""), context).files["vars.fio"]
    assert uploaded == "[global]\nsize=1m\n[a]\nrw=randwrite\nbs=4k\n"
    # editing the file: a variable gone loses its line, one kept keeps its value
    texts.set_text(TEXT.replace("${SIZE}", "2m"))
    assert list(values.edits) == ["RW"] and values.edits["RW"].text() == "randwrite"
    texts.set_text("")
    assert values.edits == {} and form.changed_values().get("jobfile_env", "") == ""


def test_run_again_fills_the_values_back(qtbot: QtBot) -> None:
    form, _texts, values = _form(qtbot)
    form.set_values({"jobfile": "v.fio", "jobfile_text": TEXT, "jobfile_env": "RW=read SIZE=4m"})
    assert {name: edit.text() for name, edit in values.edits.items()} == {
        "SIZE": "4m",
        "RW": "read",
    }
    assert fio.resolve(form.changed_values())["jobfile_env"] == "RW=read SIZE=4m"
