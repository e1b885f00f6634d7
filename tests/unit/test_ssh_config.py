"""Parsing an OpenSSH client config: aliases, wildcards, Include, Match, quotes, first wins."""

from __future__ import annotations

from pathlib import Path

import pytest

from pairbench.remote.ssh_config import SSHConfigEntry, SSHConfigError, parse_ssh_config

CONFIG = """\
# A realistic ~/.ssh/config; Include at the top, before any Host line, applies to all
Include conf.d/*.conf
Include /nonexistent/path/*.conf

Host bastion
    HostName bastion.example.com
    User jumper
    Port 2200
    IdentityFile ~/.ssh/id_bastion

Host web1 web2
    HostName %h.internal.example.com
    ProxyJump bastion

host DB1
    hostname=10.0.0.7
    USER = postgres
    identityfile "~/.ssh/keys/db key"   # a trailing comment

Host web1
    # web1 is also listed above: the first User/HostName obtained win
    HostName ignored.example.com
    User webadmin

Host *.example.com !secret.example.com
    User wildcard-user

Host *-prod ??? !bastion
    Port 2022

Match host web2 exec "true"
    User matched-user
    Port 9999

Host multi-hop
    HostName 10.0.0.9
    ProxyJump jumper@bastion:2200,other
    ProxyCommand ssh -W %h:%p bastion

Host nojump
    HostName 10.0.0.10
    ProxyJump none

Host *
    User everyone
    Port 2222
    IdentityFile %d/.ssh/id_default_%r
"""

INCLUDED = """\
Host included-box
    HostName 192.0.2.44
    Port 2201

Host web2
    User included-user
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fake home with ~/.ssh/config and ~/.ssh/conf.d/extra.conf."""
    ssh = tmp_path / "home" / ".ssh"
    (ssh / "conf.d").mkdir(parents=True)
    (ssh / "config").write_text(CONFIG)
    (ssh / "conf.d" / "extra.conf").write_text(INCLUDED)
    (ssh / "conf.d" / "ignored.txt").write_text("Host not-included\n")
    return tmp_path / "home"


def _by_alias(entries: list[SSHConfigEntry]) -> dict[str, SSHConfigEntry]:
    return {e.alias: e for e in entries}


def test_concrete_aliases_in_order(home: Path) -> None:
    entries = parse_ssh_config(home=home)
    assert [e.alias for e in entries] == [
        "included-box",
        "web2",  # the included file names web2 before the main file does
        "bastion",
        "web1",
        "DB1",
        "multi-hop",
        "nojump",
    ]


def test_values_first_obtained_wins(home: Path) -> None:
    hosts = _by_alias(parse_ssh_config(home=home))
    assert hosts["bastion"] == SSHConfigEntry(
        alias="bastion",
        hostname="bastion.example.com",
        port=2200,
        user="jumper",
        identity_file=str(home / ".ssh" / "id_bastion"),
    )
    web1 = hosts["web1"]
    assert web1.hostname == "web1.internal.example.com"  # %h expanded, later HostName ignored
    assert web1.user == "webadmin"  # the first User for web1 (the web1 web2 block has none)
    assert web1.port == 2222  # from Host *
    assert web1.proxy_jump == "bastion"
    assert web1.identity_file == str(home / ".ssh" / "id_default_webadmin")


def test_match_blocks_are_skipped_and_include_applies(home: Path) -> None:
    web2 = _by_alias(parse_ssh_config(home=home))["web2"]
    assert web2.user == "included-user"  # from the Include; the Match block is skipped
    assert web2.port == 2222  # not 9999 from the Match block


def test_key_equals_value_quotes_and_case(home: Path) -> None:
    db = _by_alias(parse_ssh_config(home=home))["DB1"]
    assert db.hostname == "10.0.0.7"
    assert db.user == "postgres"
    assert db.identity_file == str(home / ".ssh" / "keys" / "db key")


def test_wildcards_and_negation(home: Path) -> None:
    hosts = _by_alias(parse_ssh_config(home=home))
    # "*.example.com" matches the alias, not the HostName; bastion's own User came first.
    assert hosts["bastion"].user == "jumper"
    # "*-prod ??? !bastion": no alias here has 3 characters except DB1 (matched by ???).
    assert hosts["DB1"].port == 2022
    assert hosts["web1"].port == 2222


def test_proxy_jump_and_command(home: Path) -> None:
    hosts = _by_alias(parse_ssh_config(home=home))
    assert hosts["multi-hop"].proxy_jump == "jumper@bastion:2200,other"
    assert hosts["multi-hop"].proxy_command == "ssh -W %h:%p bastion"
    assert hosts["nojump"].proxy_jump is None  # "none" is explicit and wins over nothing


def test_included_file(home: Path) -> None:
    box = _by_alias(parse_ssh_config(home=home))["included-box"]
    assert (box.hostname, box.port, box.user) == ("192.0.2.44", 2201, "everyone")


def test_alias_defaults_to_hostname(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text("Host plain\n    User u\n")
    (entry,) = parse_ssh_config(config, home=tmp_path)
    assert entry == SSHConfigEntry(alias="plain", hostname="plain", user="u")


def test_negated_exclusion(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text("Host a b\nHost * !b\n  User not-b\n")
    hosts = _by_alias(parse_ssh_config(config, home=tmp_path))
    assert hosts["a"].user == "not-b"
    assert hosts["b"].user is None


def test_include_inside_host_block_is_conditional(tmp_path: Path) -> None:
    (tmp_path / "inc").write_text("User from-include\n")
    config = tmp_path / "config"
    config.write_text(f"Host a\n  Include {tmp_path / 'inc'}\nHost b\nHost *\n  User default\n")
    hosts = _by_alias(parse_ssh_config(config, home=tmp_path))
    assert hosts["a"].user == "from-include"
    assert hosts["b"].user == "default"


def test_include_depth_is_bounded(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.write_text(f"Include {loop}\n")
    with pytest.raises(SSHConfigError, match="deeper"):
        parse_ssh_config(loop, home=tmp_path)


def test_errors_name_file_and_line(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text("Host a\n  Port nope\n")
    with pytest.raises(SSHConfigError, match=r"config:2: bad port"):
        parse_ssh_config(config, home=tmp_path)
    config.write_text('Host a\n  User "unterminated\n')
    with pytest.raises(SSHConfigError, match=r"config:2: unterminated quote"):
        parse_ssh_config(config, home=tmp_path)
    with pytest.raises(SSHConfigError, match="cannot read"):
        parse_ssh_config(tmp_path / "missing", home=tmp_path)
