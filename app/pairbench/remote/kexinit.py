"""Why a key exchange failed: the server's KEXINIT lists against ours (no algorithm in common)."""

from __future__ import annotations

import struct
from collections.abc import Mapping

from pairbench.domain.failures import NoCommonAlgorithmError

# A KEXINIT's name-lists (RFC 4253 §7.1): key exchange, host key, then cipher, MAC and
# compression once per direction (client to server, server to client), then two languages.
_KEXINIT_LISTS = 10
# Names added to key exchange lists that are markers, not methods.
_KEX_MARKERS = frozenset(
    {"ext-info-s", "ext-info-c", "kex-strict-s-v00@openssh.com", "kex-strict-c-v00@openssh.com"}
)


def parse_kexinit(payload: bytes) -> list[list[str]] | None:
    """The name-lists of an SSH_MSG_KEXINIT payload (type byte 20, 16-byte cookie, ten lists);
    None when it is not one."""
    if len(payload) < 17 or payload[0] != 20:
        return None
    lists: list[list[str]] = []
    offset = 17
    for _ in range(_KEXINIT_LISTS):
        if offset + 4 > len(payload):
            return None
        (length,) = struct.unpack_from(">I", payload, offset)
        offset += 4
        raw = payload[offset : offset + length]
        if len(raw) != length:
            return None
        offset += length
        lists.append([n for n in raw.decode("ascii", "replace").split(",") if n])
    return lists


def _needs_mac(cipher: str) -> bool:
    return not (cipher.endswith("-gcm@openssh.com") or cipher.startswith("chacha20-poly1305"))


def negotiation_failure(
    conn: object, host_name: str, hint_for: Mapping[str, str] | None = None
) -> NoCommonAlgorithmError | None:
    """Why the key exchange of ``conn`` could not agree, from the server's KEXINIT; else None.

    Reads what asyncssh keeps of a connection whose key exchange failed: the server's KEXINIT
    payload (``_server_kexinit``, kept for the exchange hash) and our own lists. None when
    those are absent (the server said nothing) or every kind has a common algorithm.
    """
    payload = getattr(conn, "_server_kexinit", None)
    offered = parse_kexinit(bytes(payload)) if payload else None
    if offered is None:
        return None

    def ours(attribute: str) -> list[str]:
        value = getattr(conn, attribute, None) or []
        return [a.decode("ascii", "replace") if isinstance(a, bytes) else str(a) for a in value]

    kex, host_key = ours("_kex_algs"), ours("_server_host_key_algs")
    ciphers, macs, compressions = ours("_enc_algs"), ours("_mac_algs"), ours("_cmp_algs")
    hints = hint_for or {}
    server_kex = [a for a in offered[0] if a not in _KEX_MARKERS]
    checks: list[tuple[str, list[str], list[str]]] = [
        ("key exchange method", server_kex, [a for a in kex if a not in _KEX_MARKERS]),
        ("host key type", offered[1], host_key),
    ]
    for direction in (0, 1):
        server_ciphers = offered[2 + direction]
        checks.append(("cipher", server_ciphers, ciphers))
        common = [c for c in ciphers if c in server_ciphers]
        if common and _needs_mac(common[0]):
            checks.append(("MAC", offered[4 + direction], macs))
        checks.append(("compression", offered[6 + direction], compressions))
    for kind, theirs, mine in checks:
        if theirs and mine and not set(theirs) & set(mine):
            return NoCommonAlgorithmError(host_name, kind, theirs, mine, hints.get(kind, ""))
    return None
