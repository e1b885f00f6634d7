"""One alias resolved as OpenSSH 9.2's ``ssh -G`` resolves it (ssh.c ``main``).

The files are read for the name given (first pass); HostName is substituted and the name
lower-cased; if canonicalization is on or a ``Match final``/``canonical`` asked for it, the
files are read again for the new name (final pass: what was set stays set); then defaults
fill what is still unset (the local user, ssh's default identity files and known_hosts
files) and the file names ssh expands before connecting are expanded with its tokens.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from pairbench.remote.ssh_config.canonical import (
    NeedsDNS,
    canonicalize,
    follows_cnames,
    is_addr,
    numeric_form,
)
from pairbench.remote.ssh_config.client_env import ClientEnv
from pairbench.remote.ssh_config.jump import JumpSpec, parse_jump
from pairbench.remote.ssh_config.match import ExecNotEvaluated
from pairbench.remote.ssh_config.options import CANON_NO, STRICT, STRICT_ASK, Options
from pairbench.remote.ssh_config.patterns import ascii_lower
from pairbench.remote.ssh_config.reader import ConfigFile, Pass, Reader
from pairbench.remote.ssh_config.tokens import ExpandError, expand, tilde_expand

DEFAULT_PORT = 22
DEFAULT_IDENTITIES = (
    "~/.ssh/id_rsa",
    "~/.ssh/id_ecdsa",
    "~/.ssh/id_ecdsa_sk",
    "~/.ssh/id_ed25519",
    "~/.ssh/id_ed25519_sk",
    "~/.ssh/id_xmss",
    "~/.ssh/id_dsa",
)
DEFAULT_KNOWN_HOSTS = ("~/.ssh/known_hosts", "~/.ssh/known_hosts2")


class Refused(Exception):
    """ssh cannot resolve this alias, or its answer is not one Pairbench can store."""


@dataclass(frozen=True, slots=True)
class Preset:
    """What ssh's command line sets before the files are read (how ssh reaches a jump hop:
    ``ssh [-l user] [-p port] [-J hops] host``)."""

    user: str | None = None
    port: int = -1
    jump: str | None = None


@dataclass(frozen=True, slots=True)
class Resolved:
    """One alias as ssh resolves it; the list fields as ``ssh -G`` prints them."""

    alias: str
    hostname: str
    port: int
    user: str
    identity_files: tuple[str, ...]
    identity_paths: tuple[str, ...]  # expanded as ssh does before connecting ("none" dropped)
    default_identities: bool  # no IdentityFile was set: ssh's defaults (tried when present)
    certificate_files: tuple[str, ...]
    certificate_paths: tuple[str, ...]
    identities_only: bool
    identity_agent: str | None
    strict_host_key_checking: str  # as -G prints it: true, false, ask, accept-new
    user_known_hosts: tuple[str, ...]
    host_key_alias: str | None
    jump: JumpSpec | None
    proxy_command: str | None
    proxy_use_fdpass: bool
    not_honoured: tuple[tuple[str, str, str], ...]  # (keyword, value, FILE:LINE)


def resolve(
    alias: str,
    files: Sequence[ConfigFile],
    env: ClientEnv,
    reader: Reader,
    preset: Preset | None = None,
) -> Resolved:
    """Resolve one name; ``ConfigError`` when ssh refuses the files, ``Refused`` when ssh
    fails for this name or needs what Pairbench cannot do (DNS, a Match exec)."""
    options = _preset(preset or Preset())
    first = _pass(alias, alias, False, env, options)
    try:
        reader.run(files, first)
        host = _canonical_host(alias, options)
        if first.wants_final or options.canonicalize_hostname != CANON_NO:
            options.hostname = host
            reader.run(files, _pass(host, alias, True, env, options))
    except ExecNotEvaluated as exc:
        raise Refused(str(exc)) from None
    except ExpandError as exc:  # HostName's tokens, expanded for a Match host
        raise Refused(f"ssh fails for this alias: HostName: {exc}") from None
    return _finish(alias, host, options, env)


def _preset(preset: Preset) -> Options:
    options = Options(user=preset.user, port=preset.port if preset.port > 0 else -1)
    if preset.jump is not None:
        try:
            options.set_jump(parse_jump(preset.jump, strict=True))
        except ValueError as exc:
            raise Refused(f"ProxyJump: {exc}") from None
    return options


def _pass(host: str, original: str, final: bool, env: ClientEnv, options: Options) -> Pass:
    return Pass(
        host=host,
        original_host=original,
        final=final,
        home=env.home,
        local_user=env.user,
        environ=dict(env.environ),
        options=options,
    )


def _canonical_host(alias: str, options: Options) -> str:
    """The host name after the first pass: HostName with %h, lower-cased, canonicalized."""
    if options.canonicalize_max_dots == -1:
        options.canonicalize_max_dots = 1
    if options.canonicalize_fallback_local == -1:
        options.canonicalize_fallback_local = 1
    if options.canonicalize_hostname == -1:
        options.canonicalize_hostname = CANON_NO
    host = alias
    if options.hostname is not None:
        try:
            host = expand(options.hostname, {"h": alias})
        except ExpandError as exc:
            raise Refused(f"ssh fails for this alias: HostName: {exc}") from None
        options.hostname = host
    was_address = is_addr(host)
    if not was_address:
        host = ascii_lower(host)
    numeric = False
    if options.canonicalize_hostname != CANON_NO or was_address:
        numeric = numeric_form(host) is not None
        try:
            host = canonicalize(host, options)
        except NeedsDNS as exc:
            raise Refused(f"{exc}; Pairbench resolves hosts without DNS") from None
        except ValueError as exc:
            raise Refused(f"ssh fails for this alias: {exc}") from None
    if follows_cnames(options, numeric):
        raise Refused(
            "CanonicalizePermittedCNAMEs: ssh looks the name up in DNS to follow CNAMEs; "
            "Pairbench resolves hosts without DNS"
        )
    return host


def _finish(alias: str, host: str, o: Options, env: ClientEnv) -> Resolved:
    """Defaults, checks and expansions after the passes (``fill_default_options`` on)."""
    identities = o.identity_files or [(path, False) for path in DEFAULT_IDENTITIES]
    known_hosts = o.user_known_hosts or list(DEFAULT_KNOWN_HOSTS)
    command = o.proxy_command
    if command is not None and command.lower() == "none":
        command = None
    jump = None
    if o.jump_host is not None and not (
        o.jump_host == "none" and o.jump_port == 0 and o.jump_user is None
    ):
        jump = JumpSpec(o.jump_host, o.jump_user, o.jump_port, o.jump_extra)
    user = o.user if o.user is not None else env.user
    port = o.port if o.port > 0 else DEFAULT_PORT
    if jump is not None:
        jump_port = jump.port if jump.port > 0 else DEFAULT_PORT
        if jump.host == host and jump_port == port and (jump.user or user) == user:
            raise Refused(f"ssh fails for this alias: jumphost loop via {jump.host}")
    key_alias = ascii_lower(o.host_key_alias) if o.host_key_alias is not None else None
    tokens = _tokens(alias, host, port, user, key_alias, env)
    if [k.lower() for k in known_hosts] == ["none"]:
        known_hosts = []
    try:
        known = tuple(_path(path, tokens, env) for path in known_hosts)
        agent = None if o.identity_agent is None else _path(o.identity_agent, tokens, env)
        identity_paths = tuple(_path(p, tokens, env) for p, _ in identities if p.lower() != "none")
        certificate_paths = tuple(_path(p, tokens, env) for p, _ in o.certificate_files)
    except ExpandError as exc:
        raise Refused(f"ssh fails for this alias: {exc}") from None
    return Resolved(
        alias=alias,
        hostname=host,
        port=port,
        user=user,
        identity_files=tuple(p for p, _ in identities),
        identity_paths=identity_paths,
        default_identities=not o.identity_files,
        certificate_files=tuple(p for p, _ in o.certificate_files),
        certificate_paths=certificate_paths,
        identities_only=o.identities_only == 1,
        identity_agent=agent,
        strict_host_key_checking=_strict_name(o.strict_host_key_checking),
        user_known_hosts=known,
        host_key_alias=key_alias,
        jump=jump,
        proxy_command=command,
        proxy_use_fdpass=o.proxy_use_fdpass == 1,
        not_honoured=tuple((k, v, where) for k, (v, where) in o.not_honoured.items()),
    )


def _strict_name(value: int) -> str:
    value = STRICT_ASK if value == -1 else value
    return next(name for name, state in STRICT.items() if state == value)


def _tokens(
    alias: str, host: str, port: int, user: str, key_alias: str | None, env: ClientEnv
) -> dict[str, str]:
    """ssh's connection tokens (``DEFAULT_CLIENT_PERCENT_EXPAND_ARGS``)."""
    digest = hashlib.sha1(
        f"{env.hostname}{host}{port}{user}".encode("utf-8", "surrogateescape"),
        usedforsecurity=False,
    )
    return {
        "C": digest.hexdigest(),
        "L": env.hostname.split(".", 1)[0],
        "i": str(env.uid),
        "k": key_alias if key_alias is not None else alias,
        "l": env.hostname,
        "n": alias,
        "p": str(port),
        "d": env.home,
        "h": host,
        "r": user,
        "u": env.user,
    }


def _path(value: str, tokens: dict[str, str], env: ClientEnv) -> str:
    """``~`` then ``%`` tokens and ``${VAR}``, as ssh expands file names before connecting."""
    return expand(tilde_expand(value, env.home), tokens, env.environ)
