"""The ssh_config reader's own contract: aliases, errors with file and line, hostile files.

What each alias resolves to is checked against OpenSSH itself in
``test_ssh_config_reference.py``; this file checks what ssh cannot be asked: the order and
set of aliases listed, the messages, and that odd or hostile files end in a result or a
one-line ``SSHConfigError``, never a traceback or a hang.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from pairbench.remote.ssh_config import ClientEnv, SSHConfigError, open_config
from pairbench.remote.ssh_config.jump import JumpSpec, parse_jump
from pairbench.remote.ssh_config.keywords import KEYWORDS, Use
from pairbench.remote.ssh_config.lexer import LineError, argv_split, directive, strdelim
from pairbench.remote.ssh_config.tokens import ExpandError, expand, tilde_expand
from testkit import REPO


def _env(home: Path) -> ClientEnv:
    return ClientEnv(str(home), "tester", 1000, "box.example.org", {"HOME": str(home)})


def _config(tmp_path: Path, text: str | bytes, name: str = "config") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_aliases_in_file_order_with_includes(tmp_path: Path) -> None:
    (tmp_path / ".ssh" / "conf.d").mkdir(parents=True)
    (tmp_path / ".ssh" / "conf.d" / "b.conf").write_text("Host from-b\n")
    (tmp_path / ".ssh" / "conf.d" / "a.conf").write_text("Host from-a web\n")
    (tmp_path / ".ssh" / "conf.d" / "skip.txt").write_text("Host not-included\n")
    config = _config(
        tmp_path,
        "Host web db *.corp !secret ???\n"
        "Include conf.d/*.conf\n"
        "Match host x\n"
        "  Include conf.d/b.conf\n"
        "Host Web\n",
    )
    aliases = open_config(config, _env(tmp_path)).aliases()
    # Concrete names once each, case kept (ssh matches Host case-sensitively); the files
    # of a glob in sorted order; an Include under a Match is read too.
    assert aliases == ["web", "db", "from-a", "from-b", "Web"]


def test_resolving_names_every_field(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        "Host app\n  HostName App.Example.COM\n  Port 2200\n  ProxyJump ops@gate:2222\n"
        "Host *\n  IdentityFile ~/.ssh/id_%h\n",
    )
    entry = open_config(config, _env(tmp_path)).resolve("app")
    assert entry.refused is None and entry.resolved is not None
    r = entry.resolved
    assert (r.hostname, r.port, r.user) == ("app.example.com", 2200, "tester")
    assert r.identity_files == ("~/.ssh/id_%h",)
    assert r.identity_paths == (f"{tmp_path}/.ssh/id_app.example.com",)
    assert r.jump == JumpSpec("gate", "ops", 2222)
    assert [(h.alias, h.user, h.port) for h in entry.hops] == [("gate", "ops", 2222)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Host a\n  Port nope\n", r"config:2: Bad port 'nope'"),
        ('Host a\n  User "unterminated\n', r"config:2: invalid quotes"),
        ("Host a\n  User one two\n", r"config:2: keyword user extra arguments"),
        ("Host a\n  Usr x\n", r"config:2: Bad configuration option: usr"),
        ("Host\n", r"config:1: no argument after keyword \"host\""),
        ("Match nonsense x\n", r"config:1: Unsupported Match attribute nonsense"),
        ("Match all host x\n", r"config:1: 'all' cannot be combined"),
        ("Host a\n  ProxyJump @gate\n", r"config:2: Invalid ProxyJump"),
        ("Host a\n  StrictHostKeyChecking maybe\n", r'config:2: unsupported option "maybe"'),
        ("Host a\n  IdentityAgent ${}\n", r"config:2: Invalid environment expansion"),
    ],
)
def test_errors_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    config = _config(tmp_path, text)
    with pytest.raises(SSHConfigError, match=message) as caught:
        open_config(config, _env(tmp_path)).aliases()
    assert "\n" not in str(caught.value)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(SSHConfigError, match=r"cannot read .*missing"):
        open_config(tmp_path / "missing", _env(tmp_path)).aliases()
    # Without a file, ~/.ssh/config is read (and must be there to import anything).
    with pytest.raises(SSHConfigError, match=r"cannot read .*\.ssh/config"):
        open_config(None, _env(tmp_path), system_config="/dev/null").aliases()


def test_include_loops_and_depth_are_bounded(tmp_path: Path) -> None:
    loop = _config(tmp_path, "", "loop")
    loop.write_text(f"Include {loop}\n")
    with pytest.raises(SSHConfigError, match="Too many recursive configuration includes"):
        open_config(loop, _env(tmp_path)).aliases()


def test_an_include_others_can_write_is_refused_as_ssh_does(tmp_path: Path) -> None:
    shared = _config(tmp_path, "Host shared\n", "shared")
    shared.chmod(0o666)
    config = _config(tmp_path, f"Include {shared}\n")
    with pytest.raises(SSHConfigError, match="bad owner or permissions"):
        open_config(config, _env(tmp_path)).aliases()
    shared.chmod(0o644)
    assert open_config(config, _env(tmp_path)).aliases() == ["shared"]


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "data",
    [
        b"Host a\x00b\n  User u\x00v\n",
        b"\xff\xfe\x00H\x00o\x00s\x00t\x00",
        b"Host " + b"x" * 200_000 + b"\n",
        b"Host a\n  HostName " + b"*" * 5000 + b"a\n",
        b"Host " + b"*a" * 2000 + b"\n  User u\n",
        b"Host a\r\n  User u\r\r\n\x0c",
        bytes(range(256)) * 8,
    ],
)
def test_hostile_files_give_a_result_or_a_one_line_error(tmp_path: Path, data: bytes) -> None:
    config = _config(tmp_path, data)
    try:
        entries = open_config(config, _env(tmp_path)).entries()
    except SSHConfigError as exc:
        assert "\n" not in str(exc)
        return
    for entry in entries:
        assert entry.resolved is not None or entry.refused


def test_a_hop_loop_is_refused(tmp_path: Path) -> None:
    config = _config(tmp_path, "Host a\n  ProxyJump b\nHost b\n  ProxyJump a\n")
    entry = open_config(config, _env(tmp_path)).resolve("a")
    assert entry.resolved is None and entry.refused is not None
    assert "more than 10 hops" in entry.refused


def test_strdelim_and_argv_split() -> None:
    assert strdelim('Host = "a b" c') == ("Host", '"a b" c')
    assert strdelim('"a b" c') == ("a b", "c")
    assert strdelim('"open') == (None, None)
    assert argv_split('a \'b c\' "d\\"e" f\\ g # h') == ["a", "b c", 'd"e', "f g"]
    assert argv_split("x#y z") == ["x#y", "z"]
    with pytest.raises(LineError):
        argv_split("'open")
    line = directive("  HostName=Example.COM  \f", "f", 3)
    assert line is not None and (line.keyword, line.rest) == ("hostname", "Example.COM")
    assert directive("   # comment", "f", 1) is None


def test_proxyjump_forms() -> None:
    assert parse_jump("none") is None
    assert parse_jump("a,b@c:22,d") == JumpSpec("d", None, -1, "a,b@c:22")
    assert parse_jump("ssh://u@h.example.com:2200") == JumpSpec("h.example.com", "u", 2200)
    assert parse_jump("[2001:db8::1]:22") == JumpSpec("2001:db8::1", None, 22)
    assert parse_jump("gate # comment") == JumpSpec("gate")
    for bad in ("@gate", "gate:0", "ssh://h/path", "h/x", "ssh://;p@h"):
        with pytest.raises(ValueError):
            parse_jump(bad)
    with pytest.raises(ValueError):
        parse_jump("u@gate;id", strict=True)  # shell characters on ssh's command line
    assert JumpSpec("10.0.0.1", "u", 2222, "a").shown() == "a,u@[10.0.0.1]:2222"


def test_tokens_and_tilde() -> None:
    assert expand("%h-%%-%r", {"h": "H", "r": "R"}) == "H-%-R"
    assert expand("${A}/x", None, {"A": "1"}) == "1/x"
    assert expand("%x ${A}", None, {"A": "1"}) == "%x 1"
    for bad, environ in (("%z", None), ("x%", None), ("${NOPE}", {}), ("${A", {"A": "1"})):
        with pytest.raises(ExpandError):
            expand(bad, {"h": "H"}, environ)
    assert tilde_expand("~", "/home/u") == "/home/u/"
    assert tilde_expand("~//a", "/home/u") == "/home/u/a"
    assert tilde_expand("~root/x", "/home/u") == f"{os.path.expanduser('~root')}/x"
    with pytest.raises(ExpandError):
        tilde_expand("~no-such-user-pb/x", "/home/u")


def test_the_guide_lists_every_keyword_as_the_code_treats_it() -> None:
    text = (REPO / "docs" / "guide" / "ssh-config.md").read_text()
    section = text.split("# Importing hosts from ~/.ssh/config", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    named: dict[str, str] = {}
    for row in rows:
        names, _, words = row[2:].partition(" | ")
        for name in re.findall(r"`([A-Za-z0-9]+)`", names):
            assert name not in named, f"{name} is in two rows"
            named[name] = words
    assert set(named) == {k.name for k in KEYWORDS.values()}
    for keyword in KEYWORDS.values():
        words = named[keyword.name]
        bold = {
            Use.NOT_HONOURED: "**not honoured**",
            Use.NOT_NEEDED: "**not needed**",
            Use.OBSOLETE: "**obsolete**",
        }.get(keyword.use)
        if bold is not None:
            assert bold in words, keyword.name
        else:
            assert "**" not in words, keyword.name


@pytest.mark.timeout(20)
def test_a_fifo_device_or_huge_file_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(SSHConfigError, match=r"fifo is a named pipe \(FIFO\), not a regular"):
        open_config(fifo, _env(tmp_path)).aliases()
    config = _config(tmp_path, f"Host a\nInclude {fifo}\n")
    with pytest.raises(SSHConfigError, match="named pipe"):
        open_config(config, _env(tmp_path)).aliases()
    config.write_text("Include /dev/zero\n")
    with pytest.raises(SSHConfigError, match="character device"):
        open_config(config, _env(tmp_path)).aliases()
    huge = _config(tmp_path, "#" * (1 << 20) + "\nHost a\n", "huge")
    with pytest.raises(SSHConfigError, match="larger than 1 MiB"):
        open_config(huge, _env(tmp_path)).aliases()
    assert open_config(os.devnull, _env(tmp_path)).aliases() == []  # ssh -F /dev/null


def test_reading_many_files_is_bounded(tmp_path: Path) -> None:
    one = _config(tmp_path, "Port 2\n", "one")
    config = _config(tmp_path, "".join(f"Host h{i}\n  Include {one}\n" for i in range(300)))
    with pytest.raises(SSHConfigError, match="more than 256 files"):
        open_config(config, _env(tmp_path)).aliases()
