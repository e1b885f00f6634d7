"""Just enough netfilter netlink for the delay line: an nftables queue rule, an NFQUEUE socket."""

from __future__ import annotations

import errno
import os
import socket
import struct
from collections.abc import Iterator, Sequence

NETLINK_NETFILTER = 12
SOL_NETLINK = 270
NETLINK_NO_ENOBUFS = 5
SO_RCVBUFFORCE = 33

NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_CREATE = 0x400
NLM_F_APPEND = 0x800
NLA_F_NESTED = 0x8000
NLA_TYPE_MASK = 0x3FFF

NFNL_SUBSYS_QUEUE = 3
NFNL_SUBSYS_NFTABLES = 10
NFNL_MSG_BATCH_BEGIN = 0x10
NFNL_MSG_BATCH_END = 0x11
NFPROTO_IPV4 = 2

# nfnetlink_queue
NFQNL_MSG_PACKET = 0
NFQNL_MSG_VERDICT = 1
NFQNL_MSG_CONFIG = 2
NFQNL_MSG_VERDICT_BATCH = 3
NFQA_PACKET_HDR = 1
NFQA_VERDICT_HDR = 2
NFQA_TIMESTAMP = 4
NFQA_CFG_CMD = 1
NFQA_CFG_PARAMS = 2
NFQA_CFG_QUEUE_MAXLEN = 3
NFQA_CFG_MASK = 4
NFQA_CFG_FLAGS = 5
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NFQA_CFG_F_GSO = 1 << 2
NF_DROP = 0
NF_ACCEPT = 1

# nf_tables
NFT_MSG_NEWTABLE = 0
NFT_MSG_DELTABLE = 2
NFT_MSG_NEWCHAIN = 3
NFT_MSG_NEWRULE = 6
NFTA_TABLE_NAME = 1
NFTA_TABLE_FLAGS = 2
NFT_TABLE_F_OWNER = 2
NFTA_CHAIN_TABLE = 1
NFTA_CHAIN_NAME = 3
NFTA_CHAIN_HOOK = 4
NFTA_CHAIN_POLICY = 5
NFTA_CHAIN_TYPE = 7
NFTA_HOOK_HOOKNUM = 1
NFTA_HOOK_PRIORITY = 2
NF_INET_PRE_ROUTING = 0
NFTA_RULE_TABLE = 1
NFTA_RULE_CHAIN = 2
NFTA_RULE_EXPRESSIONS = 4
NFTA_LIST_ELEM = 1
NFTA_EXPR_NAME = 1
NFTA_EXPR_DATA = 2
NFTA_META_DREG = 1
NFTA_META_KEY = 2
NFT_META_IIFNAME = 6
NFT_REG_1 = 1
NFTA_CMP_SREG = 1
NFTA_CMP_OP = 2
NFTA_CMP_DATA = 3
NFT_CMP_EQ = 0
NFTA_DATA_VALUE = 1
NFTA_QUEUE_NUM = 1
NFTA_QUEUE_TOTAL = 2
NFTA_QUEUE_FLAGS = 3
NFT_QUEUE_FLAG_BYPASS = 1
NFTA_TARGET_NAME = 1
NFTA_TARGET_REV = 2
NFTA_TARGET_INFO = 3
NFQ_FLAG_BYPASS = 1
IFNAMSIZ = 16

_HEADER = struct.Struct("=IHHII")
_ATTR = struct.Struct("=HH")
_PACKET_TYPE = (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET


class NetlinkError(OSError):
    """The kernel refused a netlink request (``errno`` says why)."""


def attr(kind: int, payload: bytes) -> bytes:
    """One netlink attribute, padded to four bytes."""
    length = _ATTR.size + len(payload)
    return _ATTR.pack(length, kind) + payload + b"\0" * (-length % 4)


def nested(kind: int, *attrs: bytes) -> bytes:
    """A nested attribute holding ``attrs``."""
    return attr(kind | NLA_F_NESTED, b"".join(attrs))


def strz(text: str) -> bytes:
    """A NUL-terminated string payload."""
    return text.encode() + b"\0"


def be32(value: int) -> bytes:
    """A big-endian u32 payload (netfilter's byte order)."""
    return struct.pack(">I", value & 0xFFFFFFFF)


def be16(value: int) -> bytes:
    """A big-endian u16 payload."""
    return struct.pack(">H", value)


def message(kind: int, flags: int, seq: int, family: int, res_id: int, payload: bytes) -> bytes:
    """A netfilter netlink message: nlmsghdr, nfgenmsg, attributes."""
    body = struct.pack("=BB", family, 0) + struct.pack(">H", res_id) + payload
    return _HEADER.pack(_HEADER.size + len(body), kind, flags, seq, 0) + body


def iter_messages(data: bytes | memoryview) -> Iterator[tuple[int, int, int, memoryview]]:
    """(type, flags, seq, body after the nlmsghdr) of each message in a datagram."""
    view = memoryview(data)
    offset = 0
    while offset + _HEADER.size <= len(view):
        length, kind, flags, seq, _pid = _HEADER.unpack_from(view, offset)
        if length < _HEADER.size:
            break
        yield kind, flags, seq, view[offset + _HEADER.size : offset + length]
        offset += (length + 3) & ~3


def error_code(body: memoryview) -> int:
    """The (negative) errno of an NLMSG_ERROR body; 0 is an acknowledgement."""
    return int(struct.unpack_from("=i", body, 0)[0])


class NetfilterSocket:
    """A NETLINK_NETFILTER socket in the current network namespace."""

    def __init__(self, rcvbuf: int = 0) -> None:
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        self.sock.bind((0, 0))
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf)
            self.sock.setsockopt(SOL_NETLINK, NETLINK_NO_ENOBUFS, 1)
        self._seq = 0

    def next_seq(self) -> int:
        """A fresh sequence number."""
        self._seq += 1
        return self._seq

    def fileno(self) -> int:
        """The socket's file descriptor (for select)."""
        return self.sock.fileno()

    def close(self) -> None:
        """Close the socket (an owned nftables table goes with it)."""
        self.sock.close()

    def send(self, data: bytes) -> None:
        """Send one datagram to the kernel."""
        self.sock.sendto(data, (0, 0))

    def transact(self, data: bytes, acks: Sequence[int], ignore: Sequence[int] = ()) -> None:
        """Send and wait (2 s at most) for the acknowledgement of each sequence in ``acks``.

        A refusal raises ``NetlinkError`` unless its errno is in ``ignore``.
        """
        self.send(data)
        waiting = set(acks)
        self.sock.settimeout(2.0)
        try:
            while waiting:
                reply = self.sock.recv(65536)
                for kind, _flags, seq, body in iter_messages(reply):
                    if kind != NLMSG_ERROR or seq not in waiting:
                        continue
                    waiting.discard(seq)
                    code = -error_code(body)
                    if code and code not in ignore:
                        raise NetlinkError(code, os.strerror(code))
        except TimeoutError as exc:
            raise NetlinkError(errno.ETIMEDOUT, "no answer from the kernel") from exc
        finally:
            self.sock.settimeout(None)


def _nft(kind: int) -> int:
    return (NFNL_SUBSYS_NFTABLES << 8) | kind


def _batch(
    sock: NetfilterSocket, bodies: Sequence[tuple[int, int, bytes]]
) -> tuple[bytes, list[int]]:
    """An nftables batch of (type, flags, payload) messages, each acknowledged."""
    parts = [
        message(NFNL_MSG_BATCH_BEGIN, NLM_F_REQUEST, sock.next_seq(), 0, NFNL_SUBSYS_NFTABLES, b"")
    ]
    seqs = []
    for kind, flags, payload in bodies:
        seq = sock.next_seq()
        seqs.append(seq)
        parts.append(
            message(_nft(kind), NLM_F_REQUEST | NLM_F_ACK | flags, seq, NFPROTO_IPV4, 0, payload)
        )
    parts.append(
        message(NFNL_MSG_BATCH_END, NLM_F_REQUEST, sock.next_seq(), 0, NFNL_SUBSYS_NFTABLES, b"")
    )
    return b"".join(parts), seqs


def delete_table(sock: NetfilterSocket, table: str) -> None:
    """Remove an ``ip`` nftables table if it exists."""
    data, seqs = _batch(sock, [(NFT_MSG_DELTABLE, 0, attr(NFTA_TABLE_NAME, strz(table)))])
    sock.transact(data, seqs, ignore=(errno.ENOENT,))


def install_queue_rule(sock: NetfilterSocket, table: str, iface: str, queue: int) -> bool:
    """``table ip TABLE { chain prerouting { type filter hook prerouting priority -300;
    iifname IFACE queue num QUEUE bypass } }``; True when ``sock`` owns it (it vanishes with
    the socket), False when the kernel cannot do that (then remove it with ``delete_table``).
    """
    delete_table(sock, table)
    name = attr(NFTA_TABLE_NAME, strz(table))
    chain = "prerouting"
    hook = nested(
        NFTA_CHAIN_HOOK,
        attr(NFTA_HOOK_HOOKNUM, be32(NF_INET_PRE_ROUTING)),
        attr(NFTA_HOOK_PRIORITY, be32(-300)),
    )
    padded = iface.encode().ljust(IFNAMSIZ, b"\0")[:IFNAMSIZ]
    match = (
        _expr(
            "meta",
            attr(NFTA_META_DREG, be32(NFT_REG_1)),
            attr(NFTA_META_KEY, be32(NFT_META_IIFNAME)),
        ),
        _expr(
            "cmp",
            attr(NFTA_CMP_SREG, be32(NFT_REG_1)),
            attr(NFTA_CMP_OP, be32(NFT_CMP_EQ)),
            nested(NFTA_CMP_DATA, attr(NFTA_DATA_VALUE, padded)),
        ),
    )
    native_queue = _expr(
        "queue",
        attr(NFTA_QUEUE_NUM, be16(queue)),
        attr(NFTA_QUEUE_TOTAL, be16(1)),
        attr(NFTA_QUEUE_FLAGS, be16(NFT_QUEUE_FLAG_BYPASS)),
    )
    # Kernels without nft_queue (CONFIG_NFT_QUEUE) may still have xt_NFQUEUE through nft_compat,
    # as iptables-nft uses it: struct xt_NFQ_info_v3 {u16 queuenum, queues_total, flags}.
    xt_info = struct.pack("=HHH", queue, 1, NFQ_FLAG_BYPASS).ljust(8, b"\0")
    compat_queue = _expr(
        "target",
        attr(NFTA_TARGET_NAME, strz("NFQUEUE")),
        attr(NFTA_TARGET_REV, be32(3)),
        attr(NFTA_TARGET_INFO, xt_info),
    )
    chain_payload = (
        attr(NFTA_CHAIN_TABLE, strz(table))
        + attr(NFTA_CHAIN_NAME, strz(chain))
        + hook
        + attr(NFTA_CHAIN_POLICY, be32(NF_ACCEPT))
        + attr(NFTA_CHAIN_TYPE, strz("filter"))
    )
    last_error: NetlinkError | None = None
    for queue_expr in (native_queue, compat_queue):
        rule = (
            attr(NFTA_RULE_TABLE, strz(table))
            + attr(NFTA_RULE_CHAIN, strz(chain))
            + nested(NFTA_RULE_EXPRESSIONS, *match, queue_expr)
        )
        # Kernels before 5.12 have no owner flag: then the daemon removes the table itself.
        for table_flags in (NFT_TABLE_F_OWNER, 0):
            data, seqs = _batch(
                sock,
                [
                    (
                        NFT_MSG_NEWTABLE,
                        NLM_F_CREATE,
                        name + attr(NFTA_TABLE_FLAGS, be32(table_flags)),
                    ),
                    (NFT_MSG_NEWCHAIN, NLM_F_CREATE, chain_payload),
                    (NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND, rule),
                ],
            )
            try:
                sock.transact(data, seqs)
                return table_flags == NFT_TABLE_F_OWNER
            except NetlinkError as exc:
                last_error = exc
                if exc.errno == errno.EOPNOTSUPP and table_flags:
                    continue
                if exc.errno == errno.ENOENT:
                    break  # no such expression: try the next way of queueing
                raise
    assert last_error is not None
    raise last_error


def _expr(name: str, *data: bytes) -> bytes:
    return nested(NFTA_LIST_ELEM, attr(NFTA_EXPR_NAME, strz(name)), nested(NFTA_EXPR_DATA, *data))


def _queue_type(kind: int) -> int:
    return (NFNL_SUBSYS_QUEUE << 8) | kind


def bind_queue(sock: NetfilterSocket, queue: int, maxlen: int) -> None:
    """Bind ``sock`` to NFQUEUE ``queue``: metadata only (no payload copy), GSO packets whole."""
    cmd = struct.pack("=BB", NFQNL_CFG_CMD_BIND, 0) + be16(socket.AF_INET)
    bind_seq = sock.next_seq()
    bind = message(_queue_type(NFQNL_MSG_CONFIG), NLM_F_REQUEST | NLM_F_ACK, bind_seq,
                   socket.AF_UNSPEC, queue, attr(NFQA_CFG_CMD, cmd))  # fmt: skip
    params = (
        attr(NFQA_CFG_PARAMS, struct.pack(">IB", 0, NFQNL_COPY_META))
        + attr(NFQA_CFG_QUEUE_MAXLEN, be32(maxlen))
        + attr(NFQA_CFG_MASK, be32(NFQA_CFG_F_GSO))
        + attr(NFQA_CFG_FLAGS, be32(NFQA_CFG_F_GSO))
    )
    params_seq = sock.next_seq()
    config = message(_queue_type(NFQNL_MSG_CONFIG), NLM_F_REQUEST | NLM_F_ACK, params_seq,
                     socket.AF_UNSPEC, queue, params)  # fmt: skip
    sock.transact(bind + config, [bind_seq, params_seq])


def verdict(queue: int, packet_id: int, accept: bool, batch: bool) -> bytes:
    """A verdict on one packet, or (``batch``) on every queued packet up to ``packet_id``."""
    kind = NFQNL_MSG_VERDICT_BATCH if batch else NFQNL_MSG_VERDICT
    payload = attr(
        NFQA_VERDICT_HDR, struct.pack(">II", NF_ACCEPT if accept else NF_DROP, packet_id)
    )
    return message(_queue_type(kind), NLM_F_REQUEST, 0, socket.AF_UNSPEC, queue, payload)


def queued_packets(data: bytes | memoryview) -> Iterator[tuple[int, float | None]]:
    """(id, arrival time) of each queued packet announced in a datagram from the kernel.

    The arrival time is the kernel's receive timestamp (``time.time()`` scale) when the packet
    has one (while some socket asks for timestamps), else None.
    """
    for kind, _flags, _seq, body in iter_messages(data):
        if kind != _PACKET_TYPE:
            continue
        packet_id: int | None = None
        stamp: float | None = None
        offset = 4  # nfgenmsg
        while offset + _ATTR.size <= len(body):
            length, attr_type = _ATTR.unpack_from(body, offset)
            if length < _ATTR.size:
                break
            attr_type &= NLA_TYPE_MASK
            if attr_type == NFQA_PACKET_HDR:
                packet_id = int(struct.unpack_from(">I", body, offset + _ATTR.size)[0])
            elif attr_type == NFQA_TIMESTAMP:
                sec, usec = struct.unpack_from(">QQ", body, offset + _ATTR.size)
                stamp = sec + usec / 1e6
            offset += (length + 3) & ~3
        if packet_id is not None:
            yield packet_id, stamp
