"""The pair dialog: client, server, data address, cloud placement tags, other tags."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QWidget

from pairbench.domain import Host, HostPair
from pairbench.domain.host_text import PAIR_TAG_FIELDS, tags_text
from pairbench.services.library import Library
from pairbench.services.pairs import PairForm, save_edited_pair, save_new_pair, split_pair_tags
from pairbench.ui.bridge import EngineBridge, EngineJob
from pairbench.ui.hosts.form_rows import NOTE_STYLE, SavingDialog, blank_to_none

_TAG_HINTS = {
    "cloud": "aws, gcp, azure, on-prem…",
    "region": "eu-west-1",
    "zone": "eu-west-1a",
    "type": "c6in.xlarge",
    "placement": "cluster placement group pg-1",
}


class PairDialog(SavingDialog):
    """Adds a pair, or edits one (its name stays). ``result_value`` is the HostPair once saved."""

    def __init__(
        self,
        bridge: EngineBridge,
        *,
        hosts: list[Host],
        pair: HostPair | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(bridge, f"Edit pair {pair.name}" if pair else "Add pair", parent)
        self.editing = pair
        self.setMinimumWidth(520)
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("e.g. aws-same-az")
        self.client_combo = QComboBox()
        self.server_combo = QComboBox()
        for host in hosts:
            text = "localhost (this computer)" if host.is_local else host.name
            self.client_combo.addItem(text, host.name)
            self.server_combo.addItem(text, host.name)
        self.data_edit = QLineEdit()
        self.data_edit.setPlaceholderText("the server's address")
        data_note = QLabel(
            "Where the client sends traffic, e.g. the server's private address on the data network."
        )
        data_note.setWordWrap(True)
        data_note.setStyleSheet(NOTE_STYLE)
        self.description_edit = QLineEdit()
        self.tag_edits: dict[str, QLineEdit] = {}
        self.tags_edit = QLineEdit()
        self.tags_edit.setPlaceholderText('kernel=6.1 mtu=9001 note="two words"')

        rows = self.rows
        rows.add("name", "Name", self.name_edit)
        rows.add("client", "Client (sends)", self.client_combo)
        rows.add("server", "Server (serves)", self.server_combo)
        rows.add("data_address", "Data address", self.data_edit, note=data_note)
        rows.add("description", "Description", self.description_edit)
        for key, label in PAIR_TAG_FIELDS:
            edit = QLineEdit()
            edit.setPlaceholderText(_TAG_HINTS.get(key, ""))
            self.tag_edits[key] = edit
            rows.add(f"tag:{key}", label, edit)
        rows.add("tags", "Other tags", self.tags_edit)
        self.finish_layout()
        if pair is not None:
            self._fill(pair)
        elif self.server_combo.count() > 1:
            self.server_combo.setCurrentIndex(1)

    def _fill(self, pair: HostPair) -> None:
        self.name_edit.setText(pair.name)
        self.name_edit.setEnabled(False)
        self.name_edit.setToolTip("A pair's name cannot change; add a new pair instead.")
        for combo, name in (
            (self.client_combo, pair.client.name),
            (self.server_combo, pair.server.name),
        ):
            index = combo.findData(name)
            combo.setCurrentIndex(max(index, 0))
        self.data_edit.setText(pair.data_address or "")
        self.description_edit.setText(pair.description)
        own, other = split_pair_tags(pair.tags)
        for key, edit in self.tag_edits.items():
            edit.setText(own.get(key, ""))
        self.tags_edit.setText(tags_text(other))

    def form(self) -> PairForm:
        """The form as typed (blank fields mean their defaults)."""
        return PairForm(
            name=self.name_edit.text().strip(),
            client=str(self.client_combo.currentData() or ""),
            server=str(self.server_combo.currentData() or ""),
            data_address=blank_to_none(self.data_edit.text()),
            description=self.description_edit.text().strip(),
            tags=self.tags_edit.text(),
            tag_fields={key: edit.text().strip() for key, edit in self.tag_edits.items()},
        )

    def make_job(self) -> EngineJob[Any]:
        form = self.form()
        editing = self.editing

        async def job(lib: Library) -> HostPair:
            if editing is None:
                return save_new_pair(lib, form)
            return save_edited_pair(lib, editing.name, form)

        return job
