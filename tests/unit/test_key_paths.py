"""``hosts add|edit --key PATH``: every problem with the path or the file is one clear line.

The CLI runs in-process against real files; the window's host dialog calls the same engine
helper (``save_new_host`` / ``save_edited_host``), checked here too.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import asyncssh
import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import AuthMethod
from pairbench.domain.failures import FormErrors
from pairbench.library import Library
from pairbench.library.hosts import get_host, list_hosts
from pairbench.services.hosts import HostForm, save_edited_host, save_new_host

NOBODY = 65534


def _cli(library_path: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    status = run_cli(list(argv), env)
    return status, out.getvalue(), err.getvalue()


def _private_key(path: Path, mode: int = 0o600, passphrase: str | None = None) -> Path:
    key = asyncssh.generate_private_key("ssh-ed25519")
    path.write_bytes(key.export_private_key("openssh", passphrase))
    path.chmod(mode)
    path.with_name(path.name + ".pub").write_bytes(key.export_public_key("openssh"))
    return path


def _one_line_error(status: int, out: str, err: str) -> str:
    """The error line, after checking it is the only output: one line, no traceback."""
    assert status == 1, (status, out, err)
    assert out == ""
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("pairbench: ")
    return err.strip()


@contextlib.contextmanager
def _as_nobody() -> Iterator[None]:
    """Act as an unprivileged user (root reads every file), when running as root."""
    if os.geteuid() != 0:
        yield
        return
    os.setegid(NOBODY)
    os.seteuid(NOBODY)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


@pytest.fixture
def keys() -> Iterator[Path]:
    """A directory anyone may enter (so that the unreadable case is about the file alone)."""
    with tempfile.TemporaryDirectory(prefix="pairbench-keys-") as name:
        root = Path(name)
        root.chmod(0o755)
        yield root


@pytest.fixture
def stored(library_path: Path, keys: Path) -> Path:
    """The library with host ``web1`` logging in with a good key; that key's path."""
    good = _private_key(keys / "id_good")
    status, _, err = _cli(library_path, "hosts", "add", "web1", "--address", "10.0.0.5")
    assert status == 0, err
    status, _, err = _cli(library_path, "hosts", "edit", "web1", "--key", str(good))
    assert status == 0, err
    return good


NAME_MAX = 255


def _long_name(keys: Path) -> str:
    """The issue's case: a 300-character path whose last name exceeds NAME_MAX (ENAMETOOLONG;
    longer than 300 when the temporary directory's own path is long)."""
    path = str(keys / "k")
    return path + "x" * max(300 - len(path), NAME_MAX)


def _long_path(keys: Path) -> str:
    """A path over PATH_MAX made of short names."""
    return str(keys) + "/abcdefghi" * 420


def _missing(keys: Path) -> str:
    return str(keys / "missing")


def _under_a_file(keys: Path) -> str:
    _private_key(keys / "plain")
    return str(keys / "plain" / "id_ed25519")


def _directory(keys: Path) -> str:
    (keys / "dir").mkdir()
    return str(keys / "dir")


def _fifo(keys: Path) -> str:
    os.mkfifo(keys / "fifo")
    return str(keys / "fifo")


def _loop(keys: Path) -> str:
    (keys / "loop").symlink_to(keys / "loop")
    return str(keys / "loop")


def _group_readable(keys: Path) -> str:
    return str(_private_key(keys / "id_group", 0o640))


def _world_readable(keys: Path) -> str:
    return str(_private_key(keys / "id_world", 0o604))


def _not_a_key(keys: Path) -> str:
    path = keys / "notes.txt"
    path.write_text("not really a key\n")
    path.chmod(0o600)
    return str(path)


def _public_key(keys: Path) -> str:
    _private_key(keys / "id_pair")
    return str(keys / "id_pair.pub")


def _empty(keys: Path) -> str:
    path = keys / "empty"
    path.touch(mode=0o600)
    return str(path)


def _control_character(keys: Path) -> str:
    return str(keys / "id\x1b[31m")


CASES: dict[str, tuple[Callable[[Path], str], tuple[str, ...]]] = {
    "name over 255 bytes": (_long_name, ("has a name of", "bytes", "at most 255")),
    "path over PATH_MAX": (_long_path, ("bytes long", "at most 4095")),
    "missing": (_missing, ("not found",)),
    "under a file": (_under_a_file, ("not found", "plain is a file, not a directory")),
    "a directory": (_directory, ("is a directory",)),
    "a fifo": (_fifo, ("is not a regular file",)),
    "a symlink loop": (_loop, ("too many levels of symbolic links",)),
    "group-readable": (_group_readable, ("accessible by its group", "0640", "chmod 600")),
    "world-readable": (_world_readable, ("accessible by others", "0604", "chmod 600")),
    "not a key": (_not_a_key, ("not a private key",)),
    "a public key": (_public_key, ("is a public key", "without .pub")),
    "empty": (_empty, ("is empty",)),
    "a control character": (_control_character, ("invalid key file name",)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_hosts_add_refuses_the_key_path_in_one_line(
    library_path: Path, keys: Path, case: str
) -> None:
    make, words = CASES[case]
    path = make(keys)
    argv = ["hosts", "add", "web1", "--address", "10.0.0.5", "--key", path]
    line = _one_line_error(*_cli(library_path, *argv))
    for word in words:
        assert word in line, line
    assert len(line) < 400, line  # a long path is shown shortened
    with Library.open(library_path) as lib:
        assert [h.name for h in list_hosts(lib)] == ["localhost"]


@pytest.mark.parametrize("case", list(CASES))
def test_hosts_edit_refuses_the_key_path_in_one_line(
    library_path: Path, keys: Path, stored: Path, case: str
) -> None:
    make, words = CASES[case]
    line = _one_line_error(*_cli(library_path, "hosts", "edit", "web1", "--key", make(keys)))
    for word in words:
        assert word in line, line
    with Library.open(library_path) as lib:
        assert get_host(lib, "web1").key_path == str(stored)


def test_an_unreadable_key_file_is_refused(library_path: Path, keys: Path) -> None:
    key = _private_key(keys / "id_root_only")  # 0600, owned by root when run as root
    if os.geteuid() != 0:
        key.chmod(0o000)
    argv = ["hosts", "add", "web1", "--address", "10.0.0.5", "--key", str(key)]
    assert _cli(library_path, "hosts", "list")[0] == 0  # every module imported: now drop root
    with _as_nobody():
        result = _cli(library_path, *argv)
    line = _one_line_error(*result)
    assert f"cannot read key file {key}: permission denied" in line


def test_a_directory_on_the_path_that_cannot_be_entered(library_path: Path, keys: Path) -> None:
    closed = keys / "closed"
    closed.mkdir(mode=0o700)
    key = _private_key(closed / "id_ed25519")
    argv = ["hosts", "add", "web1", "--address", "10.0.0.5", "--key", str(key)]
    assert _cli(library_path, "hosts", "list")[0] == 0
    with _as_nobody():
        result = _cli(library_path, *argv)
    line = _one_line_error(*result)
    assert "permission denied" in line


def test_good_keys_are_accepted(
    library_path: Path, keys: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = _private_key(keys / "id_ed25519")
    locked = _private_key(keys / "id_locked", passphrase="a passphrase")  # asked when connecting
    for name, key in (("web1", plain), ("web2", locked)):
        status, out, err = _cli(
            library_path, "hosts", "add", name, "--address", "10.0.0.5", "--key", str(key)
        )
        assert status == 0, err
        assert f"key {key}" in out
    monkeypatch.setenv("HOME", str(keys))
    status, out, err = _cli(library_path, "hosts", "edit", "web2", "--key", "~/id_ed25519")
    assert status == 0, err
    with Library.open(library_path) as lib:
        assert get_host(lib, "web2").key_path == str(plain)


def test_the_window_gets_the_same_message_on_the_key_field(
    library_path: Path, keys: Path, stored: Path
) -> None:
    """The host dialog saves through ``save_new_host`` / ``save_edited_host``."""
    loose = _group_readable(keys)
    form = HostForm(name="web2", address="10.0.0.6", auth=AuthMethod.KEY, key_path=loose)
    with Library.open(library_path) as lib:
        with pytest.raises(FormErrors) as new_error:
            save_new_host(lib, form, None)
        with pytest.raises(FormErrors) as edit_error:
            save_edited_host(lib, "web1", form, None)
        assert get_host(lib, "web1").key_path == str(stored)
    _, _, cli_err = _cli(
        library_path, "hosts", "add", "web2", "--address", "10.0.0.6", "--key", loose
    )
    for error in (new_error.value, edit_error.value):
        message = error.by_field()["key_path"]
        assert "accessible by its group" in message
        assert cli_err.strip() == f"pairbench: {message}"
    long_form = HostForm(
        name="web3", address="10.0.0.7", auth=AuthMethod.KEY, key_path=_long_name(keys)
    )
    with Library.open(library_path) as lib, pytest.raises(FormErrors) as long_error:
        save_new_host(lib, long_form, None)
    assert "at most 255" in long_error.value.by_field()["key_path"]


def test_import_ssh_config_names_the_key_problem(library_path: Path, keys: Path) -> None:
    """An IdentityFile that fails the same check is a warning; the host uses ssh-agent."""
    config = keys / "config"
    loose = _group_readable(keys)
    config.write_text(f"Host web1\n    HostName 10.0.0.5\n    IdentityFile {loose}\n")
    status, out, err = _cli(library_path, "hosts", "import-ssh-config", str(config), "--json")
    assert status == 0, err
    result = json.loads(out)
    assert [(h["name"], h["auth"]) for h in result["added"]] == [("web1", "agent")]
    assert any("accessible by its group" in w for w in result["warnings"]), result["warnings"]
