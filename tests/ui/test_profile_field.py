"""The uperf run form's profile field: a profile read from this computer, its groups,
transactions and flowops listed before the run, the run parameters it gives; a profile
Pairbench will not run refused with its reason."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from pairbench.tools import uperf
from pairbench.ui.run.param_form import ParamForm
from pairbench.ui.run.profile_file_field import ProfileTextField

PROFILE = """<?xml version="1.0"?>
<profile name="open-close">
  <group nthreads="$nthr">
    <transaction iterations="$iter">
      <flowop type="connect" options="remotehost=$h protocol=tcp"/>
      <flowop type="disconnect"/>
    </transaction>
  </group>
</profile>
"""


def test_the_run_form_reads_a_profile_and_lists_it(qtbot: QtBot, tmp_path: Path) -> None:
    form = ParamForm(uperf.PARAMS)
    qtbot.addWidget(form)
    field = form.fields["profile_xml"].widget
    assert isinstance(field, ProfileTextField)
    assert field.open_button.text() == "Profile file…"
    path = tmp_path / "open close.xml"
    path.write_text(PROFILE)
    with qtbot.waitSignal(form.changed, timeout=1_000):
        assert field.load(str(path))
    assert field.jobs_label.text().splitlines() == [
        "profile open-close: 1 group(s)",
        "  group 1: nthreads=$nthr",
        "    txn1 iterations=$iter: connect, disconnect",
    ]
    form.fields["profile_vars"].set_value("iter=20")
    form.fields["threads"].set_value("2")
    values = form.changed_values()
    assert values == {
        "profile_file": "open_close.xml",
        "profile_xml": PROFILE,
        "profile_vars": "iter=20",
        "threads": "2",
    }
    assert form.errors() == {}
    assert uperf.resolve(values)["profile_file"] == "open_close.xml"
    # a profile Pairbench will not run: refused with its reason, nothing loaded
    bad = tmp_path / "bad.xml"
    bad.write_text(PROFILE.replace("remotehost=$h", "remotehost=10.0.0.9"))
    assert not field.load(str(bad))
    assert "remotehost=10.0.0.9" in field.jobs_label.text()
    assert form.values()["profile_xml"] == PROFILE
    # text typed in: checked live; the form reports the error before a run starts
    field.edit.setPlainText(PROFILE.replace("disconnect", "wait"))
    assert "type='wait'" in form.errors()["profile_xml"]
    field.clear_button.click()
    assert form.changed_values() == {"profile_vars": "iter=20", "threads": "2"}
