"""A second y axis on the right of a live plot, for metrics that must not share the main one.

Lost datagrams are tens where the datagrams sent are thousands: on one axis the losses lie
flat on zero. ``RightAxis`` gives them a view box of their own, x-linked to the plot's, under
it (the pointer keeps zooming and panning the main box), with the plot's right axis showing
its own scale and name ("lost (count)").
"""

from __future__ import annotations

import pyqtgraph as pg

from pairbench.domain.units import Scale, scale_for


class RightAxis:
    """The view box and axis of a plot's secondary metrics; ``scale`` follows their values."""

    def __init__(self, plot_item: pg.PlotItem, view_box: pg.ViewBox, unit: str, label: str):
        self.unit = unit
        self.label = label
        self.main = view_box
        self.box = pg.ViewBox(enableMenu=False)
        self.box.setMouseEnabled(x=False, y=False)
        self.box.disableAutoRange()
        self.box.setZValue(-1)  # under the main box: the pointer zooms and pans the main one
        plot_item.showAxis("right")
        self.axis: pg.AxisItem = plot_item.getAxis("right")
        self.axis.setPen(pg.mkPen("#444"))
        self.axis.setTextPen(pg.mkPen("#222"))
        self.axis.enableAutoSIPrefix(False)
        self.axis.setWidth(52)
        plot_item.scene().addItem(self.box)
        self.axis.linkToView(self.box)
        self.box.setXLink(view_box)
        view_box.sigResized.connect(self._follow_main)
        self._follow_main()
        self.scale: Scale = scale_for(unit, 0.0)
        self._apply(self.scale)

    def _follow_main(self) -> None:
        self.box.setGeometry(self.main.sceneBoundingRect())
        self.box.linkedViewChanged(self.main, self.box.XAxis)

    def rescale(self, max_abs: float) -> None:
        """The axis in the scale of values up to ``max_abs``."""
        scale = scale_for(self.unit, max_abs)
        if scale != self.scale:
            self._apply(scale)

    def _apply(self, scale: Scale) -> None:
        self.scale = scale
        self.axis.setScale(scale.factor)
        self.axis.setLabel(text=f"{self.label} ({scale.unit})" if scale.unit else self.label)
