"""A form generated from a tool's parameters: spin boxes, check boxes, choices, checked text.

Every value is checked by the parameter's own ``Param.check`` (the same code the CLI's
``--set`` goes through), live as the user types and again before a run starts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from pairbench.tools.params import Param
from pairbench.ui.focus_order import tab_stops
from pairbench.ui.run.form_origins import Origin
from pairbench.ui.run.job_env_field import JobEnvField
from pairbench.ui.run.job_file_field import JobTextField
from pairbench.ui.run.profile_file_field import ProfileTextField
from pairbench.ui.run.text_file_field import TextFileField

INT_MAX = 2**31 - 1
_ERROR_STYLE = "QLineEdit { border: 1px solid #c62828; background: #fff3f3; }"
TAG_WIDTH = 40  # px: "preset" / "yours" beside a field
TAG_STYLE = "color: #1565c0; font-size: 10px;"


# The parameter kinds shown as a file's text with a button that reads one, and the parameter
# that gets the name of a file read (its text's parameter → its name's).
_FILE_FIELDS: dict[str, Callable[[], TextFileField]] = {
    "jobtext": JobTextField,
    "profiletext": ProfileTextField,
}
_FILE_NAMES = (("jobfile_text", "jobfile"), ("profile_xml", "profile_file"))


def _is_spin(param: Param) -> bool:
    return param.kind == "int" and param.default.isdigit()


class ParamField:
    """One parameter's widget, read and written as the parameter's string form."""

    def __init__(self, param: Param, on_change: Callable[[], None]) -> None:
        self.param = param
        self.widget: QWidget
        choices = getattr(param, "choices", None)
        if param.kind == "bool":
            box = QCheckBox()
            box.setChecked(param.default == "true")
            box.toggled.connect(lambda _on: on_change())
            self.widget = box
        elif choices:
            combo = QComboBox()
            combo.addItems(list(choices))
            combo.setCurrentText(param.default)
            combo.currentTextChanged.connect(lambda _text: on_change())
            self.widget = combo
        elif param.kind in _FILE_FIELDS:  # fio's job file, a uperf profile: text and button
            text_field = _FILE_FIELDS[param.kind]()
            text_field.changed.connect(on_change)
            self.widget = text_field
        elif param.kind == "jobenv":  # the values of a job file's ${VAR}s: a line each
            env_field = JobEnvField()
            env_field.changed.connect(on_change)
            self.widget = env_field
        elif _is_spin(param):
            spin = QSpinBox()
            spin.setRange(
                param.minimum if param.minimum is not None else 0,
                param.maximum if param.maximum is not None else INT_MAX,
            )
            spin.setValue(int(param.default))
            spin.setAccelerated(True)
            spin.valueChanged.connect(lambda _value: on_change())
            self.widget = spin
        else:
            edit = QLineEdit(param.default)
            edit.setPlaceholderText(param.default or "(not set)")
            edit.textChanged.connect(lambda _text: self._validate_live())
            edit.textChanged.connect(lambda _text: on_change())
            self.widget = edit
        self.widget.setObjectName(f"param_{param.name}")
        self.widget.setToolTip(param.help)
        # Where a value beyond the default came from ("preset", "yours"); empty at default.
        self.tag = QLabel()
        self.tag.setObjectName(f"origin_{param.name}")
        self.tag.setFixedWidth(TAG_WIDTH)
        self.tag.setStyleSheet(TAG_STYLE)

    def focusable(self) -> list[QWidget]:
        """The widgets Tab stops at, in order (a job file field has several)."""
        return tab_stops(self.widget)

    def show_origin(self, origin: Origin | None, preset: str) -> None:
        """Tag the field with where its value came from (nothing at its default)."""
        if origin is Origin.PRESET:
            self.tag.setText("preset")
            self.tag.setToolTip(f"Set by the preset {preset!r}" if preset else "Set by a preset")
        elif origin is Origin.USER:
            self.tag.setText("yours")
            self.tag.setToolTip("Set by you (kept while it applies to the tool and its mode)")
        else:
            self.tag.setText("")
            self.tag.setToolTip("")

    def value(self) -> str:
        """The value as typed (a string, as ``--set`` would give it)."""
        widget = self.widget
        if isinstance(widget, QCheckBox):
            return "true" if widget.isChecked() else "false"
        if isinstance(widget, QComboBox):
            return widget.currentText()
        if isinstance(widget, QSpinBox):
            return str(widget.value())
        if isinstance(widget, TextFileField | JobEnvField):
            return widget.text()
        assert isinstance(widget, QLineEdit)
        return widget.text().strip()

    def set_value(self, raw: str) -> None:
        """Show ``raw`` (a value the user may still have to correct for text fields)."""
        widget = self.widget
        if isinstance(widget, QCheckBox):
            widget.setChecked(raw.strip().lower() in ("1", "true", "yes", "on"))
        elif isinstance(widget, QComboBox):
            index = widget.findText(raw.strip())
            if index >= 0:
                widget.setCurrentIndex(index)
        elif isinstance(widget, QSpinBox):
            text = raw.strip()
            if text.isdigit():
                widget.setValue(int(text))
        elif isinstance(widget, TextFileField | JobEnvField):
            widget.set_text(raw)
        else:
            assert isinstance(widget, QLineEdit)
            widget.setText(raw)

    def error(self) -> str | None:
        """What is wrong with the current value, or None (a default is never checked: as with
        ``--set``, only given values are, and some defaults mean "not given")."""
        if self.value() == self.param.default:
            return None
        try:
            self.param.check(self.value())
        except ValueError as exc:
            return str(exc)
        return None

    def _validate_live(self) -> None:
        error = self.error()
        self.widget.setStyleSheet(_ERROR_STYLE if error else "")
        self.widget.setToolTip(error or self.param.help)


class ParamForm(QWidget):
    """The parameters of one tool as a form."""

    changed = Signal()  # a value changed, by the user or the program
    edited = Signal(str)  # the user changed this parameter's value

    def __init__(self, params: Mapping[str, Param], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fields: dict[str, ParamField] = {}
        self._filling = 0  # > 0 while the program sets values (not the user's edits)
        layout = QFormLayout()
        layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        layout.setContentsMargins(0, 0, 0, 0)
        for name, param in params.items():
            field = ParamField(param, functools.partial(self._field_changed, name))
            self.fields[name] = field
            hint = QLabel(param.help)
            hint.setWordWrap(True)
            hint.setStyleSheet("color: #666; font-size: 11px;")
            line = QHBoxLayout()
            line.setSpacing(4)
            line.addWidget(field.widget, 1)
            line.addWidget(field.tag)
            column = QVBoxLayout()
            column.setSpacing(1)
            column.addLayout(line)
            column.addWidget(hint)
            label = QLabel(name)
            label.setToolTip(param.help)
            layout.addRow(label, column)
        for text_param, name_param in _FILE_NAMES:
            text_field, name_field = self.fields.get(text_param), self.fields.get(name_param)
            if text_field and name_field and isinstance(text_field.widget, TextFileField):
                text_field.widget.chosen.connect(name_field.set_value)  # a file read: its name
        self._variables_follow_the_job_file()
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addLayout(layout)

    def _variables_follow_the_job_file(self) -> None:
        """The ``jobfile_env`` field shows a line per variable the job file text uses."""
        text_field, env_field = self.fields.get("jobfile_text"), self.fields.get("jobfile_env")
        if text_field is None or env_field is None:
            return
        texts, values = text_field.widget, env_field.widget
        if isinstance(texts, JobTextField) and isinstance(values, JobEnvField):
            texts.changed.connect(lambda: values.set_variables(texts.variables()))

    def values(self) -> dict[str, str]:
        """Every parameter's current value."""
        return {name: field.value() for name, field in self.fields.items()}

    def changed_values(self) -> dict[str, str]:
        """The values that differ from the defaults (what a preset or a spec needs)."""
        return {
            name: value
            for name, value in self.values().items()
            if value != self.fields[name].param.default
        }

    def _field_changed(self, name: str) -> None:
        self.changed.emit()
        if not self._filling:
            self.edited.emit(name)

    def reset(self) -> None:
        """Every field back to its default."""
        self._filling += 1
        try:
            for field in self.fields.values():
                field.set_value(field.param.default)
        finally:
            self._filling -= 1

    def set_values(self, values: Mapping[str, str], *, reset: bool = True) -> list[str]:
        """Fill in ``values`` (after a reset to the defaults); returns the unknown names.
        Not an edit of the user's (``edited`` is not emitted)."""
        self._filling += 1
        try:
            if reset:
                self.reset()
            unknown = []
            for name, raw in values.items():
                field = self.fields.get(name)
                if field is None:
                    unknown.append(name)
                else:
                    field.set_value(raw)
        finally:
            self._filling -= 1
        return unknown

    def show_origins(self, origins: Mapping[str, Origin], preset: str = "") -> None:
        """Tag each field with where its value came from (``preset``: the preset's name)."""
        changed = self.changed_values()
        for name, field in self.fields.items():
            field.show_origin(origins.get(name) if name in changed else None, preset)

    def focus_chain(self) -> list[QWidget]:
        """The form's widgets in the order Tab visits them: the parameters' order."""
        return [w for field in self.fields.values() for w in field.focusable()]

    def errors(self) -> dict[str, str]:
        """Parameter name → what is wrong with its value, for every invalid field."""
        found = {}
        for name, field in self.fields.items():
            error = field.error()
            if error:
                found[name] = error
        return found
