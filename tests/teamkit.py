"""A real PostgreSQL server for the team library's tests, in a temporary directory on loopback.

``team_server`` (session-scoped) runs Debian's PostgreSQL as the ``postgres`` user (as the
current user when not root), listening on 127.0.0.1 on a free port, with a database
``pairbench``, two writers (``alice``, ``bob``) and a read-only member (``reader``). The roles
are set up as the README tells an administrator to: writers in ``pairbench_writers`` with
CREATE on the schema, readers in ``pairbench_readers``, and default privileges so the tables a
writer creates can be written by every writer and read by every reader.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit import require

DATABASE = "pairbench"
WRITERS = ("alice", "bob")
READERS = ("reader",)
START_TIMEOUT_S = 30.0


def _bindir() -> Path | None:
    """The newest installed PostgreSQL's programs (Debian: /usr/lib/postgresql/N/bin)."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name)
    )
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TeamServer:
    """One PostgreSQL cluster in a temporary directory; ``url(role)`` reaches it as a role."""

    def __init__(self, bindir: Path, root: Path, user: str) -> None:
        self.bindir = bindir
        self.root = root
        self.user = user  # the OS user running the server
        self.data = root / "data"
        self.sockets = root / "sockets"
        self.log = root / "server.log"
        self.port = _free_port()
        self._passwords = {role: secrets.token_urlsafe(12) for role in (*WRITERS, *READERS)}
        self._proc: subprocess.Popen[bytes] | None = None

    # -- addresses ------------------------------------------------------------------------

    def url(self, role: str, *, password: bool = False, dbname: str = DATABASE) -> str:
        """The libpq URL of a database (``pairbench``) as ``role`` (no password by default)."""
        secret = f":{self._passwords[role]}" if password else ""
        return f"postgresql://{role}{secret}@127.0.0.1:{self.port}/{dbname}"

    def password(self, role: str) -> str:
        return self._passwords[role]

    def admin(self, dbname: str = DATABASE) -> Any:
        """A superuser connection over the server's unix socket (autocommit)."""
        import psycopg

        return psycopg.connect(
            host=str(self.sockets), port=self.port, user="postgres", dbname=dbname, autocommit=True
        )

    # -- life cycle -----------------------------------------------------------------------

    def _as_owner(self, argv: list[str]) -> list[str]:
        if os.geteuid() != 0:
            return argv
        return ["setpriv", f"--reuid={self.user}", f"--regid={self.user}", "--init-groups", *argv]

    def init(self) -> None:
        """initdb, then start and create the database and roles."""
        subprocess.run(
            self._as_owner(
                [
                    str(self.bindir / "initdb"),
                    "-D",
                    str(self.data),
                    "-U",
                    "postgres",
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--auth-local=trust",
                    "--auth-host=scram-sha-256",
                ]
            ),
            check=True,
            capture_output=True,
        )
        self.start()
        self._create_roles()

    def start(self) -> None:
        """Start the server (this process is its parent) and wait until it accepts."""
        if self._proc is not None and self._proc.poll() is None:
            return
        argv = [
            str(self.bindir / "postgres"),
            "-D",
            str(self.data),
            "-p",
            str(self.port),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            f"unix_socket_directories={self.sockets}",
            "-c",
            "fsync=off",  # a killed server keeps what the kernel has; only a crashed OS loses
            "-c",
            "shared_buffers=32MB",
            "-c",
            "max_connections=30",
        ]
        with self.log.open("ab") as log:
            self._proc = subprocess.Popen(
                self._as_owner(argv), stdout=log, stderr=subprocess.STDOUT, cwd=self.root
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                self.admin("postgres").close()
                return
            except Exception as exc:
                if self._proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"PostgreSQL did not start ({exc}); its log:\n{self.log.read_text()}"
                    ) from exc
                time.sleep(0.05)

    def stop(self) -> None:
        """A fast shutdown (pg_ctl stop -m fast): sessions are ended, the data is kept."""
        if self._proc is None or self._proc.poll() is not None:
            return
        subprocess.run(
            self._as_owner(
                [str(self.bindir / "pg_ctl"), "stop", "-D", str(self.data), "-m", "fast"]
            ),
            check=False,
            capture_output=True,
        )
        try:
            self._proc.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """SIGKILL the postmaster and every process it started (a crash, no shutdown)."""
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        children = _children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + START_TIMEOUT_S
        while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.01)

    def grant_read(self, role: str) -> None:
        """SELECT on every table now in the schema (default privileges cover later ones)."""
        with self.admin() as conn:
            conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{role}"')

    def create_database(self, name: str) -> None:
        """Another database, set up for the team as ``pairbench`` is (an empty team library)."""
        with self.admin("postgres") as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        with self.admin(name) as conn:
            self._grant_schema(conn)

    def _create_roles(self) -> None:
        with self.admin("postgres") as conn:
            conn.execute("CREATE ROLE pairbench_writers NOLOGIN")
            conn.execute("CREATE ROLE pairbench_readers NOLOGIN")
            for role in WRITERS + READERS:
                group = "pairbench_writers" if role in WRITERS else "pairbench_readers"
                conn.execute(
                    f"CREATE ROLE {role} LOGIN PASSWORD '{self._passwords[role]}' IN ROLE {group}"
                )
            conn.execute(f"CREATE DATABASE {DATABASE}")
        with self.admin() as conn:
            self._grant_schema(conn)

    @staticmethod
    def _grant_schema(conn: Any) -> None:
        conn.execute("GRANT USAGE, CREATE ON SCHEMA public TO pairbench_writers")
        conn.execute("GRANT USAGE ON SCHEMA public TO pairbench_readers")
        writers = ", ".join(WRITERS)
        conn.execute(
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {writers} IN SCHEMA public "
            "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO pairbench_writers"
        )
        conn.execute(
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {writers} IN SCHEMA public "
            "GRANT USAGE, SELECT ON SEQUENCES TO pairbench_writers"
        )
        conn.execute(
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {writers} IN SCHEMA public "
            "GRANT SELECT ON TABLES TO pairbench_readers"
        )

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (the server's backends and workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _prepare() -> TeamServer:
    """A server object for this machine, or skip/fail (under CI) saying what is missing."""
    bindir = _bindir()
    require(
        bindir is not None and (bindir / "postgres").exists(),
        "PostgreSQL is not installed (Debian's `postgresql`; make test installs it as root)",
    )
    assert bindir is not None
    user = pwd.getpwuid(os.geteuid()).pw_name
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            require(False, "no `postgres` OS user to run PostgreSQL as (root may not)")
        user = "postgres"
        require(shutil.which("setpriv") is not None, "setpriv (util-linux) is not installed")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        require(False, "psycopg is not installed (pip install -e '.[dev]')")
    root = Path(tempfile.mkdtemp(prefix="pairbench-pg-"))
    (root / "sockets").mkdir()
    for path in (root, root / "sockets"):
        shutil.chown(path, user=user, group=pwd.getpwnam(user).pw_gid)
        path.chmod(0o700)
    return TeamServer(bindir, root, user)


@pytest.fixture(scope="session")
def team_server() -> Iterator[TeamServer]:
    """The session's PostgreSQL server (database ``pairbench``; alice, bob, reader)."""
    server = _prepare()
    try:
        server.init()
    except (OSError, subprocess.CalledProcessError, RuntimeError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        server.remove()
        pytest.fail(f"cannot start PostgreSQL: {exc} {detail.decode(errors='replace')}")
    try:
        yield server
    finally:
        server.remove()
