"""Our line reassembly, end to end: bytes written by a real program in arbitrary chunks become
exactly the lines the same bytes give when split at once.

Two readers are tested: ``LocalProcess._pump`` (``remote/local.py``: ``readuntil`` on an asyncio
pipe under the bash watchdog) and ``SSHProcess.lines`` (``remote/ssh_process.py``: asyncssh's
reader, through a real in-process SSH server on 127.0.0.1 whose host key is pinned).

The rule both implement (``reference_lines``): split at ``\\n``; decode each line as UTF-8 with
``errors="replace"`` (so a multibyte character cut by a chunk boundary is never replaced, only a
really invalid byte is); strip the trailing ``\\r``/``\\n``; a last line without ``\\n`` is a
line too. A ``\\r`` inside a line is kept: uperf rewrites its progress line with ``\\r`` and the
uperf parser splits at ``\\r`` itself (``tools/uperf_text.py``). A line longer than the reader's
limit comes in pieces that join to the line: nothing lost, nothing added, no character cut.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import shlex
import sys
import tempfile
from collections.abc import Sequence

import asyncssh
import pytest

from pairbench.domain import Line, LineSource
from pairbench.domain.hosts import AuthMethod, Host
from pairbench.remote import local
from pairbench.remote.host_keys import HostKeyPolicy, key_line
from pairbench.remote.launcher import PID_MARKER
from pairbench.remote.local import LocalTransport
from pairbench.remote.ssh import SSHTransport

OUT, ERR = 1, 2
Chunks = list[tuple[int, bytes]]  # (1 = stdout | 2 = stderr, bytes), in writing order

# Multibyte characters of 2, 3 and 4 bytes, "\r\n", empty lines, an invalid byte, a lone "\r",
# uperf's "\r"-rewritten progress line, and a last line without "\n".
SAMPLE = (
    (
        "[  5]   0.00-1.00   sec   112 MBytes   939 Mbits/sec    0   3.04 MBytes\n"
        "latin é ü ß, euro € ‰, cjk 漢字, emoji 😀🚀\r\n"
        "\n"
        "\r\n"
        "Timestamp: 0.00 sec\rTimestamp: 1.00 sec\rTimestamp: 2.00 sec\n"
        "trailing carriage returns\r\r\n"
        "lone \r in the middle\n"
    ).encode()
    + b"invalid \xff\xfe byte, cut \xe2\x82 sequence\n"
    + "no newline at the end ✓".encode()
)


def reference_lines(data: bytes) -> list[str]:
    """The lines of ``data`` split at once (the rule stated in the module docstring)."""
    parts = data.split(b"\n")
    if parts[-1] == b"":
        parts.pop()
    return [p.decode("utf-8", errors="replace").rstrip("\r\n") for p in parts]


def cut(data: bytes, rng: random.Random, max_cuts: int = 60) -> list[bytes]:
    """``data`` cut at random places."""
    if len(data) < 2:
        return [data]
    n = min(len(data) - 1, rng.randint(1, max_cuts))
    bounds = [0, *sorted(rng.sample(range(1, len(data)), n)), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def single_bytes(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


def interleave(out: list[bytes], err: list[bytes], rng: random.Random) -> Chunks:
    """Both streams' chunks in one random writing order (each stream's own order kept)."""
    chunks: Chunks = []
    i = j = 0
    while i < len(out) or j < len(err):
        if j >= len(err) or (i < len(out) and rng.random() < 0.5):
            chunks.append((OUT, out[i]))
            i += 1
        else:
            chunks.append((ERR, err[j]))
            j += 1
    return chunks


def split_by_source(
    lines: Sequence[Line], out: LineSource, err: LineSource
) -> dict[int, list[str]]:
    got: dict[int, list[str]] = {OUT: [], ERR: []}
    for line in lines:
        assert line.source in (out, err), line
        got[OUT if line.source is out else ERR].append(line.text)
    return got


# --------------------------------------------------------------------------- local (pipes)

# Writes each chunk to its stream, flushed, with a tiny sleep between, so that the reader gets
# them one by one (a pipe read returns what is there).
EMITTER = """
import json, os, sys, time
with open(sys.argv[1], encoding="ascii") as f:
    spec = json.load(f)
pause = spec["pause"]
for fd, hexdata in spec["chunks"]:
    data = bytes.fromhex(hexdata)
    while data:
        data = data[os.write(fd, data):]
    if pause:
        time.sleep(pause)
"""


def spec_json(chunks: Chunks, pause: float) -> str:
    return json.dumps({"pause": pause, "chunks": [[fd, c.hex()] for fd, c in chunks]})


async def _run_local(chunks: Chunks, pause: float) -> tuple[list[Line], int]:
    transport = LocalTransport()
    with tempfile.NamedTemporaryFile("w", encoding="ascii", suffix=".json") as spec:
        spec.write(spec_json(chunks, pause))
        spec.flush()
        proc = await transport.start(
            [sys.executable, "-c", EMITTER, spec.name],
            stdout=LineSource.CLIENT_OUT,
            stderr=LineSource.CLIENT_ERR,
            tag="reassembly",
        )
        lines = [line async for line in proc.lines()]
        return lines, await proc.wait()


def run_local(chunks: Chunks, pause: float = 0.001) -> dict[int, list[str]]:
    lines, status = asyncio.run(asyncio.wait_for(_run_local(chunks, pause), 120))
    assert status == 0
    return split_by_source(lines, LineSource.CLIENT_OUT, LineSource.CLIENT_ERR)


def test_reference_rule() -> None:
    """What the rule gives for the sample: the expectations below depend on it."""
    lines = reference_lines(SAMPLE)
    assert lines[1] == "latin é ü ß, euro € ‰, cjk 漢字, emoji 😀🚀"
    assert lines[2:4] == ["", ""]
    assert lines[4] == "Timestamp: 0.00 sec\rTimestamp: 1.00 sec\rTimestamp: 2.00 sec"
    assert lines[5] == "trailing carriage returns"
    assert lines[6] == "lone \r in the middle"
    assert lines[7] == "invalid \ufffd\ufffd byte, cut \ufffd sequence"
    assert lines[-1] == "no newline at the end ✓"


def test_local_single_bytes() -> None:
    assert run_local([(OUT, b) for b in single_bytes(SAMPLE)]) == {
        OUT: reference_lines(SAMPLE),
        ERR: [],
    }


@pytest.mark.parametrize("seed", range(4))
def test_local_random_chunkings_of_both_streams(seed: int) -> None:
    rng = random.Random(seed)
    err_data = SAMPLE[::-1][:200].replace(b"\xff", b"!") + "\n😀 stderr ends €".encode()
    chunks = interleave(cut(SAMPLE, rng), cut(err_data, rng), rng)
    assert run_local(chunks) == {OUT: reference_lines(SAMPLE), ERR: reference_lines(err_data)}


def test_local_every_cut_inside_a_multibyte_character() -> None:
    data = "€😀é\r\n".encode() * 20
    # Cut right after the first byte of every character, and at every "\r" / "\n" boundary.
    pieces = [data[i : i + 1] for i in range(len(data))]
    chunks = [(OUT, pieces[i] + pieces[i + 1]) for i in range(0, len(pieces) - 1, 2)]
    if len(pieces) % 2:
        chunks.append((OUT, pieces[-1]))
    got = run_local(chunks)
    assert got[OUT] == ["€😀é"] * 20
    assert "\ufffd" not in "".join(got[OUT])


def test_local_no_output_and_only_a_partial_line() -> None:
    assert run_local([]) == {OUT: [], ERR: []}
    assert run_local([(OUT, b"x"), (ERR, b"\r")]) == {OUT: ["x"], ERR: [""]}


def test_uperf_progress_line_is_one_line_with_its_carriage_returns() -> None:
    """uperf (stdout a pipe) rewrites ``Timestamp`` with ``\\r`` and ends with ``\\n``: it is
    one line, ``\\r`` kept inside, delivered when its ``\\n`` comes; the uperf parser takes the
    last ``\\r`` piece (``UperfTextParser.feed``)."""
    progress = b"".join(f"Timestamp: {i}.00 sec\r".encode() for i in range(5)) + b"done\r\n"
    got = run_local([(OUT, c) for c in cut(progress, random.Random(3), 30)])
    assert got[OUT] == ["\r".join(f"Timestamp: {i}.00 sec" for i in range(5)) + "\rdone"]


def test_local_line_longer_than_the_limit_is_split_and_nothing_is_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A line longer than ``_LINE_LIMIT`` comes as pieces of at most the limit, cut between
    characters (never inside one, never between ``\\r`` and ``\\n``), that join to the line;
    no empty line appears, and the next line is intact."""
    limit = 1000
    monkeypatch.setattr(local, "_LINE_LIMIT", limit)
    long_line = "€" * 700 + "x" * 999 + "é" * 400 + "\r"  # 2100 + 999 + 800 + 1 bytes
    data = (long_line + "\nshort\n").encode()
    chunks = [(OUT, c) for c in cut(data, random.Random(5), 20)]
    pieces = run_local(chunks, pause=0.0)[OUT]
    assert pieces[-1] == "short"
    assert "".join(pieces[:-1]) == long_line.rstrip("\r")
    assert len(pieces) > 4
    assert all(0 < len(p.encode()) <= limit for p in pieces[:-1]), [len(p) for p in pieces]
    assert "\ufffd" not in "".join(pieces)


def test_local_default_limit_splits_a_huge_line() -> None:
    """The real limit (1 MiB): a 2.5 MiB line in 64 KiB chunks, then a short line."""
    line = ("€" * 300_000 + "y" * 100_001) * 2  # 2,000,002 bytes, odd lengths on purpose
    data = (line + "\nafter\n").encode()
    chunks = [(OUT, data[i : i + 65536]) for i in range(0, len(data), 65536)]
    pieces = run_local(chunks, pause=0.0)[OUT]
    assert pieces[-1] == "after"
    assert "".join(pieces[:-1]) == line
    assert all(len(p.encode()) <= local._LINE_LIMIT for p in pieces[:-1])


# --------------------------------------------------------------------------- over SSH

# A pid no process has (above the kernel's pid_max): nothing here may ever signal it.
FAKE_PID = 99_999_999
# The server finds what to write by the key after MARK in the command (the command itself
# must stay small: it travels in one SSH packet).
MARK = "pairbench-reassembly-test"
SPECS: dict[str, str] = {}


class _AnyoneServer(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return False  # no authentication: the test is about the channel's data


async def _emit(process: asyncssh.SSHServerProcess[bytes]) -> None:
    """Behaves as the watchdog does (its pid line first; heartbeats on stdin not read), then
    writes the chunks given in the command after MARK, each flushed, with a tiny pause."""
    argv = shlex.split(process.command or "")
    spec = json.loads(SPECS.pop(argv[argv.index(MARK) + 1]))
    process.stdout.write(f"{PID_MARKER} {FAKE_PID}\n".encode())
    for fd, hexdata in spec["chunks"]:
        stream = process.stdout if fd == OUT else process.stderr
        stream.write(bytes.fromhex(hexdata))
        await stream.drain()
        if spec["pause"]:
            await asyncio.sleep(spec["pause"])
    process.exit(0)


async def _run_ssh(chunks: Chunks, pause: float) -> tuple[list[Line], int]:
    key = asyncssh.generate_private_key("ssh-ed25519")
    server = await asyncssh.listen(
        "127.0.0.1",
        0,
        server_host_keys=[key],
        server_factory=_AnyoneServer,
        process_factory=_emit,
        encoding=None,
    )
    port = server.sockets[0].getsockname()[1]
    host = Host("emitter", "127.0.0.1", port, user="root", auth=AuthMethod.AGENT)
    transport = SSHTransport(host, HostKeyPolicy(pinned=[key_line(key)], known_hosts=()))
    try:
        key_id = f"spec-{len(SPECS)}-{random.random()}"
        SPECS[key_id] = spec_json(chunks, pause)
        proc = await transport.start(
            ["true", MARK, key_id],
            stdout=LineSource.SERVER_OUT,
            stderr=LineSource.SERVER_ERR,
            tag="reassembly",
        )
        assert proc.pid == FAKE_PID
        lines = [line async for line in proc.lines()]
        return lines, await proc.wait()
    finally:
        await transport.close()
        server.close()
        await server.wait_closed()


def run_ssh(chunks: Chunks, pause: float = 0.001) -> dict[int, list[str]]:
    lines, status = asyncio.run(asyncio.wait_for(_run_ssh(chunks, pause), 120))
    assert status == 0
    return split_by_source(lines, LineSource.SERVER_OUT, LineSource.SERVER_ERR)


def test_ssh_single_bytes() -> None:
    assert run_ssh([(OUT, b) for b in single_bytes(SAMPLE)]) == {
        OUT: reference_lines(SAMPLE),
        ERR: [],
    }


@pytest.mark.parametrize("seed", range(4))
def test_ssh_random_chunkings_of_both_streams(seed: int) -> None:
    rng = random.Random(seed)
    err_data = SAMPLE[::-1][:200].replace(b"\xff", b"!") + "\n😀 stderr ends €".encode()
    chunks = interleave(cut(SAMPLE, rng), cut(err_data, rng), rng)
    assert run_ssh(chunks) == {OUT: reference_lines(SAMPLE), ERR: reference_lines(err_data)}


def test_ssh_multibyte_characters_cut_while_the_other_stream_writes() -> None:
    """A character cut between two writes of stdout, with stderr written in between (each
    stream must be decoded on its own: one decoder for the channel would mix them)."""
    euro = "€".encode()
    chunks: Chunks = []
    for _ in range(10):
        chunks += [(OUT, b"a" + euro[:1]), (ERR, "ü".encode()[:1]), (OUT, euro[1:])]
        chunks += [(ERR, "ü".encode()[1:] + b"\n"), (OUT, b"\n")]
    got = run_ssh(chunks)
    assert got == {OUT: ["a€"] * 10, ERR: ["ü"] * 10}


def test_ssh_uperf_progress_line_and_partial_last_line() -> None:
    progress = b"".join(f"Timestamp: {i}.00 sec\r".encode() for i in range(5)) + b"done\r\n"
    data = progress + "end ✓".encode()
    got = run_ssh([(OUT, c) for c in cut(data, random.Random(4), 30)])
    assert got[OUT] == reference_lines(data)
    assert got[OUT][0].count("\r") == 5


def test_ssh_line_longer_than_the_window_is_split_and_nothing_is_lost() -> None:
    """asyncssh buffers a line up to the channel's receive window (2 MiB), then hands over what
    it has: a longer line comes in pieces that join to it, and the next line is intact."""
    line = ("€" * 300_000 + "y" * 100_001) * 3  # 3,000,003 bytes
    data = (line + "\r\nafter\n").encode()
    chunks = [(OUT, data[i : i + 32768]) for i in range(0, len(data), 32768)]
    pieces = run_ssh(chunks, pause=0.0)[OUT]
    assert pieces[-1] == "after"
    assert "".join(pieces[:-1]) == line
    assert "\ufffd" not in "".join(pieces)
