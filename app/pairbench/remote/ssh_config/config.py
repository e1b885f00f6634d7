"""A user's ssh_config read as OpenSSH reads it: its aliases, each resolved with its hops."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pairbench.remote.ssh_config.client_env import ClientEnv, config_files
from pairbench.remote.ssh_config.lexer import Directive
from pairbench.remote.ssh_config.options import Options
from pairbench.remote.ssh_config.patterns import is_wildcard
from pairbench.remote.ssh_config.reader import ConfigFile, Pass, Reader, SSHConfigError
from pairbench.remote.ssh_config.resolve import Preset, Refused, Resolved, resolve

MAX_HOPS = 10  # ssh itself would start one ssh per hop without end


@dataclass(frozen=True, slots=True)
class SSHConfigEntry:
    """One alias: how ssh reaches it (``resolved``) and the ProxyJump hops it goes through
    first (``hops``, first connected first; only the first may have a ProxyCommand), or why
    Pairbench cannot use it (``refused``, the other fields then None/empty)."""

    alias: str
    resolved: Resolved | None
    hops: tuple[Resolved, ...] = ()
    refused: str | None = None


@dataclass
class SSHConfig:
    """The files ssh reads for a config (``-F FILE``, or ``~/.ssh/config`` and the system's)."""

    files: Sequence[ConfigFile]
    env: ClientEnv
    reader: Reader = field(default_factory=Reader)

    def aliases(self) -> list[str]:
        """Every concrete ``Host`` name (no wildcard, not negated) of every file, in order.
        ``SSHConfigError`` when ssh refuses the files."""
        names: list[str] = []

        def seen(patterns: list[str], _line: Directive) -> None:
            for pattern in patterns:
                if pattern and not is_wildcard(pattern) and pattern not in names:
                    names.append(pattern)

        listing = Pass(
            host="",
            original_host="",
            final=False,
            home=self.env.home,
            local_user=self.env.user,
            environ=dict(self.env.environ),
            options=Options(),
            on_host=seen,
            listing=True,
        )
        self.reader.run(self.files, listing)
        return names

    def resolve(self, alias: str) -> SSHConfigEntry:
        """One name as ssh resolves it, with its hops; refused with the reason when ssh fails
        for it or it needs what Pairbench cannot do."""
        try:
            target = resolve(alias, self.files, self.env, self.reader)
            hops = self._hops(target, depth=0)
            for resolved in (target, *hops[:1]):
                _check_usable(resolved)
        except (Refused, SSHConfigError) as exc:
            return SSHConfigEntry(alias, None, refused=str(exc))
        return SSHConfigEntry(alias, target, hops)

    def resolve_hop(self, host: str, preset: Preset) -> Resolved:
        """A hop as ssh reaches it (``ssh -l USER -p PORT -J HOPS HOST``)."""
        return resolve(host, self.files, self.env, self.reader, preset)

    def _hops(self, target: Resolved, depth: int) -> tuple[Resolved, ...]:
        spec = target.jump
        if spec is None:
            return ()
        if depth >= MAX_HOPS:
            raise Refused(f"ProxyJump: more than {MAX_HOPS} hops (do the jump hosts loop?)")
        try:
            hop = self.resolve_hop(spec.host, Preset(spec.user, spec.port, spec.extra))
        except Refused as exc:
            raise Refused(f"ProxyJump host {spec.host}: {exc}") from None
        return (*self._hops(hop, depth + 1), hop)

    def entries(self) -> list[SSHConfigEntry]:
        """Every alias resolved, in order."""
        return [self.resolve(alias) for alias in self.aliases()]


def _check_usable(resolved: Resolved) -> None:
    """What ssh resolves but Pairbench cannot connect with (``Refused`` says why)."""
    if resolved.proxy_command is not None and resolved.proxy_use_fdpass:
        raise Refused(
            f"ProxyUseFdpass yes ({resolved.alias}): a ProxyCommand that passes back a "
            "connected socket is not supported"
        )


def open_config(
    path: str | Path | None = None, env: ClientEnv | None = None, system_config: str | None = None
) -> SSHConfig:
    """The config at ``path`` (as ``ssh -F PATH``), else ``~/.ssh/config`` and the system's."""
    env = env or ClientEnv.current()
    files = (
        config_files(path, env)
        if system_config is None
        else config_files(path, env, system_config=system_config)
    )
    return SSHConfig(files, env)


def parse_ssh_config(
    path: str | Path | None = None, env: ClientEnv | None = None
) -> list[SSHConfigEntry]:
    """Every concrete alias of the config, resolved as ``ssh -G`` does; ``SSHConfigError``
    (naming the file and line) when ssh refuses the config."""
    return open_config(path, env).entries()
