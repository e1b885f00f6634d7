"""Typed queries on hosts and pairs."""

from __future__ import annotations

import json
import sqlite3

from pairbench.domain import AuthMethod, Host, HostPair
from pairbench.domain.hosts import (
    LOCAL_PAIR,
    RESERVED_NAMES,
    is_builtin_pair,
    is_reserved_name,
)
from pairbench.domain.ssh_options_json import ssh_options_from_json, ssh_options_json
from pairbench.library.codec import dumps, loads_str_map
from pairbench.library.connection import Library, LibraryError, write_transaction

_HOST_COLUMNS = "id, name, address, port, user, auth, key_path, jump, tags, ssh"


def list_hosts(lib: Library) -> list[Host]:
    """All hosts by name."""
    rows = lib.conn.execute(f"SELECT {_HOST_COLUMNS} FROM hosts ORDER BY name").fetchall()
    return [_row_to_host(row) for row in rows]


def get_host(lib: Library, name: str) -> Host:
    """The host with this name; ``LibraryError`` if there is none."""
    row = lib.conn.execute(f"SELECT {_HOST_COLUMNS} FROM hosts WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise LibraryError(f"no host named {name!r}")
    return _row_to_host(row)


def add_host(lib: Library, host: Host) -> None:
    """Store a new host; a name already taken, or one that means this computer
    (``domain.hosts.RESERVED_NAMES``), raises ``LibraryError``."""
    if is_reserved_name(host.name):
        raise LibraryError(f"the host name {host.name!r} is reserved: it means this computer")
    try:
        lib.conn.execute(
            "INSERT INTO hosts (name, address, port, user, auth, key_path, jump, tags, ssh) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                host.name,
                host.address,
                host.port,
                host.user,
                host.auth.value,
                host.key_path,
                host.jump,
                dumps(host.tags),
                dumps(ssh_options_json(host.ssh)),
            ),
        )
    except sqlite3.IntegrityError as exc:
        raise LibraryError(f"a host named {host.name!r} already exists") from exc


def list_pairs(lib: Library) -> list[HostPair]:
    """All pairs by name."""
    names = [str(r[0]) for r in lib.conn.execute("SELECT name FROM pairs ORDER BY name")]
    return [get_pair(lib, name) for name in names]


def get_pair(lib: Library, name: str) -> HostPair:
    """The pair with this name, with both hosts; ``LibraryError`` if there is none."""
    row = lib.conn.execute(
        "SELECT p.name, p.data_address, p.description, p.tags, c.name, s.name FROM pairs p "
        "JOIN hosts c ON c.id = p.client_host_id JOIN hosts s ON s.id = p.server_host_id "
        "WHERE p.name = ?",
        (name,),
    ).fetchone()
    if row is None:
        known = ", ".join(str(r[0]) for r in lib.conn.execute("SELECT name FROM pairs"))
        raise LibraryError(f"no pair named {name!r} (known pairs: {known or 'none'})")
    pair_name, data_address, description, tags, client, server = row
    return HostPair(
        name=str(pair_name),
        client=get_host(lib, str(client)),
        server=get_host(lib, str(server)),
        data_address=None if data_address is None else str(data_address),
        description=str(description),
        tags=loads_str_map(str(tags)),
    )


def add_pair(lib: Library, pair: HostPair) -> None:
    """Store a new pair of two stored hosts; ``LibraryError`` for a name taken or reserved."""
    if is_reserved_name(pair.name):
        raise LibraryError(f"the pair name {pair.name!r} is reserved: it means this computer")
    client = _host_id(lib, pair.client.name)
    server = _host_id(lib, pair.server.name)
    try:
        lib.conn.execute(
            "INSERT INTO pairs (name, client_host_id, server_host_id, data_address, description, "
            "tags) VALUES (?, ?, ?, ?, ?, ?)",
            (pair.name, client, server, pair.data_address, pair.description, dumps(pair.tags)),
        )
    except sqlite3.IntegrityError as exc:
        raise LibraryError(f"a pair named {pair.name!r} already exists") from exc


def _host_id(lib: Library, name: str) -> int:
    row = lib.conn.execute("SELECT id FROM hosts WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise LibraryError(f"no host named {name!r}")
    return int(row[0])


def _row_to_host(row: tuple[object, ...]) -> Host:
    _id, name, address, port, user, auth, key_path, jump, tags, ssh = row
    return Host(
        name=str(name),
        address=str(address),
        port=int(str(port)),
        user=None if user is None else str(user),
        auth=AuthMethod(str(auth)),
        key_path=None if key_path is None else str(key_path),
        jump=None if jump is None else str(jump),
        tags=loads_str_map(str(tags)),
        ssh=ssh_options_from_json(json.loads(str(ssh or "{}"))),
    )


def remove_host(lib: Library, name: str) -> None:
    """Delete a host; refuses the built-in one and hosts still used by a pair."""
    host_id = _host_id(lib, name)
    if get_host(lib, name).is_local:
        raise LibraryError("the built-in host 'localhost' cannot be removed")
    used = [
        str(r[0])
        for r in lib.conn.execute(
            "SELECT name FROM pairs WHERE client_host_id = ? OR server_host_id = ?",
            (host_id, host_id),
        )
    ]
    if used:
        raise LibraryError(f"host {name!r} is used by pair(s) {', '.join(used)}; remove them first")
    jumped = [str(r[0]) for r in lib.conn.execute("SELECT name FROM hosts WHERE jump = ?", (name,))]
    if jumped:
        raise LibraryError(
            f"host {name!r} is the jump host of {', '.join(jumped)}; change them first"
        )
    lib.conn.execute("DELETE FROM hosts WHERE id = ?", (host_id,))
    lib.conn.execute("DELETE FROM host_keys WHERE host_name = ?", (name,))


def remove_pair(lib: Library, name: str) -> None:
    """Delete a pair (its runs stay in the library); refuses the built-in pair."""
    get_pair(lib, name)
    if name == "local":
        raise LibraryError("the built-in pair 'local' cannot be removed")
    lib.conn.execute("DELETE FROM pairs WHERE name = ?", (name,))


def replace_host(lib: Library, host: Host) -> None:
    """Update a stored host's fields (matched by name)."""
    _host_id(lib, host.name)
    lib.conn.execute(
        "UPDATE hosts SET address = ?, port = ?, user = ?, auth = ?, key_path = ?, jump = ?, "
        "tags = ?, ssh = ? WHERE name = ?",
        (
            host.address,
            host.port,
            host.user,
            host.auth.value,
            host.key_path,
            host.jump,
            dumps(host.tags),
            dumps(ssh_options_json(host.ssh)),
            host.name,
        ),
    )


def replace_pair(lib: Library, pair: HostPair) -> None:
    """Update a stored pair's fields (matched by name)."""
    get_pair(lib, pair.name)
    lib.conn.execute(
        "UPDATE pairs SET client_host_id = ?, server_host_id = ?, data_address = ?, "
        "description = ?, tags = ? WHERE name = ?",
        (
            _host_id(lib, pair.client.name),
            _host_id(lib, pair.server.name),
            pair.data_address,
            pair.description,
            dumps(pair.tags),
            pair.name,
        ),
    )


def pinned_host_keys(lib: Library, host_name: str) -> list[str]:
    """The host's pinned public keys in OpenSSH form ("ssh-ed25519 AAAA...")."""
    rows = lib.conn.execute(
        "SELECT key FROM host_keys WHERE host_name = ? ORDER BY added_at", (host_name,)
    )
    return [str(r[0]) for r in rows]


def pin_host_key(lib: Library, host_name: str, key: str) -> None:
    """Pin a public host key for a host (idempotent)."""
    import time

    lib.conn.execute(
        "INSERT OR IGNORE INTO host_keys (host_name, key, added_at) VALUES (?, ?, ?)",
        (host_name, key.strip(), time.time()),
    )


def unpin_host_keys(lib: Library, host_name: str) -> None:
    """Forget every pinned key of a host (after the user checked a legitimate key change)."""
    lib.conn.execute("DELETE FROM host_keys WHERE host_name = ?", (host_name,))


def rename_host(lib: Library, old: str, new: str) -> None:
    """Give a stored host another name (checked by the caller): its pinned keys, the hosts
    that jump through it and its storage suites follow; the built-in host stays. A suite
    stored on host ``local`` ran on this computer (``--host local``), so it keeps that name.
    Its OpenSSH options (``hosts.ssh``) stay with it; a ProxyJump hop of another host is kept
    in that host (by its alias, not a stored host), so when a hop has the old name too, whose
    keys are pinned under it, the pinned keys are copied rather than moved."""
    host = get_host(lib, old)
    if host.is_local:
        raise LibraryError(f"the built-in host {old!r} cannot be renamed")
    if is_reserved_name(new):
        raise LibraryError(f"the host name {new!r} is reserved: it means this computer")
    hop_named = any(hop.name == old for h in list_hosts(lib) for hop in h.ssh.jumps)
    conn = lib.conn
    try:
        with write_transaction(conn):
            conn.execute("UPDATE hosts SET name = ? WHERE name = ?", (new, old))
            conn.execute("UPDATE hosts SET jump = ? WHERE jump = ?", (new, old))
            conn.execute(  # a hop's keys pinned under the new name already are kept
                "INSERT OR IGNORE INTO host_keys (host_name, key, added_at) "
                "SELECT ?, key, added_at FROM host_keys WHERE host_name = ?",
                (new, old),
            )
            if not hop_named:
                conn.execute("DELETE FROM host_keys WHERE host_name = ?", (old,))
            if old != LOCAL_PAIR.name:
                conn.execute("UPDATE suites SET host = ? WHERE host = ?", (new, old))
    except sqlite3.IntegrityError as exc:
        raise LibraryError(f"a host named {new!r} already exists") from exc


def rename_pair(lib: Library, old: str, new: str) -> None:
    """Give a stored pair another name (checked by the caller); its runs follow (their pair
    is this one). The built-in pair stays."""
    if is_builtin_pair(get_pair(lib, old)):
        raise LibraryError(f"the built-in pair {old!r} cannot be renamed")
    if is_reserved_name(new):
        raise LibraryError(f"the pair name {new!r} is reserved: it means this computer")
    conn = lib.conn
    try:
        with write_transaction(conn):
            conn.execute("UPDATE pairs SET name = ? WHERE name = ?", (new, old))
            conn.execute("UPDATE runs SET pair = ? WHERE pair = ?", (new, old))
    except sqlite3.IntegrityError as exc:
        raise LibraryError(f"a pair named {new!r} already exists") from exc


def reserved_name_problems(lib: Library) -> list[str]:
    """Stored hosts and pairs (other than the built-in ones) whose names mean this computer,
    each in a line saying what to do: what a library written before names were reserved may
    hold (``--host local`` would run on this computer, not on that host)."""
    problems: list[str] = []
    reserved = ", ".join(f"'{name}'" for name in sorted(RESERVED_NAMES))
    query = f"SELECT name FROM {{}} WHERE lower(name) IN ({reserved}) ORDER BY name"
    for (name,) in lib.conn.execute(query.format("hosts")).fetchall():
        host = get_host(lib, str(name))
        if not host.is_local:
            problems.append(
                f"the host {host.name!r} ({host.address}) has a name reserved for this computer "
                f"(`--host {LOCAL_PAIR.name}` runs here, not there); rename it with "
                f"`pairbench hosts rename {host.name} NEW-NAME`"
            )
    for (name,) in lib.conn.execute(query.format("pairs")).fetchall():
        if not is_builtin_pair(get_pair(lib, str(name))):
            problems.append(
                f"the pair {name!r} has a name reserved for this computer; rename it with "
                f"`pairbench pairs rename {name} NEW-NAME`"
            )
    return problems
