"""A host's OpenSSH options: stored and read back, exported, kept by edits, shown."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import AuthMethod, Host
from pairbench.domain.host_text import describe_host, route_text, ssh_option_lines
from pairbench.domain.hosts import SSHOptions
from pairbench.domain.ssh_options_json import ssh_options_from_json, ssh_options_json
from pairbench.export.run_json import host_from_payload, host_payload
from pairbench.library import Library
from pairbench.library.hosts import add_host, get_host, pin_host_key, pinned_host_keys
from pairbench.services.host_names import rename_host
from pairbench.services.hosts import HostForm, save_edited_host

GATE = Host(
    name="gate",
    address="198.51.100.1",
    port=2222,
    user="ops",
    ssh=SSHOptions(identity_files=("/k/gate",), proxy_command="nc -x socks:1080 %h %p"),
)
FAR = Host(
    name="far",
    address="10.9.0.1",
    user="deploy",
    auth=AuthMethod.AGENT,
    ssh=SSHOptions(
        identity_files=("/k/a", "/k/b"),
        certificate_files=("/k/a-cert.pub",),
        identities_only=True,
        identity_agent="none",
        known_hosts=(),
        host_key_alias="far.alias",
        accept_new_host_keys=True,
        jumps=(GATE, Host(name="inner", address="10.0.0.2", user="ops")),
    ),
)


def test_options_round_trip_through_json_the_library_and_exports(library: Library) -> None:
    assert ssh_options_from_json(json.loads(json.dumps(ssh_options_json(FAR.ssh)))) == FAR.ssh
    assert ssh_options_json(SSHOptions()) == {}
    add_host(library, FAR)
    assert get_host(library, "far") == FAR
    assert host_from_payload(json.loads(json.dumps(host_payload(FAR)))) == FAR
    plain = Host(name="plain", address="10.0.0.9")
    assert "ssh" not in host_payload(plain)  # older files read back byte for byte


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"identity_files": "/k/a"},
        {"identity_files": [1]},
        {"jumps": [{"name": "x", "address": "$(id)"}]},
        {"jumps": [{"name": "x", "address": "10.0.0.1", "port": 70000}]},
        {"jumps": [{"address": "10.0.0.1"}]},
        {"jumps": [{"name": "x", "address": "10.0.0.1"}] * 17},
        {"proxy_command": "a\0b"},
    ],
)
def test_bad_options_are_refused(data: object) -> None:
    with pytest.raises(ValueError, match=r"SSH options|invalid"):
        ssh_options_from_json(data)


def test_an_edit_keeps_the_config_options_unless_it_picks_a_jump_host(library: Library) -> None:
    add_host(library, FAR)
    add_host(library, Host(name="bastion", address="10.0.0.3"))
    form = HostForm(name="far", address="10.9.0.2", user="deploy")
    edited, _ = save_edited_host(library, "far", form, None)
    assert edited.address == "10.9.0.2" and edited.ssh == FAR.ssh
    form = HostForm(name="far", address="10.9.0.2", user="deploy", jump="bastion")
    edited, _ = save_edited_host(library, "far", form, None)
    assert edited.jump == "bastion"
    assert edited.ssh.jumps == () and edited.ssh.identity_files == FAR.ssh.identity_files
    assert get_host(library, "far") == edited


def test_a_rename_keeps_the_options_and_the_pins_of_a_hop_of_the_old_name(
    library: Library,
) -> None:
    """A stored host ``gate`` shares its pins with the hop ``gate`` of ``far`` (hop keys are
    pinned under the hop's name): renaming the host leaves the hop its keys."""
    add_host(library, FAR)
    add_host(library, GATE)
    add_host(library, Host(name="solo", address="10.0.0.4"))
    for name in ("gate", "solo"):
        pin_host_key(library, name, f"ssh-ed25519 AAAA{name}")
    rename_host(library, "gate", "gate-2")
    rename_host(library, "far", "far-2")
    assert get_host(library, "gate-2").ssh == GATE.ssh
    assert get_host(library, "far-2").ssh == FAR.ssh  # its hop is still called gate
    assert pinned_host_keys(library, "gate-2") == ["ssh-ed25519 AAAAgate"]
    assert pinned_host_keys(library, "gate") == ["ssh-ed25519 AAAAgate"]  # the hop's
    rename_host(library, "solo", "solo-2")  # no hop of that name: the pins move
    assert pinned_host_keys(library, "solo-2") == ["ssh-ed25519 AAAAsolo"]
    assert pinned_host_keys(library, "solo") == []


def test_cli_jump_options_replace_the_config_route(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        add_host(lib, FAR)
        add_host(lib, Host(name="bastion", address="10.0.0.3"))
    out = io.StringIO()
    env = Environment(stdout=out, stderr=io.StringIO(), environ={})
    argv = ["--library", str(library_path), "hosts", "show", "far"]
    assert run_cli(argv, env) == 0
    shown = out.getvalue()
    for text in ("key file  /k/a", "key file  /k/b", "key alias far.alias", "known     none"):
        assert text in shown
    assert "jump      gate: ops@198.51.100.1:2222 (ProxyCommand)" in shown
    argv = ["--library", str(library_path), "hosts", "edit", "far", "--no-jump"]
    assert run_cli(argv, env) == 0
    with Library.open(library_path) as lib:
        far = get_host(lib, "far")
    assert far.ssh.jumps == () and far.ssh.proxy_command is None and far.jump is None


def test_how_a_host_reads() -> None:
    assert describe_host(FAR) == (
        "deploy@10.9.0.1:22, 2 key files, via gate > inner (ProxyCommand)"
    )
    assert route_text(Host(name="c", address="h", ssh=SSHOptions(proxy_command="x"))) == (
        "ProxyCommand"
    )
    agent = Host(name="a", address="h", user="u", ssh=SSHOptions(identity_files=("/k",)))
    assert describe_host(agent) == "u@h:22, ssh-agent + 1 key file"
    assert ssh_option_lines(Host(name="p", address="h")) == []
