"""Validators for names, addresses, ports, users and tags: good values pass, hostile ones fail."""

from __future__ import annotations

import pytest

from pairbench.domain.validation import (
    check_address,
    check_description,
    check_name,
    check_port,
    check_tag,
    check_user,
    parse_tag,
)

HOSTILE = [
    "",
    " ",
    "a b",
    "web1;reboot",
    "$(id)",
    "${HOME}",
    "`id`",
    "'web1'",
    '"web1"',
    "web1\n",
    "web1\nweb2",
    "web1\r",
    "web1\x00",
    "web1\x1b[31m",
    "-oProxyCommand=id",
    "-web1",
    "web1|id",
    "web1&",
    "web1>x",
    "../etc",
    "(web1)",
]


@pytest.mark.parametrize("value", ["web1", "a", "A-1.b_c", "0", "x" * 64, "aws.eu-west-1.c5"])
def test_good_names(value: str) -> None:
    assert check_name("host", value) == value


@pytest.mark.parametrize("value", [*HOSTILE, "x" * 65, ".hidden", "_x", "é", "a/b", "a:b"])
def test_hostile_names_are_refused(value: str) -> None:
    with pytest.raises(ValueError) as info:
        check_name("host", value)
    message = str(info.value)
    assert "host name" in message
    assert "\n" not in message  # one line, control characters escaped


@pytest.mark.parametrize(
    "value",
    [
        "10.0.0.5",
        "127.0.0.1",
        "255.255.255.255",
        "::1",
        "fe80::1",
        "2001:db8::42",
        "fe80::1%eth0",
        "::ffff:10.0.0.1",
        "localhost",
        "web1",
        "web-1.example.com",
        "web-1.example.com.",
        "ip-10-0-0-5.eu-west-1.compute.internal",
        "a" * 63 + ".example.com",
        "xn--bcher-kva.example",
        "3com.net",
    ],
)
def test_good_addresses(value: str) -> None:
    assert check_address(value) == value


@pytest.mark.parametrize(
    "value",
    [
        *HOSTILE,
        "10.0.0.256",
        "1.2.3",
        "01.2.3.4",
        "1.2.3.4 ",
        "fe80::1%$(id)",
        "fe80::1%",
        "::g",
        "1:2:3:4:5:6:7:8:9",
        "[::1]",
        "a" * 64 + ".example.com",
        ("a" * 60 + ".") * 5 + "com",
        "web_1.example.com",
        "web1..example.com",
        "web1-.example.com",
        "example.123",
        ".",
        "user@web1",
        "web1:22",
        "web1,web2",
        "*.example.com",
        "web1#",
        "web1\t",
    ],
)
def test_hostile_addresses_are_refused(value: str) -> None:
    with pytest.raises(ValueError) as info:
        check_address(value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(("value", "port"), [(1, 1), (22, 22), (65535, 65535), ("2222", 2222)])
def test_good_ports(value: int | str, port: int) -> None:
    assert check_port(value) == port


@pytest.mark.parametrize(
    "value", [0, -1, 65536, "0", "65536", "", " 22", "22 ", "+22", "2_2", "0x16", "22;id", True]
)
def test_bad_ports(value: int | str) -> None:
    with pytest.raises(ValueError, match="port"):
        check_port(value)


@pytest.mark.parametrize("value", ["root", "ubuntu", "ec2-user", "_svc", "Admin", "a.b", "u" * 32])
def test_good_users(value: str) -> None:
    assert check_user(value) == value


@pytest.mark.parametrize(
    "value", [*HOSTILE, "u" * 33, "1root", ".user", "user@host", "user:pw", "usér"]
)
def test_hostile_users_are_refused(value: str) -> None:
    with pytest.raises(ValueError, match="user name"):
        check_user(value)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("cloud", "aws"),
        ("region", "eu-west-1"),
        ("instance.type", "c5.large"),
        ("note", "two boxes, same AZ; placement=cluster (test #3)"),
        ("empty", ""),
        ("v", "x" * 128),
        ("k" * 32, "ü"),
    ],
)
def test_good_tags(key: str, value: str) -> None:
    assert check_tag(key, value) == (key, value)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("", "x"),
        ("k" * 33, "x"),
        ("a b", "x"),
        ("a=b", "x"),
        ("$(id)", "x"),
        ("k;", "x"),
        ("k", "line\nbreak"),
        ("k", "tab\there"),
        ("k", "bell\x07"),
        ("k", "esc\x1b[2J"),
        ("k", "x" * 129),
    ],
)
def test_hostile_tags_are_refused(key: str, value: str) -> None:
    with pytest.raises(ValueError, match="tag"):
        check_tag(key, value)


def test_parse_tag_needs_key_equals_value() -> None:
    assert parse_tag("cloud=aws") == ("cloud", "aws")
    assert parse_tag("expr=a=b") == ("expr", "a=b")
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_tag("cloud")
    with pytest.raises(ValueError, match="tag key"):
        parse_tag("=aws")


def test_description() -> None:
    assert check_description("Two c5.large in eu-west-1a") == "Two c5.large in eu-west-1a"
    assert check_description("") == ""
    for bad in ["a\nb", "x" * 257, "\x1b[2J"]:
        with pytest.raises(ValueError, match="description"):
            check_description(bad)
