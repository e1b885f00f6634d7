"""The hosts and pairs panel, driven like a user would (pytest-qt, offscreen, real bridge)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest
import shiboken6
from keyring.backend import KeyringBackend
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QInputDialog, QMessageBox
from pytestqt.qtbot import QtBot

from pairbench.domain import AuthMethod
from pairbench.domain.host_text import key_fingerprint
from pairbench.library import Library
from pairbench.library.hosts import get_host, get_pair, list_hosts, list_pairs, pinned_host_keys
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.hosts.host_dialog import HostDialog
from pairbench.ui.hosts.hosts_panel import HostsPanel
from pairbench.ui.hosts.pair_dialog import PairDialog
from pairbench.ui.hosts.ssh_import_dialog import SshImportDialog
from testkit import REPO, require_program

WAIT_MS = 10_000


@pytest.fixture
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME in tmp_path (empty known_hosts, no ~/.ssh/config) and no ssh-agent."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    return home


@pytest.fixture
def bridge(library: Library, library_path: Path) -> Iterator[EngineBridge]:
    """The real engine thread on the test's library file."""
    engine = EngineBridge(library_path)
    try:
        yield engine
    finally:
        engine.shutdown()


@pytest.fixture
def panel(qtbot: QtBot, bridge: EngineBridge, isolated_home: Path) -> HostsPanel:
    view = HostsPanel(bridge)
    qtbot.addWidget(view)
    view.resize(1200, 760)
    view.show()
    qtbot.waitUntil(lambda: bool(view.pairs) and view.keyring is not None, timeout=WAIT_MS)
    return view


def _closed(dialog: QDialog) -> bool:
    """The dialog was closed (and maybe already deleted)."""
    return not shiboken6.isValid(dialog) or not dialog.isVisible()


def _table_texts(table) -> list[list[str]]:  # type: ignore[no-untyped-def]
    return [
        [table.item(row, col).text() for col in range(table.columnCount())]
        for row in range(table.rowCount())
    ]


def _open_host_dialog(qtbot: QtBot, panel: HostsPanel) -> HostDialog:
    qtbot.mouseClick(panel.hosts_list.add_button, Qt.MouseButton.LeftButton)
    dialog = panel.dialog
    assert isinstance(dialog, HostDialog) and dialog.isVisible()
    return dialog


def _save(qtbot: QtBot, dialog: HostDialog | PairDialog) -> None:
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)


def _add_host(
    qtbot: QtBot, panel: HostsPanel, name: str, address: str, **fields: str
) -> HostDialog:
    dialog = _open_host_dialog(qtbot, panel)
    qtbot.keyClicks(dialog.name_edit, name)
    qtbot.keyClicks(dialog.address_edit, address)
    for attribute, text in fields.items():
        qtbot.keyClicks(getattr(dialog, attribute), text)
    _save(qtbot, dialog)
    return dialog


def test_add_host_and_pair_through_the_dialogs(
    qtbot: QtBot, panel: HostsPanel, library: Library
) -> None:
    dialog = _add_host(
        qtbot,
        panel,
        "client-1",
        "10.0.0.5",
        port_edit="2222",
        user_edit="bench",
        tags_edit='role=client note="two words"',
    )
    qtbot.waitUntil(lambda: _closed(dialog), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: any(h.name == "client-1" for h in panel.hosts), timeout=WAIT_MS)
    rows = _table_texts(panel.hosts_list.table)
    assert [
        "client-1",
        "10.0.0.5",
        "2222",
        "bench",
        "ssh-agent",
        "",
        "note=two words role=client",
    ] in rows
    assert "Added host client-1." in panel.message.text()
    host = get_host(library, "client-1")  # in the library file, through another connection
    assert (host.address, host.port, host.user, host.auth) == (
        "10.0.0.5",
        2222,
        "bench",
        AuthMethod.AGENT,
    )
    assert dict(host.tags) == {"role": "client", "note": "two words"}

    qtbot.mouseClick(panel.pairs_list.add_button, Qt.MouseButton.LeftButton)
    pair_dialog = panel.dialog
    assert isinstance(pair_dialog, PairDialog)
    qtbot.keyClicks(pair_dialog.name_edit, "lab-pair")
    pair_dialog.client_combo.setCurrentIndex(pair_dialog.client_combo.findData("localhost"))
    pair_dialog.server_combo.setCurrentIndex(pair_dialog.server_combo.findData("client-1"))
    qtbot.keyClicks(pair_dialog.data_edit, "10.1.0.5")
    qtbot.keyClicks(pair_dialog.description_edit, "same zone")
    qtbot.keyClicks(pair_dialog.tag_edits["cloud"], "aws")
    qtbot.keyClicks(pair_dialog.tag_edits["region"], "eu-west-1")
    qtbot.keyClicks(pair_dialog.tag_edits["type"], "c6in.xlarge")
    qtbot.keyClicks(pair_dialog.tags_edit, "mtu=9001")
    _save(qtbot, pair_dialog)
    qtbot.waitUntil(lambda: any(p.name == "lab-pair" for p in panel.pairs), timeout=WAIT_MS)
    assert _closed(pair_dialog)
    assert panel.selected_pair() == "lab-pair"
    rows = _table_texts(panel.pairs_list.table)
    assert [
        "lab-pair",
        "localhost → client-1",
        "10.1.0.5",
        "cloud=aws mtu=9001 region=eu-west-1 type=c6in.xlarge",
        "same zone",
    ] in rows
    pair = get_pair(library, "lab-pair")
    assert (pair.client.name, pair.server.name, pair.data_address) == (
        "localhost",
        "client-1",
        "10.1.0.5",
    )
    assert dict(pair.tags) == {
        "cloud": "aws",
        "region": "eu-west-1",
        "type": "c6in.xlarge",
        "mtu": "9001",
    }

    # Editing keeps the name and shows the dedicated tag fields filled in.
    panel.select_pair("lab-pair")
    edit = panel.edit_pair()
    assert isinstance(edit, PairDialog)
    assert not edit.name_edit.isEnabled()
    assert edit.tag_edits["zone"].text() == "" and edit.tag_edits["cloud"].text() == "aws"
    assert edit.tags_edit.text() == "mtu=9001"
    qtbot.keyClicks(edit.tag_edits["zone"], "eu-west-1a")
    _save(qtbot, edit)
    qtbot.waitUntil(lambda: _closed(edit), timeout=WAIT_MS)
    assert get_pair(library, "lab-pair").tags["zone"] == "eu-west-1a"


def test_a_hostile_name_is_refused_inline_and_nothing_is_written(
    qtbot: QtBot, panel: HostsPanel, library: Library
) -> None:
    dialog = _add_host(qtbot, panel, "evil;rm -rf ~", "$(reboot)", port_edit="70000")
    qtbot.waitUntil(lambda: "name" in dialog.field_errors(), timeout=WAIT_MS)
    errors = dialog.field_errors()
    assert "invalid host name 'evil;rm -rf ~'" in errors["name"]
    assert "invalid address '$(reboot)'" in errors["address"]
    assert "invalid port 70000" in errors["port"]
    assert dialog.isVisible() and dialog.save_button.isEnabled()
    assert [h.name for h in list_hosts(library)] == ["localhost"]
    assert "Traceback" not in " ".join(errors.values())

    # Fixing the fields and saving again works from the same dialog.
    dialog.name_edit.clear()
    qtbot.keyClicks(dialog.name_edit, "web-1")
    dialog.address_edit.clear()
    qtbot.keyClicks(dialog.address_edit, "web-1.example.com")
    dialog.port_edit.clear()
    _save(qtbot, dialog)
    qtbot.waitUntil(lambda: _closed(dialog), timeout=WAIT_MS)
    assert get_host(library, "web-1").port == 22


def test_key_file_and_jump_rules_are_the_clis(
    qtbot: QtBot, panel: HostsPanel, library: Library, tmp_path: Path
) -> None:
    dialog = _open_host_dialog(qtbot, panel)
    qtbot.keyClicks(dialog.name_edit, "bastion")
    qtbot.keyClicks(dialog.address_edit, "192.0.2.1")
    dialog.auth_combo.setCurrentIndex(dialog.auth_combo.findData(AuthMethod.KEY))
    assert dialog.key_edit.isVisibleTo(dialog) and not dialog.password_edit.isVisibleTo(dialog)
    qtbot.keyClicks(dialog.key_edit, str(tmp_path / "missing_key"))
    _save(qtbot, dialog)
    qtbot.waitUntil(lambda: "key_path" in dialog.field_errors(), timeout=WAIT_MS)
    assert "key file" in dialog.field_errors()["key_path"]
    assert "not found" in dialog.field_errors()["key_path"]
    key = tmp_path / "id_test"
    key.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key())
    key.chmod(0o600)
    dialog.key_edit.setText(str(key))
    _save(qtbot, dialog)
    qtbot.waitUntil(lambda: _closed(dialog), timeout=WAIT_MS)
    assert get_host(library, "bastion").key_path == str(key)

    # A jump host can only be another stored SSH host: the combo offers exactly those.
    inner = _open_host_dialog(qtbot, panel)
    jumps = [inner.jump_combo.itemData(i) for i in range(inner.jump_combo.count())]
    assert jumps == [None, "bastion"]
    qtbot.keyClicks(inner.name_edit, "inner")
    qtbot.keyClicks(inner.address_edit, "10.0.0.9")
    inner.jump_combo.setCurrentIndex(1)
    _save(qtbot, inner)
    qtbot.waitUntil(lambda: _closed(inner), timeout=WAIT_MS)
    assert get_host(library, "inner").jump == "bastion"
    qtbot.waitUntil(lambda: any(h.name == "inner" for h in panel.hosts), timeout=WAIT_MS)

    # bastion is now a jump host: removing it is refused with the CLI's message.
    panel.select_host("bastion")
    qtbot.mouseClick(panel.hosts_list.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "jump host of inner" in panel.message.text(), timeout=WAIT_MS)
    assert panel.message.kind == "error"
    assert get_host(library, "bastion")


@pytest.fixture
def no_keyring() -> Iterator[None]:
    """The headless case: keyring has only its failing backend."""
    import keyring
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        yield
    finally:
        keyring.set_keyring(previous)


def test_password_host_without_keyring_says_it_is_asked_each_time(
    qtbot: QtBot, no_keyring: None, panel: HostsPanel, library: Library
) -> None:
    assert panel.keyring is not None and not panel.keyring[0]
    dialog = _open_host_dialog(qtbot, panel)
    dialog.auth_combo.setCurrentIndex(dialog.auth_combo.findData(AuthMethod.PASSWORD))
    assert dialog.password_edit.isVisibleTo(dialog)
    assert not dialog.password_edit.isEnabled()
    assert "asked at each connection" in dialog.password_note.text()
    qtbot.keyClicks(dialog.name_edit, "pw-host")
    qtbot.keyClicks(dialog.address_edit, "198.51.100.7")
    _save(qtbot, dialog)
    qtbot.waitUntil(lambda: _closed(dialog), timeout=WAIT_MS)
    assert "asked at each connection" in panel.message.text()
    assert get_host(library, "pw-host").auth is AuthMethod.PASSWORD
    qtbot.waitUntil(lambda: panel.hosts_list.keyring_note.isVisibleTo(panel), timeout=WAIT_MS)
    assert "asked at each connection" in panel.hosts_list.keyring_note.text()


def test_built_in_refusals_and_used_hosts_are_shown_plainly(
    qtbot: QtBot, panel: HostsPanel, library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel.select_host("localhost")
    qtbot.mouseClick(panel.hosts_list.edit_button, Qt.MouseButton.LeftButton)
    assert panel.dialog is None
    assert panel.message.text() == "the built-in host 'localhost' cannot be edited"
    qtbot.mouseClick(panel.hosts_list.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "cannot be removed" in panel.message.text(), timeout=WAIT_MS)
    assert panel.message.text() == "the built-in host 'localhost' cannot be removed"

    panel.select_pair("local")
    qtbot.mouseClick(panel.pairs_list.edit_button, Qt.MouseButton.LeftButton)
    assert panel.message.text() == "the built-in pair 'local' cannot be edited"
    qtbot.mouseClick(panel.pairs_list.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: panel.message.text() == "the built-in pair 'local' cannot be removed",
        timeout=WAIT_MS,
    )

    dialog = _add_host(qtbot, panel, "srv", "10.0.0.2")
    qtbot.waitUntil(lambda: _closed(dialog), timeout=WAIT_MS)
    qtbot.mouseClick(panel.pairs_list.add_button, Qt.MouseButton.LeftButton)
    pair_dialog = panel.dialog
    assert isinstance(pair_dialog, PairDialog)
    qtbot.keyClicks(pair_dialog.name_edit, "p1")
    pair_dialog.client_combo.setCurrentIndex(pair_dialog.client_combo.findData("localhost"))
    pair_dialog.server_combo.setCurrentIndex(pair_dialog.server_combo.findData("srv"))
    _save(qtbot, pair_dialog)
    qtbot.waitUntil(lambda: any(p.name == "p1" for p in panel.pairs), timeout=WAIT_MS)

    asked: list[str] = []

    def answer(*args: object, **kwargs: object) -> QMessageBox.StandardButton:
        asked.append(str(args[2]))
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", answer)
    panel.select_host("srv")
    qtbot.mouseClick(panel.hosts_list.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "used by pair(s) p1" in panel.message.text(), timeout=WAIT_MS)
    assert asked == []  # a refusal needs no confirmation
    assert get_host(library, "srv")

    panel.select_pair("p1")
    qtbot.mouseClick(panel.pairs_list.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: all(p.name != "p1" for p in panel.pairs), timeout=WAIT_MS)
    assert len(asked) == 1 and "runs stay" in asked[0]
    assert [p.name for p in list_pairs(library)] == ["local"]
    panel.select_host("srv")
    qtbot.mouseClick(panel.hosts_list.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: all(h.name != "srv" for h in panel.hosts), timeout=WAIT_MS)
    assert [h.name for h in list_hosts(library)] == ["localhost"]


def test_check_on_the_local_pair_shows_tool_versions(
    qtbot: QtBot, panel: HostsPanel, library: Library
) -> None:
    require_program("iperf3")
    require_program("ping")
    panel.select_pair("local")
    with qtbot.waitSignal(panel.checkFinished, timeout=60_000) as blocker:
        qtbot.mouseClick(panel.pairs_list.check_button, Qt.MouseButton.LeftButton)
        assert not panel.pairs_list.check_button.isEnabled()  # one check at a time
    report = blocker.args[0]
    assert report is not None and report.ready
    lines = panel.check_view.texts()
    assert any(line.startswith("iperf3 iperf 3.") for line in lines), lines
    assert "Client localhost reachable" in lines
    assert any(line.startswith("Data path ok, localhost reaches 127.0.0.1") for line in lines)
    assert any(line.startswith("Clock offset +0.000 s") for line in lines)
    assert panel.check_view.verdict.text() == "pair local is ready"
    assert panel.pairs_list.check_button.isEnabled()
    out = REPO / "test-output"
    out.mkdir(exist_ok=True)
    assert panel.grab().save(str(out / "hosts_panel.png"))


def test_ssh_config_import_previews_then_adds_the_chosen_hosts(
    qtbot: QtBot, panel: HostsPanel, library: Library, tmp_path: Path
) -> None:
    config = tmp_path / "ssh_config"
    config.write_text(
        "Host bastion\n  HostName 203.0.113.10\n  User ops\n\n"
        "Host db\n  HostName 10.2.0.4\n  Port 2200\n  ProxyJump bastion\n\n"
        "Host web\n  HostName 10.2.0.5\n  ProxyCommand nc %h %p\n  Ciphers +aes128-cbc\n\n"
        "Host bad\n  HostName bad;name\n\n"
        "Host *\n  ServerAliveInterval 30\n"
    )
    panel.import_ssh_config(config)
    qtbot.waitUntil(lambda: isinstance(panel.dialog, SshImportDialog), timeout=WAIT_MS)
    dialog = panel.dialog
    assert isinstance(dialog, SshImportDialog)
    assert list(dialog.items) == ["bastion", "db", "web"]
    assert dialog.chosen() == ["bastion", "db", "web"]
    assert "via ProxyCommand" in dialog.items["web"].text(1)
    assert "Ciphers +aes128-cbc" in dialog.items["web"].child(0).text(1)
    assert "not honoured" in dialog.items["web"].child(0).text(1)
    dialog.set_checked("web", False)
    assert dialog.add_button.text() == "Add 2 host(s)"
    qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(h.name == "db" for h in panel.hosts), timeout=WAIT_MS)
    assert {h.name for h in list_hosts(library)} == {"localhost", "bastion", "db"}
    assert get_host(library, "db").jump == "bastion"
    assert get_host(library, "db").port == 2200
    text = panel.message.text()
    assert "2 host(s) added: bastion, db; 1 skipped." in text
    assert "Skipped bad: invalid address" in text
    assert "Ciphers" not in text  # its host was left out


def test_ssh_config_errors_are_shown_in_the_panel(
    qtbot: QtBot, panel: HostsPanel, tmp_path: Path
) -> None:
    panel.import_ssh_config(tmp_path / "nope")
    qtbot.waitUntil(lambda: "cannot read" in panel.message.text(), timeout=WAIT_MS)
    assert panel.message.kind == "error"
    assert panel.hosts_list.import_button.isEnabled()


# ---------------------------------------------------------------------------------------------
# An unknown host key, against a real in-process SSH server


class _NoAuthServer(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return False  # anyone may log in: the test is about host keys


async def _run_locally(process: asyncssh.SSHServerProcess[str]) -> None:
    proc = await asyncio.create_subprocess_shell(
        process.command or "true",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    process.stdout.write(out.decode(errors="replace"))
    process.stderr.write(err.decode(errors="replace"))
    process.exit(proc.returncode or 0)


class _PasswordServer(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        return password == SSH_PASSWORD


SSH_PASSWORD = "pw-123"


@contextlib.contextmanager
def _ssh_server(
    factory: type[asyncssh.SSHServer],
) -> Iterator[tuple[int, asyncssh.SSHKey]]:
    """An SSH server on 127.0.0.1 in its own thread: (port, host key)."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def start() -> asyncssh.SSHAcceptor:
        return await asyncssh.listen(
            "127.0.0.1",
            0,
            server_host_keys=[key],
            server_factory=factory,
            process_factory=_run_locally,
        )

    server = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    try:
        yield server.sockets[0].getsockname()[1], key
    finally:
        server.close()
        asyncio.run_coroutine_threadsafe(server.wait_closed(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.fixture
def ssh_server() -> Iterator[tuple[int, asyncssh.SSHKey]]:
    """A server that lets anyone in (the tests are about host keys)."""
    with _ssh_server(_NoAuthServer) as server:
        yield server


@pytest.fixture
def password_ssh_server() -> Iterator[tuple[int, asyncssh.SSHKey]]:
    """A server that wants the password ``SSH_PASSWORD``."""
    with _ssh_server(_PasswordServer) as server:
        yield server


def _add_pair(qtbot: QtBot, panel: HostsPanel, name: str, client: str, server: str) -> None:
    qtbot.mouseClick(panel.pairs_list.add_button, Qt.MouseButton.LeftButton)
    dialog = panel.dialog
    assert isinstance(dialog, PairDialog)
    qtbot.keyClicks(dialog.name_edit, name)
    dialog.client_combo.setCurrentIndex(dialog.client_combo.findData(client))
    dialog.server_combo.setCurrentIndex(dialog.server_combo.findData(server))
    _save(qtbot, dialog)
    qtbot.waitUntil(lambda: panel.selected_pair() == name, timeout=WAIT_MS)


def test_unknown_host_key_is_shown_with_its_fingerprint_then_accepted(
    qtbot: QtBot,
    panel: HostsPanel,
    library: Library,
    ssh_server: tuple[int, asyncssh.SSHKey],
) -> None:
    require_program("ping")
    port, key = ssh_server
    fingerprint = key.get_fingerprint()
    dialog = _add_host(qtbot, panel, "sshd", "127.0.0.1", port_edit=str(port))
    qtbot.waitUntil(lambda: _closed(dialog), timeout=WAIT_MS)
    _add_pair(qtbot, panel, "p1", "localhost", "sshd")

    with qtbot.waitSignal(panel.checkFinished, timeout=60_000):
        qtbot.mouseClick(panel.pairs_list.check_button, Qt.MouseButton.LeftButton)
    view = panel.check_view
    assert view.key_box.isVisibleTo(panel)
    assert fingerprint in view.key_label.text() and "sshd" in view.key_label.text()
    assert view.verdict.text() == "pair p1 is NOT ready"
    assert any("UNREACHABLE" in line and "unknown host key" in line for line in view.texts())
    assert pinned_host_keys(library, "sshd") == []
    out = REPO / "test-output"
    out.mkdir(exist_ok=True)
    assert panel.grab().save(str(out / "hosts_panel_unknown_key.png"))

    with qtbot.waitSignal(panel.checkFinished, timeout=60_000) as blocker:
        qtbot.mouseClick(view.accept_button, Qt.MouseButton.LeftButton)
    report = blocker.args[0]
    assert report is not None and report.check.server.reachable, view.texts()
    assert not view.key_box.isVisibleTo(panel)
    assert view.pinned_label.text() == f"Pinned the new host key of sshd: {fingerprint}"
    assert [key_fingerprint(k) for k in pinned_host_keys(library, "sshd")] == [fingerprint]
    assert "Server sshd reachable" in view.texts()


def test_without_a_keyring_the_check_asks_the_password_once_per_check(
    qtbot: QtBot,
    no_keyring: None,
    panel: HostsPanel,
    library: Library,
    password_ssh_server: tuple[int, asyncssh.SSHKey],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require_program("ping")
    port, key = password_ssh_server
    asked: list[str] = []

    def get_text(*args: object, **kwargs: object) -> tuple[str, bool]:
        asked.append(str(args[2]))
        return SSH_PASSWORD, True

    monkeypatch.setattr(QInputDialog, "getText", get_text)
    dialog = _open_host_dialog(qtbot, panel)
    qtbot.keyClicks(dialog.name_edit, "pwhost")
    qtbot.keyClicks(dialog.address_edit, "127.0.0.1")
    qtbot.keyClicks(dialog.port_edit, str(port))
    dialog.auth_combo.setCurrentIndex(dialog.auth_combo.findData(AuthMethod.PASSWORD))
    _save(qtbot, dialog)
    qtbot.waitUntil(lambda: _closed(dialog), timeout=WAIT_MS)
    _add_pair(qtbot, panel, "p2", "localhost", "pwhost")

    with qtbot.waitSignal(panel.checkFinished, timeout=60_000):
        qtbot.mouseClick(panel.pairs_list.check_button, Qt.MouseButton.LeftButton)
    assert len(asked) == 1
    assert "root@127.0.0.1 (pwhost)" in asked[0] and "asked each time" in asked[0]
    assert panel.check_view.key_box.isVisibleTo(panel)  # the password came first, then the key

    with qtbot.waitSignal(panel.checkFinished, timeout=60_000) as blocker:
        qtbot.mouseClick(panel.check_view.accept_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0].check.server.reachable, panel.check_view.texts()
    assert len(asked) == 1  # the re-run after Accept reuses it
    assert [key_fingerprint(k) for k in pinned_host_keys(library, "pwhost")] == [
        key.get_fingerprint()
    ]

    with qtbot.waitSignal(panel.checkFinished, timeout=60_000) as blocker:
        qtbot.mouseClick(panel.pairs_list.check_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0].check.server.reachable
    assert len(asked) == 2  # a new check asks again: nothing keeps it


class _MemoryKeyring(KeyringBackend):
    """An OS keyring stand-in that keeps passwords in a dict.

    It has no ``priority``, so keyring never picks it by itself (a viable backend class
    would become every later test's default keyring): only ``set_keyring`` installs it.
    """

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.passwords.pop((service, username), None)


@pytest.fixture
def memory_keyring() -> Iterator[_MemoryKeyring]:
    import keyring

    previous = keyring.get_keyring()
    backend = _MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


def test_a_password_goes_to_the_keyring_and_moves_with_the_login(
    qtbot: QtBot, memory_keyring: _MemoryKeyring, panel: HostsPanel, library: Library
) -> None:
    assert panel.keyring is not None and panel.keyring[0]
    dialog = _open_host_dialog(qtbot, panel)
    dialog.auth_combo.setCurrentIndex(dialog.auth_combo.findData(AuthMethod.PASSWORD))
    assert dialog.password_edit.isEnabled()
    assert "OS keyring" in dialog.password_note.text()
    qtbot.keyClicks(dialog.name_edit, "pw-host")
    qtbot.keyClicks(dialog.address_edit, "198.51.100.7")
    _save(qtbot, dialog)
    qtbot.waitUntil(lambda: "password" in dialog.field_errors(), timeout=WAIT_MS)
    assert "no password given" in dialog.field_errors()["password"]
    assert [h.name for h in list_hosts(library)] == ["localhost"]
    qtbot.keyClicks(dialog.password_edit, "s3cret")
    _save(qtbot, dialog)
    qtbot.waitUntil(lambda: _closed(dialog), timeout=WAIT_MS)
    assert "kept in the OS keyring for root@198.51.100.7:22" in panel.message.text()
    assert memory_keyring.passwords == {("pairbench", "root@198.51.100.7:22"): "s3cret"}

    qtbot.waitUntil(lambda: any(h.name == "pw-host" for h in panel.hosts), timeout=WAIT_MS)
    panel.select_host("pw-host")
    edit = panel.edit_host()
    assert isinstance(edit, HostDialog)
    assert "keep the stored password" in edit.password_note.text()
    qtbot.keyClicks(edit.port_edit, "2200")
    _save(qtbot, edit)
    qtbot.waitUntil(lambda: _closed(edit), timeout=WAIT_MS)
    assert get_host(library, "pw-host").port == 2200
    assert memory_keyring.passwords == {("pairbench", "root@198.51.100.7:2200"): "s3cret"}


def test_a_name_reserved_for_this_computer_is_refused_inline(
    qtbot: QtBot, panel: HostsPanel, library: Library
) -> None:
    dialog = _add_host(qtbot, panel, "Local", "192.0.2.55")
    qtbot.waitUntil(lambda: "name" in dialog.field_errors(), timeout=WAIT_MS)
    assert "the host name 'Local' is reserved" in dialog.field_errors()["name"]
    assert dialog.isVisible()
    assert [h.name for h in list_hosts(library)] == ["localhost"]


def test_a_host_named_local_by_an_older_library_is_renamed_in_its_dialog(
    qtbot: QtBot, library: Library, library_path: Path, bridge: EngineBridge, isolated_home: Path
) -> None:
    import sqlite3

    conn = sqlite3.connect(library_path)
    with conn:  # what an older Pairbench let a user add
        conn.execute(
            "INSERT INTO hosts (name, address, port, auth) VALUES ('local', '192.0.2.55', 22, "
            "'agent')"
        )
    conn.close()
    view = HostsPanel(bridge)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: any(h.name == "local" for h in view.book.hosts), timeout=WAIT_MS)
    view.select_host("local")
    qtbot.mouseClick(view.hosts_list.edit_button, Qt.MouseButton.LeftButton)
    dialog = view.dialog
    assert isinstance(dialog, HostDialog) and dialog.name_edit.isEnabled()
    dialog.name_edit.clear()
    qtbot.keyClicks(dialog.name_edit, "LOCALHOST")  # still reserved: said inline
    _save(qtbot, dialog)
    qtbot.waitUntil(lambda: "name" in dialog.field_errors(), timeout=WAIT_MS)
    assert "'LOCALHOST' is reserved" in dialog.field_errors()["name"]
    dialog.name_edit.clear()
    qtbot.keyClicks(dialog.name_edit, "aws-b")
    _save(qtbot, dialog)
    qtbot.waitUntil(lambda: _closed(dialog), timeout=WAIT_MS)
    assert view.message.text() == "Renamed host local to aws-b."
    assert get_host(library, "aws-b").address == "192.0.2.55"
    assert sorted(h.name for h in list_hosts(library)) == ["aws-b", "localhost"]
