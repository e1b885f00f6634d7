"""A pair's preflight as a report for people: keys to accept, secrets to ask, lines to show.

``run_check`` wraps ``preflight.check_pair`` with what a front end needs next: the unknown
host keys (with fingerprints) the user may accept, the keys pinned by this check, and the
passwords or passphrases that were needed but not given (so the front end can ask and run
the check again). The wording of the result lines is shared by ``pairs check`` and the GUI.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from pairbench.domain import Host, HostPair
from pairbench.domain.failures import HostKeyUnknownError
from pairbench.domain.host_text import key_fingerprint
from pairbench.engine.preflight import VERSION_COMMANDS, PairCheck, check_pair
from pairbench.engine.preflight import HostCheck as HostCheck
from pairbench.engine.transports import Connector
from pairbench.library import Library
from pairbench.library.hosts import get_pair, list_hosts, pinned_host_keys
from pairbench.remote.base import Transport
from pairbench.remote.secrets import SecretPrompt

# The tools a check can look for (each with the version command it runs), by name.
CHECKABLE_TOOLS: tuple[str, ...] = tuple(sorted(VERSION_COMMANDS))


@dataclass(frozen=True, slots=True)
class UnknownKey:
    """A host key seen for the first time, presented by ``host`` (a jump host, maybe)."""

    host: str
    fingerprint: str
    message: str


@dataclass
class CheckReport:
    """A preflight result and what the user may do about it."""

    pair: HostPair
    check: PairCheck
    tool: str | None = None
    unknown_keys: list[UnknownKey] = field(default_factory=list)
    newly_pinned: list[tuple[str, str]] = field(default_factory=list)  # (host, key line)
    needs_password: list[Host] = field(default_factory=list)
    needs_passphrase: list[str] = field(default_factory=list)  # key files

    @property
    def ready(self) -> bool:
        """Both hosts reachable, the data path works, and the chosen tool is present."""
        return self.check.ok and not tool_missing(self.check, self.tool)


class GivenSecrets:
    """Secrets asked before connecting; remembers what else was asked and not given."""

    def __init__(
        self,
        passwords: Mapping[str, str] | None = None,
        passphrases: Mapping[str, str] | None = None,
    ) -> None:
        self._passwords = dict(passwords or {})
        self._passphrases = dict(passphrases or {})
        self.asked_passwords: list[Host] = []
        self.asked_passphrases: list[str] = []

    def password(self, host: Host, reason: str) -> str | None:
        value = self._passwords.get(host.name)
        if value is None and all(h.name != host.name for h in self.asked_passwords):
            self.asked_passwords.append(host)
        return value

    def passphrase(self, key_path: str) -> str | None:
        value = self._passphrases.get(key_path)
        if value is None and key_path not in self.asked_passphrases:
            self.asked_passphrases.append(key_path)
        return value


class _KeyRecordingConnector(Connector):
    """A connector that remembers unknown host keys (preflight keeps only the message)."""

    def __init__(self, lib: Library, **kwargs: object) -> None:
        super().__init__(lib, **kwargs)  # type: ignore[arg-type]
        self.unknown_keys: list[UnknownKey] = []

    async def transport(self, host: Host) -> Transport:
        try:
            return await super().transport(host)
        except HostKeyUnknownError as exc:
            # The key may be a jump host's: the message names the host that presented it.
            named = re.match(r"host (\S+): ", str(exc))
            owner = named.group(1) if named else host.name
            self.unknown_keys.append(UnknownKey(owner, exc.fingerprint, str(exc)))
            raise


def _pins(lib: Library) -> dict[str, set[str]]:
    """Pinned keys by name: every SSH host and the ProxyJump hops kept with hosts."""
    names = {
        name
        for h in list_hosts(lib)
        if not h.is_local
        for name in (h.name, *(hop.name for hop in h.ssh.jumps))
    }
    return {name: set(pinned_host_keys(lib, name)) for name in names}


async def run_check(
    lib: Library,
    pair_name: str,
    *,
    tool: str | None = None,
    accept_new_host_key: bool = False,
    secrets: SecretPrompt | None = None,
) -> CheckReport:
    """Preflight a stored pair; host problems are in the report, never raised."""
    pair = get_pair(lib, pair_name)
    before = _pins(lib)
    prompt = secrets if secrets is not None else GivenSecrets()
    connector = _KeyRecordingConnector(lib, secrets=prompt, accept_new_host_key=accept_new_host_key)
    try:
        check = await check_pair(pair, connector, tool=tool)
    finally:
        await connector.close()
    after = _pins(lib)
    report = CheckReport(pair, check, tool, unknown_keys=connector.unknown_keys)
    report.newly_pinned = [
        (name, key)
        for name, keys in after.items()
        for key in sorted(keys - before.get(name, set()))
    ]
    if isinstance(prompt, GivenSecrets):
        report.needs_password = list(prompt.asked_passwords)
        report.needs_passphrase = list(prompt.asked_passphrases)
    return report


def tool_missing(check: PairCheck, tool: str | None) -> bool:
    """Whether the tool the next run needs is missing on a host."""
    return tool is not None and (tool in check.client.missing or tool in check.server.missing)


# ---------------------------------------------------------------------------------------------
# Wording shared by `pairs check` and the workbench


def pair_heading(pair: HostPair) -> str:
    """``pair NAME: client → server (target)``."""
    return f"pair {pair.name}: {pair.client.name} → {pair.server.name} ({pair.target_address})"


def host_lines(role: str, check: HostCheck, tool: str | None) -> list[str]:
    """A host's reachability, then one indented line per tool version or missing tool."""
    if not check.reachable:
        return [f"{role} {check.name}: UNREACHABLE: {check.error or 'unknown error'}"]
    lines = [f"{role} {check.name}: reachable"]
    for name, version in sorted(check.versions.items()):
        lines.append(f"  {name:8} {version}")
    for name, hint in sorted(check.missing.items()):
        needed = " (needed)" if name == tool else ""
        lines.append(f"  {name:8} missing{needed}; install: {hint}")
    return lines


def data_path_line(pair: HostPair, check: PairCheck) -> str:
    """Whether the client reaches the data address, with the round-trip time."""
    if check.data_path_ok is None:
        return "data path: not checked (the client is unreachable)"
    if check.data_path_ok:
        rtt = "" if check.data_path_rtt_ms is None else f", rtt {check.data_path_rtt_ms:.3g} ms"
        return f"data path: ok, {pair.client.name} reaches {pair.target_address}{rtt}"
    return f"data path: FAILED, {pair.client.name} cannot ping {pair.target_address}"


def clock_line(check: PairCheck) -> str:
    """The server's clock offset from the client's."""
    if not (check.client.reachable and check.server.reachable):
        return "clock offset: not checked (a host is unreachable)"
    if check.clock_offset_s is None:
        return "clock offset: unknown (`date +%s.%N` failed on a host)"
    return f"clock offset: {check.clock_offset_s:+.3f} s (server minus client)"


def verdict_line(pair: HostPair, ready: bool) -> str:
    """``pair NAME is ready`` or ``is NOT ready``."""
    return f"pair {pair.name} is ready" if ready else f"pair {pair.name} is NOT ready"


def report_lines(report: CheckReport) -> list[str]:
    """The whole check as the CLI prints it."""
    check = report.check
    lines = [pair_heading(report.pair)]
    for role, host_check in (("client", check.client), ("server", check.server)):
        lines += host_lines(role, host_check, report.tool)
    lines.append(data_path_line(report.pair, check))
    lines.append(clock_line(check))
    lines.append(verdict_line(report.pair, report.ready))
    lines += [
        f"pinned the new host key of {name}: {key_fingerprint(key)}"
        for name, key in report.newly_pinned
    ]
    return lines
