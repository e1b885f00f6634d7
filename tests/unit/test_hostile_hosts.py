"""Hostile host and pair commands (issue 26): names reserved for this computer, shell
payloads, options smuggled as values, control characters, overlong values, bad ports, users,
key files (a FIFO, a device) and jump hosts; each refused in one line, the library's tables
unchanged and no payload run, in bounded time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hostilekit import (
    MARK,
    assert_refused,
    copy_library,
    make_template,
    refused_here,
    run_here_unblocking,
    snapshot,
)

M = "{M}"  # replaced by the marker file's path
SUB, TICK = f"$(touch {M})", f"`touch {M}`"
LONG = "h" * 10_000


def _add(name: str, *more: str) -> tuple[str, ...]:
    return ("hosts", "add", "--address", "10.0.0.9", *more, "--", name)


def _add_at(address: str, *more: str) -> tuple[str, ...]:
    return ("hosts", "add", f"--address={address}", *more, "--", "h9")


def _pair(name: str, client: str = "h1", server: str = "h2", *more: str) -> tuple[str, ...]:
    return ("pairs", "add", "--client", client, "--server", server, *more, "--", name)


COMMANDS: dict[str, tuple[str, ...]] = {
    # reserved names
    "host named local": _add("local"),
    "host named LOCAL": _add("LOCAL"),
    "host named localhost": _add("localhost"),
    "host named LocalHost": _add("LocalHost"),
    "pair named local": _pair("local"),
    "pair named Local": _pair("Local"),
    "pair named localhost": _pair("localhost"),
    "host renamed to local": ("hosts", "rename", "h1", "local"),
    "host renamed to LOCALHOST": ("hosts", "rename", "h1", "LOCALHOST"),
    "pair renamed to local": ("pairs", "rename", "p1", "local"),
    "built-in host renamed": ("hosts", "rename", "localhost", "mine"),
    "built-in pair renamed": ("pairs", "rename", "local", "mine"),
    "built-in host edited": ("hosts", "edit", "localhost", "--address", "192.0.2.55"),
    "built-in pair edited": ("pairs", "edit", "local", "--description", "x"),
    "built-in host removed": ("hosts", "remove", "localhost"),
    "built-in pair removed": ("pairs", "remove", "local"),
    "jump through this computer": _add("h9", "--jump", "localhost"),
    # hostile names
    "host name $(...)": _add(SUB),
    "host name in backticks": _add(TICK),
    "host name with ;": _add(f"x;touch {M}"),
    "host name an option": _add("-oProxyCommand=touch"),
    "host name of 10000 characters": _add(LONG),
    "host name with a newline": _add("a\nb"),
    "host name with an escape sequence": _add("a\x1b[31mred"),
    "host name with a bidi override": _add("a\u202eb"),
    "host name empty": _add(""),
    "pair name $(...)": _pair(SUB),
    "pair of a payload client": _pair("p9", SUB),
    "pair of a payload server": _pair("p9", "h1", TICK),
    "host renamed to a payload": ("hosts", "rename", "h1", SUB),
    "pair renamed to 10000 characters": ("pairs", "rename", "p1", LONG),
    "unknown host renamed": ("hosts", "rename", SUB, "h9"),
    "host renamed onto another": ("hosts", "rename", "h1", "h2"),
    # addresses
    "address $(...)": _add_at(SUB),
    "address with ;": _add_at(f"10.0.0.9;touch {M}"),
    "address an option": _add_at("-oProxyCommand=touch"),
    "address with a space": _add_at("10.0.0.9 -p 2"),
    "address of 300 characters": _add_at("a" * 300 + ".example"),
    "address 256.1.1.1": _add_at("256.1.1.1"),
    "address with a bad IPv6 scope": _add_at(f"fe80::1%{SUB}"),
    "edited address $(...)": ("hosts", "edit", "h1", "--address", SUB),
    "data address with ;": _pair("p9", "h1", "h2", "--data-address", f"10.0.0.2;touch {M}"),
    # ports
    "port 0": _add("h9", "--port", "0"),
    "port 65536": _add("h9", "--port", "65536"),
    "port -1": _add("h9", "--port=-1"),
    "port with ;": _add("h9", "--port", f"22;touch {M}"),
    "port 1e3": _add("h9", "--port", "1e3"),
    "port of 30 digits": _add("h9", "--port", "9" * 30),
    # users
    "user $(...)": _add("h9", "--user", SUB),
    "user an option": _add("h9", "--user=-oProxyCommand=x"),
    "user of 40 characters": _add("h9", "--user", "u" * 40),
    "user with a newline": _add("h9", "--user", "ro\not"),
    # key files
    "key path $(...)": _add("h9", "--key", SUB),
    "key /dev/zero": _add("h9", "--key", "/dev/zero"),
    "key a directory": _add("h9", "--key", "/"),
    "key path of 5000 characters": _add("h9", "--key", "/" + "k" * 5000),
    # jumps, descriptions, tags
    "jump $(...)": _add("h9", "--jump", SUB),
    "jump unknown": _add("h9", "--jump", "nowhere"),
    "description with a newline": _pair("p9", "h1", "h2", "--description", "a\nb"),
    "description of 300 characters": _pair("p9", "h1", "h2", "--description", "d" * 300),
    "tag key with a space": _add("h9", "--tag", "a b=1"),
    "tag value with a newline": _add("h9", "--tag", "k=a\nb"),
    # commands that name a host or pair to run on
    "run on a payload pair": ("run", "--pair", SUB, "--tool", "ping"),
    "storage on a payload host": (
        "storage",
        "run",
        "--host",
        SUB,
        "--test",
        "iops",
        "--target",
        "/tmp",
        "--size",
        "1MiB",
    ),
    "import onto a payload pair": ("import", "iperf3", "{OUTPUT}", "--pair", SUB),
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_template(tmp_path_factory.mktemp("hostile-hosts"))


def test_there_are_at_least_forty_hostile_host_and_pair_commands() -> None:
    assert len(COMMANDS) >= 40


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_hostile_host_or_pair_command_is_refused(
    name: str, template: Path, tmp_path: Path
) -> None:
    output = str(Path(__file__).parents[1] / "data" / "fixtures" / "iperf3" / "tcp_t5.out")
    argv = [
        part.replace(M, str(tmp_path / MARK)).replace("{OUTPUT}", output) for part in COMMANDS[name]
    ]
    refused_here(template, tmp_path, argv)


@pytest.mark.timeout(60)
def test_a_fifo_key_or_ssh_config_does_not_block(template: Path, tmp_path: Path) -> None:
    library = copy_library(template, tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    before = snapshot(library)
    for argv in (
        ("hosts", "add", "h9", "--address", "10.0.0.9", "--key", str(fifo)),
        ("hosts", "import-ssh-config", str(fifo)),
    ):
        outcome = run_here_unblocking(library, fifo, *argv)
        assert_refused(outcome, before, library, tmp_path)
        assert "not a regular file" in outcome.err
