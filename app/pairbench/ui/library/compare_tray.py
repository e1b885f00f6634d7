"""The Library tab's comparison tray: runs pinned for a comparison, from this computer's list
and from the team library's, shown in a small bar above the list (what is pinned, Compare,
Remove, Clear); it outlives a Refresh and a source switch."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QToolButton,
    QWidget,
)

from pairbench.domain import Run
from pairbench.services.compare_refs import RunRef, TeamRef, team_compare_id

TEAM_IDS_NOTE = "A team run is #-N in a comparison (N: its ID in the Team list)."
SPELLED_OUT = 6  # more pinned runs than this: a count, each run in the tooltip
TRAY_STYLE = (
    "#compareTray { background: palette(alternate-base); border: 1px solid palette(mid); "
    "border-radius: 4px; }"
)


@dataclass(frozen=True, slots=True)
class Pinned:
    """A run kept for a comparison: this computer's (``ref`` its id) or the team library's
    (``ref`` a ``TeamRef`` with the run as listed and who ran it)."""

    ref: RunRef
    run: Run

    @property
    def team(self) -> bool:
        return isinstance(self.ref, TeamRef)

    @property
    def key(self) -> str:
        """Which run this is, whatever the list it was picked in showed."""
        ref = self.ref
        return f"team:{ref.uuid.lower()}" if isinstance(ref, TeamRef) else f"local:{ref}"

    @property
    def name(self) -> str:
        """The run's name in a comparison: ``#12`` here, ``#-N`` for a team run."""
        return f"#{team_compare_id(self.run.id) if self.team else self.run.id}"

    @property
    def ran_by(self) -> str:
        ref = self.ref
        return ref.published.ran_by if isinstance(ref, TeamRef) and ref.published else ""

    def describe(self) -> str:
        """One line: name, label, tool on pair, and where it comes from."""
        label = f" {self.run.label}" if self.run.label else ""
        what = f"{self.run.spec.tool} on {self.run.spec.pair}"
        ref = self.ref
        if isinstance(ref, TeamRef):
            origin = f", on {ref.published.origin}" if ref.published else ""
            return f"{self.name}{label} ({what}; team run of {self.ran_by or '?'}{origin})"
        return f"{self.name}{label} ({what}; this computer)"


def summary_text(pins: list[Pinned]) -> str:
    """What the tray shows: each run by source (team runs by who ran them), or counts when
    there are many."""
    here = [p for p in pins if not p.team]
    team = [p for p in pins if p.team]
    people = list(dict.fromkeys(p.ran_by or "?" for p in team))
    if len(pins) > SPELLED_OUT:
        parts = [f"{len(here)} of this computer"] if here else []
        if team:
            parts.append(f"{len(team)} of the team ({', '.join(people)})")
        return f"Comparing {len(pins)} runs: {' · '.join(parts)}"
    parts = [f"{', '.join(p.name for p in here)} (this computer)"] if here else []
    for who in people:
        names = ", ".join(p.name for p in team if (p.ran_by or "?") == who)
        parts.append(f"{names} (team, {who})")
    return f"Comparing: {' · '.join(parts)}"


class CompareTray(QFrame):
    """The pinned runs, in the order pinned; hidden while empty. ``changed`` after each
    change; ``compareClicked`` when its Compare is pressed."""

    changed = Signal()
    compareClicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareTray")
        self.setStyleSheet(TRAY_STYLE)
        self._pins: list[Pinned] = []
        self.label = QLabel()
        self.label.setObjectName("compareTrayLabel")
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip(
            "Compare the pinned runs and the runs selected now (each run once)"
        )
        self.remove_button = QToolButton()
        self.remove_button.setText("Remove")
        self.remove_button.setToolTip("Take one run off the comparison")
        self.remove_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.remove_menu = QMenu(self.remove_button)
        self.remove_button.setMenu(self.remove_menu)
        self.clear_button = QPushButton("Clear")
        self.clear_button.setToolTip("Take every run off the comparison")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.addWidget(self.label, 1)
        for widget in (self.compare_button, self.remove_button, self.clear_button):
            layout.addWidget(widget)
        self.compare_button.clicked.connect(self.compareClicked)
        self.clear_button.clicked.connect(self.clear)
        self._update()

    def pins(self) -> list[Pinned]:
        """The pinned runs, in the order pinned."""
        return list(self._pins)

    def refs(self) -> list[RunRef]:
        return [p.ref for p in self._pins]

    def keys(self) -> set[str]:
        return {p.key for p in self._pins}

    def add(self, pins: list[Pinned]) -> list[Pinned]:
        """Pin these runs (a run pinned already stays where it is); the ones added."""
        keys = self.keys()
        added = []
        for pin in pins:
            if pin.key not in keys:
                keys.add(pin.key)
                added.append(pin)
        if added:
            self._pins += added
            self._update()
        return added

    def remove(self, keys: set[str]) -> list[Pinned]:
        """Unpin the runs of these keys; the ones removed."""
        gone = [p for p in self._pins if p.key in keys]
        if gone:
            self._pins = [p for p in self._pins if p.key not in keys]
            self._update()
        return gone

    def remove_local(self, run_ids: list[int]) -> list[Pinned]:
        """Unpin these runs of this computer (deleted)."""
        return self.remove({f"local:{i}" for i in run_ids})

    def clear(self) -> None:
        if self._pins:
            self._pins = []
            self._update()

    def _update(self) -> None:
        pins = self._pins
        self.setVisible(bool(pins))
        self.label.setText(summary_text(pins) if pins else "")
        lines = [p.describe() for p in pins]
        if any(p.team for p in pins):
            lines.append(TEAM_IDS_NOTE)
        self.label.setToolTip("\n".join(lines))
        self.remove_menu.clear()
        for pin in pins:
            action = self.remove_menu.addAction(pin.describe())
            action.triggered.connect(lambda _checked=False, key=pin.key: self.remove({key}))
        self.changed.emit()
