"""A visible keyboard focus: a 2-px ring in the highlight blue around the focused button,
check box (its box), list, spin box or text field, over whatever style the desktop gives.

Fusion and most desktop styles mark focus with a faint outline, and nothing at all on a
check box without text (the run form's are such boxes): with the keyboard alone one could not
tell where a Space would land.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QApplication,
    QProxyStyle,
    QStyle,
    QStyleOption,
    QStyleOptionComplex,
    QWidget,
)

FOCUS_COLOR = QColor("#1a73e8")
RING_WIDTH = 2

_CONTROLS = {
    QStyle.ControlElement.CE_PushButton,
    QStyle.ControlElement.CE_CheckBox,
    QStyle.ControlElement.CE_RadioButton,
}
_COMPLEX = {
    QStyle.ComplexControl.CC_ComboBox,
    QStyle.ComplexControl.CC_SpinBox,
    QStyle.ComplexControl.CC_ToolButton,
    QStyle.ComplexControl.CC_Slider,
}
_PRIMITIVES = {QStyle.PrimitiveElement.PE_PanelLineEdit}
_INDICATOR = {
    QStyle.ControlElement.CE_CheckBox: QStyle.SubElement.SE_CheckBoxIndicator,
    QStyle.ControlElement.CE_RadioButton: QStyle.SubElement.SE_RadioButtonIndicator,
}


class FocusStyle(QProxyStyle):
    """The desktop's style, with a focus ring that can be seen."""

    def drawControl(
        self,
        element: QStyle.ControlElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawControl(element, option, painter, widget)
        if element in _CONTROLS and _focused(option):
            rect = option.rect
            indicator = _INDICATOR.get(element)
            if indicator is not None and widget is not None:
                rect = self.subElementRect(indicator, option, widget).adjusted(-2, -2, 2, 2)
            _ring(painter, rect)

    def drawComplexControl(
        self,
        control: QStyle.ComplexControl,
        option: QStyleOptionComplex,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawComplexControl(control, option, painter, widget)
        if control in _COMPLEX and _focused(option):
            _ring(painter, option.rect)

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawPrimitive(element, option, painter, widget)
        if element in _PRIMITIVES and _focused(option):
            _ring(painter, option.rect)


def _focused(option: QStyleOption) -> bool:
    return bool(option.state & QStyle.StateFlag.State_HasFocus)


def _ring(painter: QPainter, rect: QRect) -> None:
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(QPen(FOCUS_COLOR, RING_WIDTH))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    half = RING_WIDTH // 2
    painter.drawRoundedRect(rect.adjusted(half, half, -half, -half), 3, 3)
    painter.restore()


def install_focus_style(app: QApplication) -> FocusStyle:
    """Wrap the application's style (once) so focus shows; the style in use."""
    current = app.style()
    if isinstance(current, FocusStyle):
        return current
    style = FocusStyle(current.name())
    app.setStyle(style)
    return style
