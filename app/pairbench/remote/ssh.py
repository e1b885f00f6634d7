"""SSH hosts: one asyncssh connection per host, argv quoted once, PID-based process control."""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import socket
from collections.abc import Mapping, Sequence

import asyncssh

from pairbench.domain import AuthMethod, Host, LineSource
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
from pairbench.remote.kexinit import negotiation_failure
from pairbench.remote.launcher import watchdog_argv
from pairbench.remote.proxy_command import ProxyProcess, proxy_command_line
from pairbench.remote.secrets import NoPrompt, SecretPrompt
from pairbench.remote.ssh_auth import login_options
from pairbench.remote.ssh_process import SSHProcess

CONNECT_TIMEOUT_S = 10.0
KEEPALIVE_INTERVAL_S = 2.0
KEEPALIVE_COUNT_MAX = 3
# A file Pairbench uploads is always new: sftp-server opens it O_CREAT|O_EXCL, which never
# opens an existing file nor follows a link.
NEW_FILE_FLAGS = asyncssh.FXF_WRITE | asyncssh.FXF_CREAT | asyncssh.FXF_EXCL


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
        self._proxy: ProxyProcess | None = None
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
            "username": login_user(host),
            "known_hosts": (trusted, ca_keys, revoked),
            "connect_timeout": self._timeout,
            "keepalive_interval": KEEPALIVE_INTERVAL_S,
            "keepalive_count_max": KEEPALIVE_COUNT_MAX,
            "config": [],
        }
        login = await login_options(host, self._secrets)
        try:
            options.update(login.options)
            return await self._connect(options, trusted)
        finally:
            login.close()

    async def _connect(
        self, options: dict[str, object], trusted: list[asyncssh.SSHKey]
    ) -> asyncssh.SSHClientConnection:
        """Connect directly, through the jump host's connection, or over the ProxyCommand."""
        host = self.host
        if self._jump is not None:
            options["tunnel"] = await self._jump.connect()
        elif host.ssh.proxy_command is not None:
            await self._close_proxy()
            self._proxy = ProxyProcess(host.name)
            options["sock"] = await self._proxy.start(proxy_command_line(host, login_user(host)))
        client = _Client(self.policy)
        try:
            conn, _ = await asyncssh.create_connection(
                lambda: client,
                host.address,
                **options,  # type: ignore[arg-type]
            )
        except BaseException as exc:
            refused = isinstance(exc, asyncssh.HostKeyNotVerifiable | asyncssh.PermissionDenied)
            why = await self._proxy.why() if self._proxy is not None and not refused else ""
            await self._close_proxy()
            if isinstance(exc, Exception):
                raise self._connect_error(exc, client, why, trusted) from exc
            raise
        self._client = client
        return conn

    def _connect_error(
        self, exc: Exception, client: _Client, why: str, trusted: list[asyncssh.SSHKey]
    ) -> Exception:
        """The typed failure for an exception of ``create_connection``."""
        host = self.host
        where = f"{host.address}:{host.port}"
        if isinstance(exc, asyncssh.HostKeyNotVerifiable):
            return self._host_key_error(trusted)
        if isinstance(exc, asyncssh.PermissionDenied):
            return AuthFailedError(
                f"host {host.name}: authentication failed for user {login_user(host)} "
                f"({_auth_words(host)}); check the key, agent or password"
            )
        if why:
            return TransportError(f"host {host.name}: cannot reach {where}: {why}")
        if isinstance(exc, ConnectionRefusedError):
            return TransportError(
                f"host {host.name}: connection refused at {where}; "
                "is sshd running and the port right?"
            )
        if isinstance(exc, socket.gaierror):
            return TransportError(
                f"host {host.name}: unknown host name {host.address!r}; check the address"
            )
        if isinstance(exc, TimeoutError):
            return TransportError(
                f"host {host.name}: no answer from {where} within {self._timeout:.0f} s; "
                "check the address, firewall and that the host is up"
            )
        if isinstance(exc, OSError):
            return self._negotiation_error(client) or TransportError(
                f"host {host.name}: cannot reach {where}: {exc.strerror or exc}"
            )
        if isinstance(exc, asyncssh.Error):
            return self._negotiation_error(client) or TransportError(
                f"host {host.name}: SSH error: {exc.reason}"
            )
        return exc

    async def _close_proxy(self) -> None:
        if self._proxy is not None:
            await self._proxy.close()
            self._proxy = None

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
        await self._close_proxy()


def login_user(host: Host) -> str:
    """The user a host logs in as (root when none is set; an imported host always has one)."""
    return host.user or "root"


def _auth_words(host: Host) -> str:
    if host.auth is AuthMethod.KEY:
        return f"key {host.key_path}"
    if host.auth is AuthMethod.AGENT and host.ssh.identity_files:
        files = ", ".join(host.ssh.identity_files[:3])
        more = ", ..." if len(host.ssh.identity_files) > 3 else ""
        agent = "" if host.ssh.identities_only else "ssh-agent keys, "
        return f"{agent}key files {files}{more}"
    return {AuthMethod.AGENT: "ssh-agent keys", AuthMethod.PASSWORD: "password"}.get(
        host.auth, host.auth.value
    )
