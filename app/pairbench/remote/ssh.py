"""SSH hosts: one asyncssh connection per host, argv quoted once, PID-based process control."""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import socket
import struct
import time
from collections.abc import AsyncIterator, Mapping, Sequence

import asyncssh

from pairbench.domain import AuthMethod, Host, Line, LineSource
from pairbench.domain.failures import (
    AuthFailedError,
    ConnectionLostError,
    HostKeyChangedError,
    HostKeyUnknownError,
    NoCommonAlgorithmError,
    ToolMissingError,
    TransportError,
)
from pairbench.domain.processes import RunTag
from pairbench.remote.base import (
    USER_PATH_SETUP,
    CommandResult,
    make_workdir_with,
    remove_workdir_with,
)
from pairbench.remote.host_keys import HostKeyPolicy, changed_key_remedy, key_line
from pairbench.remote.launcher import HEARTBEAT, HEARTBEAT_PERIOD_S, parse_pid_line, watchdog_argv
from pairbench.remote.local import cut_line_piece
from pairbench.remote.secrets import NoPrompt, SecretPrompt, stored_password

CONNECT_TIMEOUT_S = 10.0
KEEPALIVE_INTERVAL_S = 2.0
KEEPALIVE_COUNT_MAX = 3
# A file Pairbench uploads is always new: sftp-server opens it O_CREAT|O_EXCL, which never
# opens an existing file nor follows a link.
NEW_FILE_FLAGS = asyncssh.FXF_WRITE | asyncssh.FXF_CREAT | asyncssh.FXF_EXCL


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


def private_key_problem(data: bytes) -> str | None:
    """Why ``data`` is not a private key Pairbench can log in with; None when it is one.

    An encrypted key is one (its passphrase is asked when connecting).
    """
    text = data.lstrip()
    if text.startswith((b"ssh-", b"ecdsa-", b"sk-", b"---- BEGIN SSH2 PUBLIC KEY")):
        return "it is a public key; give the private key (usually the same name without .pub)"
    if text.startswith(b"-----BEGIN CERTIFICATE"):
        return "it is a certificate, not a private key"
    try:
        asyncssh.import_private_key(data)
    except asyncssh.KeyImportError as exc:
        reason = str(exc)
        if "passphrase" in reason.lower():
            return None
        if reason == "Invalid private key":
            return "it is not a private key in OpenSSH or PEM format"
        return f"it is not a private key Pairbench can read ({reason})"
    except (ValueError, TypeError) as exc:
        return f"it is not a private key Pairbench can read ({exc})"
    return None


def remote_command(
    argv: Sequence[str],
    env: Mapping[str, str] | None = None,
    *,
    tag: str = "",
    cleanup: str = "",
) -> str:
    """The one place argv becomes a shell string: the watchdog's argv (``remote/launcher``)
    with each element quoted once (``shlex.join``)."""
    return shlex.join(watchdog_argv(argv, tag=tag or str(RunTag.new()), cleanup=cleanup, env=env))


class _Client(asyncssh.SSHClient):
    """Records the key presented and why the connection closed."""

    def __init__(self, policy: HostKeyPolicy) -> None:
        self._policy = policy
        self.conn: asyncssh.SSHClientConnection | None = None
        self.lost: Exception | None = None
        self.closed = False

    def connection_made(self, conn: asyncssh.SSHClientConnection) -> None:
        self.conn = conn  # kept to explain a failed key exchange (``negotiation_failure``)

    def validate_host_public_key(
        self, host: str, addr: str, port: int, key: asyncssh.SSHKey
    ) -> bool:
        self._policy.presented = key
        if self._policy.accept_new and not self._policy.has_trusted:
            self._policy.accepted = key_line(key)
            return True
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.lost = exc


class SSHProcess:
    """A process started over SSH; its pid comes from the launcher's first line."""

    def __init__(
        self,
        transport: SSHTransport,
        process: asyncssh.SSHClientProcess[bytes],
        stdout: LineSource,
        stderr: LineSource,
    ) -> None:
        self._transport = transport
        self._process = process
        self._stdout = stdout
        self._stderr = stderr
        self._pid: int | None = None
        self._stopped = False
        self._heartbeat: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self._pid

    async def read_pid(self, timeout_s: float) -> None:
        """Wait for the watchdog's pid line; fail if the command could not start. Then keep
        telling the watchdog that we are alive (``remote/launcher.py``)."""
        raw = await asyncio.wait_for(self._process.stdout.readline(), timeout_s)
        line = raw.decode("utf-8", errors="replace")
        pid = parse_pid_line(line)
        if pid is None:
            raise TransportError(
                f"host {self._transport.host_name}: the command did not start "
                f"(got {line.strip()[:120]!r}; Pairbench needs bash on the host)"
            )
        self._pid = pid
        self._heartbeat = asyncio.ensure_future(self._beat())

    async def _beat(self) -> None:
        with contextlib.suppress(asyncssh.Error, OSError, RuntimeError):
            while self._process.exit_status is None and not self._transport.is_lost:
                self._process.stdin.write(HEARTBEAT.encode())
                await asyncio.sleep(HEARTBEAT_PERIOD_S)

    def _stop_heartbeat(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()

    async def lines(self) -> AsyncIterator[Line]:
        queue: asyncio.Queue[Line | None] = asyncio.Queue()

        def put(source: LineSource, raw: bytes) -> None:
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            queue.put_nowait(Line(source, text, time.monotonic()))

        async def pump(reader: asyncssh.SSHReader[bytes], source: LineSource) -> None:
            # Bytes, decoded a line at a time: asyncssh's decoder is one per channel, shared
            # by stdout and stderr, so a character cut between two writes of one stream came
            # out garbled when the other stream wrote in between.
            carry = b""  # the start of the next piece, held back from the last cut
            split = False  # whether a long line's first pieces went out already
            try:
                while True:
                    try:
                        raw = carry + await reader.readuntil(b"\n")
                    except asyncio.IncompleteReadError as exc:
                        raw = carry + bytes(exc.partial)
                        if not reader.at_eof():
                            # The channel's window is full (a line longer than it, or the other
                            # stream's unread lines): asyncssh hands over what it holds. Cut it
                            # between characters, not between "\r" and "\n".
                            if not exc.partial:
                                await asyncio.sleep(0.005)  # let the other stream's pump read
                                continue
                            raw, carry = cut_line_piece(raw)
                            if raw:
                                put(source, raw)
                            split = True
                            continue
                        if raw and not (split and not raw.rstrip(b"\r\n")):
                            put(source, raw)
                        return
                    carry = b""
                    if not (split and not raw.rstrip(b"\r\n")):  # not a long line's empty end
                        put(source, raw)
                    split = False
            except (asyncssh.Error, OSError):
                if carry:
                    put(source, carry)
            finally:
                queue.put_nowait(None)

        tasks = [
            asyncio.ensure_future(pump(self._process.stdout, self._stdout)),
            asyncio.ensure_future(pump(self._process.stderr, self._stderr)),
        ]
        try:
            open_pipes = len(tasks)
            while open_pipes:
                item = await queue.get()
                if item is None:
                    open_pipes -= 1
                    continue
                yield item
        finally:
            for task in tasks:
                task.cancel()

    async def wait(self) -> int:
        try:
            completed = await self._process.wait(check=False)
        except (asyncssh.Error, OSError) as exc:
            raise self._transport.lost_error(exc) from exc
        finally:
            self._stop_heartbeat()
        if completed.exit_status is None or self._transport.is_lost:
            if self._transport.is_lost:
                raise self._transport.lost_error(None)
            return -1 if completed.exit_signal is None else 128
        return int(completed.exit_status)

    async def stop(self, grace_s: float = 2.0) -> None:
        """Interrupt the process group by pid over a second channel, then terminate it, then
        kill it."""
        if self._stopped or self._process.exit_status is not None:
            self._stop_heartbeat()
            return
        self._stopped = True
        if self._transport.is_lost:
            self._stop_heartbeat()
            return
        # SIGINT lets a tool print what it measured; a server that ignores it (nuttcp -S)
        # ends on SIGTERM; SIGKILL after ``grace_s`` in all.
        for signal_name in ("INT", "TERM"):
            await self._kill(signal_name)
            try:
                await asyncio.wait_for(self._process.wait(check=False), grace_s / 2)
                break
            except (TimeoutError, asyncssh.Error, OSError):
                continue
        else:
            await self._kill("KILL")
        self._stop_heartbeat()
        with contextlib.suppress(asyncssh.Error, OSError):
            self._process.close()

    async def _kill(self, signal_name: str) -> None:
        if self._pid is None:
            return
        pid = str(self._pid)
        with contextlib.suppress(asyncssh.Error, OSError, TimeoutError, TransportError):
            await self._transport.run(
                [
                    *("sh", "-c", 'kill -s "$1" -- "-$2" 2>/dev/null || kill -s "$1" "$2"'),
                    *("sh", signal_name, pid),
                ],
                timeout_s=5,
            )


class SSHTransport:
    """Runs programs on one SSH host over one reused connection."""

    def __init__(
        self,
        host: Host,
        policy: HostKeyPolicy,
        *,
        secrets: SecretPrompt | None = None,
        jump: SSHTransport | None = None,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
    ) -> None:
        self.host = host
        self.policy = policy
        self._secrets = secrets or NoPrompt()
        self._jump = jump
        self._timeout = connect_timeout_s
        self._conn: asyncssh.SSHClientConnection | None = None
        self._client: _Client | None = None
        self._lock = asyncio.Lock()

    @property
    def host_name(self) -> str:
        return self.host.name

    @property
    def is_lost(self) -> bool:
        return self._client is not None and self._client.closed

    def lost_error(self, exc: BaseException | None) -> ConnectionLostError:
        reason = exc or (self._client.lost if self._client else None)
        detail = f": {reason}" if reason else ""
        return ConnectionLostError(f"connection to host {self.host.name} lost{detail}")

    async def connect(self) -> asyncssh.SSHClientConnection:
        """Connect (once; reconnects after a lost connection)."""
        async with self._lock:
            if self._conn is not None and not self.is_lost:
                return self._conn
            self._conn = await self._open()
            return self._conn

    async def _open(self) -> asyncssh.SSHClientConnection:
        host = self.host
        try:
            trusted, ca_keys, revoked = self.policy.trusted(host.address, host.port)
        except (ValueError, asyncssh.Error) as exc:
            raise TransportError(
                f"host {host.name}: a pinned host key is unreadable ({exc}); "
                f"run `pairbench hosts forget-key {host.name}`"
            ) from exc
        self.policy.has_trusted = bool(trusted or ca_keys)
        options: dict[str, object] = {
            "port": host.port,
            "username": host.user or "root",
            "known_hosts": (trusted, ca_keys, revoked),
            "connect_timeout": self._timeout,
            "keepalive_interval": KEEPALIVE_INTERVAL_S,
            "keepalive_count_max": KEEPALIVE_COUNT_MAX,
            "config": [],
        }
        options.update(await self._auth_options())
        if self._jump is not None:
            options["tunnel"] = await self._jump.connect()
        client = _Client(self.policy)
        try:
            conn, _ = await asyncssh.create_connection(
                lambda: client,
                host.address,
                **options,  # type: ignore[arg-type]
            )
        except asyncssh.HostKeyNotVerifiable as exc:
            raise self._host_key_error(trusted) from exc
        except asyncssh.PermissionDenied as exc:
            raise AuthFailedError(
                f"host {host.name}: authentication failed for user {host.user or 'root'} "
                f"({_auth_words(host)}); check the key, agent or password"
            ) from exc
        except ConnectionRefusedError as exc:
            raise TransportError(
                f"host {host.name}: connection refused at {host.address}:{host.port}; "
                "is sshd running and the port right?"
            ) from exc
        except socket.gaierror as exc:
            raise TransportError(
                f"host {host.name}: unknown host name {host.address!r}; check the address"
            ) from exc
        except TimeoutError as exc:
            raise TransportError(
                f"host {host.name}: no answer from {host.address}:{host.port} within "
                f"{self._timeout:.0f} s; check the address, firewall and that the host is up"
            ) from exc
        except OSError as exc:
            raise self._negotiation_error(client) or TransportError(
                f"host {host.name}: cannot reach {host.address}:{host.port}: {exc.strerror or exc}"
            ) from exc
        except asyncssh.Error as exc:
            raise self._negotiation_error(client) or TransportError(
                f"host {host.name}: SSH error: {exc.reason}"
            ) from exc
        self._client = client
        return conn

    def _negotiation_error(self, client: _Client) -> NoCommonAlgorithmError | None:
        """A failed key exchange explained, with a hint when pinned keys narrowed our list."""
        if client.conn is None:
            return None
        hints = {}
        if self.policy.has_trusted:
            name = self.host.name
            remedy = changed_key_remedy(self.host.tags) or (
                f"run `pairbench hosts forget-key {name}` (and `ssh-keygen -R` a stale "
                "~/.ssh/known_hosts line) and connect again"
            )
            hints["host key type"] = (
                f" (only the types of the host keys pinned for {name} or in ~/.ssh/known_hosts)"
                f": the host's key has changed type. If that is legitimate, {remedy}"
            )
        return negotiation_failure(client.conn, self.host.name, hints)

    def _host_key_error(self, trusted: list[asyncssh.SSHKey]) -> TransportError:
        presented = self.policy.presented
        if presented is None:
            return TransportError(f"host {self.host.name}: host key could not be verified")
        fingerprint = presented.get_fingerprint()
        if trusted:
            return HostKeyChangedError(
                self.host.name,
                [k.get_fingerprint() for k in trusted],
                fingerprint,
                remedy=changed_key_remedy(self.host.tags),
            )
        return HostKeyUnknownError(self.host.name, fingerprint, key_line(presented))

    async def _auth_options(self) -> dict[str, object]:
        host = self.host
        if host.auth is AuthMethod.AGENT:
            return {}
        if host.auth is AuthMethod.KEY:
            if not host.key_path:
                raise AuthFailedError(f"host {host.name}: no key file set")
            return {"client_keys": [self._load_key(host.key_path)], "agent_path": None}
        if host.auth is AuthMethod.PASSWORD:
            password = stored_password(host)
            if password is None:
                password = self._secrets.password(host, "no stored password")
            if password is None:
                raise AuthFailedError(f"host {host.name}: a password is needed and none was given")
            return {"password": password, "client_keys": None, "agent_path": None}
        raise TransportError(f"host {host.name}: not an SSH host")

    def _load_key(self, path: str) -> asyncssh.SSHKey:
        try:
            return asyncssh.read_private_key(path)
        except FileNotFoundError as exc:
            raise AuthFailedError(f"host {self.host.name}: key file {path} not found") from exc
        except OSError as exc:
            raise AuthFailedError(
                f"host {self.host.name}: cannot read key file {path}: {exc.strerror or exc}"
            ) from exc
        except asyncssh.KeyImportError as exc:
            if "passphrase" not in str(exc).lower():
                raise AuthFailedError(
                    f"host {self.host.name}: cannot read key {path}: {exc}"
                ) from exc
        passphrase = self._secrets.passphrase(path)
        if passphrase is None:
            raise AuthFailedError(
                f"host {self.host.name}: key {path} needs its passphrase and none was given"
            )
        try:
            return asyncssh.read_private_key(path, passphrase)
        except (asyncssh.KeyImportError, ValueError) as exc:
            raise AuthFailedError(
                f"host {self.host.name}: wrong passphrase for key {path}"
            ) from exc

    async def start(
        self,
        argv: Sequence[str],
        *,
        stdout: LineSource,
        stderr: LineSource,
        env: Mapping[str, str] | None = None,
        tag: str = "",
        cleanup: str = "",
    ) -> SSHProcess:
        conn = await self.connect()
        try:
            process = await conn.create_process(
                remote_command(argv, env, tag=tag, cleanup=cleanup),
                encoding=None,  # bytes: SSHProcess decodes each stream's lines itself
            )
        except (asyncssh.Error, OSError) as exc:
            raise self.lost_error(exc) from exc
        started = SSHProcess(self, process, stdout, stderr)
        await started.read_pid(timeout_s=self._timeout)
        return started

    async def run(self, argv: Sequence[str], *, timeout_s: float = 10.0) -> CommandResult:
        conn = await self.connect()
        try:
            result = await conn.run(
                shlex.join(["sh", "-c", f'{USER_PATH_SETUP}; exec "$@"', "sh", *argv]),
                check=False,
                timeout=timeout_s,
                encoding="utf-8",
                errors="replace",
            )
        except asyncssh.TimeoutError as exc:
            raise TimeoutError(f"host {self.host.name}: {argv[0]} did not finish") from exc
        except (asyncssh.Error, OSError) as exc:
            raise self.lost_error(exc) from exc
        out = str(result.stdout or "")
        err = str(result.stderr or "")
        status = -1 if result.exit_status is None else int(result.exit_status)
        # 127: not on PATH; 126 from the shell's exec: found but not runnable by this user
        # (a PATH folder it may not enter, say), which for a run is the same as missing.
        if (status == 127 and "not found" in err) or (
            status == 126 and f"exec: {argv[0]}: Permission denied" in err
        ):
            raise ToolMissingError(
                f"{argv[0]} is not installed on host {self.host.name}",
                program=argv[0],
                host=self.host.name,
            )
        return CommandResult(status, out, err)

    async def make_workdir(self, tag: str = "", parent: str = "") -> str:
        return await make_workdir_with(self, tag, parent)

    async def write_file(self, path: str, content: str) -> None:
        await self.write_bytes(path, content.encode("utf-8"))

    async def write_bytes(self, path: str, content: bytes) -> None:
        conn = await self.connect()
        try:
            async with (
                conn.start_sftp_client() as sftp,
                sftp.open(
                    path, NEW_FILE_FLAGS, asyncssh.SFTPAttrs(permissions=0o600), encoding=None
                ) as handle,
            ):
                await handle.write(content)
        except (asyncssh.Error, OSError) as exc:
            raise TransportError(f"host {self.host.name}: cannot write {path}: {exc}") from exc

    async def remove_workdir(self, path: str) -> None:
        await remove_workdir_with(self, path)

    async def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            with contextlib.suppress(Exception):
                await self._conn.wait_closed()
            self._conn = None


def _auth_words(host: Host) -> str:
    if host.auth is AuthMethod.KEY:
        return f"key {host.key_path}"
    return {AuthMethod.AGENT: "ssh-agent keys", AuthMethod.PASSWORD: "password"}.get(
        host.auth, host.auth.value
    )
