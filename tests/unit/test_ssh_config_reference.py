"""Differential test: every alias of the corpus in ``tests/data/ssh_config`` resolved by
Pairbench and by OpenSSH itself (``ssh -G``, ``ssh -v``), compared field by field.

For each alias (and each ``# probes:`` name) of each corpus file:

* ``ssh -G -F FILE ALIAS``: user, host name, port, every identity file in order, certificate
  files, IdentitiesOnly, StrictHostKeyChecking, UserKnownHostsFile, HostKeyAlias,
  IdentityAgent, ProxyJump and ProxyCommand must equal Pairbench's resolution;
* ``ssh -v -o ProxyCommand=false -F FILE ALIAS``: the identity and certificate files ssh
  expands and loads before connecting (tokens, ``~``, ``${VAR}``) must equal the paths
  Pairbench stores;
* the ProxyJump chain: ssh's own implicit ProxyCommand (``ssh -l U -p P -J HOPS HOST -W ..``,
  logged by ``ssh -v``) gives each hop's command line, resolved again by ``ssh -G``, down to
  the first hop; each hop must equal Pairbench's hop, in order;
* the host the import stores (``services/ssh_hosts``) and its hops: address, port, user,
  identity and certificate files, known_hosts files, HostKeyAlias, ProxyCommand and whether
  a first key is accepted must be what ssh uses.

An alias Pairbench refuses must be one where ssh's own run shows why: the ``Match exec``
command executed, the DNS lookup attempted, or ssh failing. A file ssh refuses, Pairbench
refuses too. See ``tests/data/ssh_config/README.md`` and ``tests/ssh_reference.py``.
"""

from __future__ import annotations

import shlex
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pairbench.domain import Host
from pairbench.remote.ssh_config import (
    ClientEnv,
    Resolved,
    SSHConfigEntry,
    SSHConfigError,
    open_config,
)
from pairbench.services.ssh_hosts import host_from_entry
from ssh_reference import USER, Answer, Sandbox, require_sandbox
from testkit import REPO

CORPUS = REPO / "tests" / "data" / "ssh_config"
CASES = sorted(p.name for p in CORPUS.glob("*.conf"))
# The environment ssh and Pairbench resolve with (README.md of the corpus).
CORPUS_ENV = {
    "PB_KEYDIR": "/srv/pb-keys",
    "PB_TEAM": "Blue",
    "SSH_AUTH_SOCK": "/run/pb-test/agent.sock",
}
IMPLICIT = "debug1: Setting implicit ProxyCommand from ProxyJump: "
MAX_HOPS = 6
KEYS = (
    "user",
    "hostname",
    "port",
    "identityfile",
    "certificatefile",
    "identitiesonly",
    "stricthostkeychecking",
    "userknownhostsfile",
    "hostkeyalias",
    "identityagent",
    "proxyjump",
    "proxycommand",
)
# Why Pairbench refuses an alias, and what ssh's own output shows when that is true.
EVIDENCE = {
    "Match exec": ("Executing command: ",),
    "DNS": ('attempting "', "name is fully qualified", "Could not resolve hostname"),
}


@dataclass
class Hop:
    """ssh's resolution of one hop: ``-G``, and ``-v`` for the files it loads."""

    g: Answer
    v: Answer


@dataclass
class Case:
    """One corpus file: Pairbench's entries and ssh's answers, per name."""

    name: str
    names: list[str] = field(default_factory=list)
    ours: dict[str, SSHConfigEntry] = field(default_factory=dict)
    error: str | None = None  # Pairbench refused the whole file
    g: dict[str, Answer] = field(default_factory=dict)
    v: dict[str, Answer] = field(default_factory=dict)
    chains: dict[str, list[Hop]] = field(default_factory=dict)


def _header(path: Path) -> tuple[list[str], bool]:
    """``# probes: NAME...`` (names to resolve besides the aliases) and ``# mode: default``
    (read as ~/.ssh/config, with NAME.system as /etc/ssh/ssh_config) from the file's top."""
    probes: list[str] = []
    default_mode = False
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        key, _, value = line[1:].strip().partition(":")
        if key == "probes":
            probes += value.split()
        elif key == "mode":
            default_mode = value.strip() == "default"
    return probes, default_mode


def _host_names(path: Path) -> list[str]:
    """The concrete names on the file's own ``Host`` lines, read plainly (so a file Pairbench
    refuses still has names to ask ssh about)."""
    names = []
    for line in path.read_text().splitlines():
        words = line.replace("=", " ").split()
        if len(words) > 1 and words[0].lower() == "host":
            names += [w.strip('"') for w in words[1:] if not set(w) & set("*?!#")]
    return names


def _sandbox(root: Path) -> Sandbox:
    sandbox = Sandbox.make(root, CORPUS_ENV)
    target = sandbox.home / ".ssh"
    shutil.copytree(CORPUS, target, dirs_exist_ok=True)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return sandbox


def _env(sandbox: Sandbox) -> ClientEnv:
    return ClientEnv(str(sandbox.home), USER, 0, sandbox.hostname, dict(sandbox.environ))


def _g(options: list[str], host: str) -> list[str]:
    return ["ssh", "-G", "-vvv", *options, "--", host]


def _v(options: list[str], host: str) -> list[str]:
    no_proxy = ["-o", "ProxyCommand=false", "-o", "BatchMode=yes"]
    return ["ssh", "-v", *no_proxy, *options, "--", host, "true"]


def _connect(options: list[str], host: str) -> list[str]:
    return ["ssh", "-v", "-o", "BatchMode=yes", *options, "--", host, "true"]


def _next_hop(answer: Answer) -> tuple[list[str], list[str], str] | None:
    """ssh's implicit ProxyCommand for a ProxyJump, as (options for ``-G``, options for the
    ``-v`` run, hop host); None when ssh reaches the host directly."""
    line = next((x for x in answer.stderr.splitlines() if x.startswith(IMPLICIT)), None)
    if line is None:
        return None
    argv = shlex.split(line[len(IMPLICIT) :])[1:]
    g_options: list[str] = []
    v_options: list[str] = []
    while argv and argv[0].startswith("-"):
        flag = argv.pop(0)
        if flag in ("-l", "-p", "-F"):
            value = argv.pop(0)
            g_options += [flag, value]
            v_options += [flag, value]
        elif flag == "-J":
            g_options += [flag, argv.pop(0)]
        elif flag == "-W":
            argv.pop(0)
    return g_options, v_options, argv[0]


@dataclass
class _Setup:
    """One case ready to ask ssh about: its sandbox and the options naming its file."""

    case: Case
    sandbox: Sandbox
    options: list[str]


def _setup(name: str, shared: Sandbox, root: Path) -> _Setup:
    """Pairbench's side of one case; ``-F`` cases share one sandbox, a default-mode case (no
    ``-F``: ~/.ssh/config and the system file) has its own."""
    path = CORPUS / name
    probes, default_mode = _header(path)
    sandbox = shared
    config_path: Path | None = shared.home / ".ssh" / name
    if default_mode:
        sandbox = _sandbox(root / path.stem)
        shutil.copy(path, sandbox.home / ".ssh" / "config")
        system = CORPUS / (path.stem + ".system")
        sandbox.system_config = system if system.exists() else Path("/dev/null")
        config_path = None
    system_config = None if sandbox.system_config is None else str(sandbox.system_config)
    config = open_config(config_path, _env(sandbox), system_config=system_config)
    case = Case(name)
    try:
        aliases = config.aliases()
    except SSHConfigError as exc:
        case.error = str(exc)
        aliases = []
    extra = [n for n in (*_host_names(path), *probes) if n not in aliases]
    case.names = [*aliases, *dict.fromkeys(extra)]
    if case.error is None:
        case.ours = {n: config.resolve(n) for n in case.names}
    options = [] if config_path is None else ["-F", str(config_path)]
    return _Setup(case, sandbox, options)


def _batch(requests: list[tuple[Sandbox, list[str]]]) -> list[Answer]:
    """Run every command, one namespace per sandbox; the answers in the order asked."""
    answers: list[Answer | None] = [None] * len(requests)
    sandboxes = {id(sandbox): sandbox for sandbox, _ in requests}
    for key, sandbox in sandboxes.items():
        positions = [i for i, (s, _) in enumerate(requests) if id(s) == key]
        for i, answer in zip(
            positions, sandbox.run([requests[i][1] for i in positions]), strict=True
        ):
            answers[i] = answer
    assert all(a is not None for a in answers)
    return [a for a in answers if a is not None]


def _resolve_all(root: Path) -> dict[str, Case]:
    """Every case, ssh asked in as few namespaces as there are sandboxes and hop depths."""
    shared = _sandbox(root / "shared")
    setups = [_setup(name, shared, root) for name in CASES]
    asked = [(st, n) for st in setups for n in st.case.names]
    answers = iter(
        _batch([(st.sandbox, c) for st, n in asked for c in (_g(st.options, n), _v(st.options, n))])
    )
    for st, n in asked:
        st.case.g[n], st.case.v[n] = next(answers), next(answers)
        st.case.chains[n] = []
    jumping = [(st, n) for st, n in asked if st.case.g[n].fields().get("proxyjump")]
    connects = _batch([(st.sandbox, _connect(st.options, n)) for st, n in jumping])
    pending = {
        (st.case.name, n): (st, hop)
        for (st, n), answer in zip(jumping, connects, strict=True)
        if (hop := _next_hop(answer)) is not None
    }
    for _ in range(MAX_HOPS):
        if not pending:
            break
        order = list(pending)
        requests = []
        for key in order:
            st, (g_options, v_options, host) = pending[key]
            requests += [
                (st.sandbox, _g(g_options, host)),
                (st.sandbox, _v(v_options, host)),
                (st.sandbox, _connect(g_options, host)),
            ]
        answers = iter(_batch(requests))
        following = {}
        for key in order:
            st = pending[key][0]
            g, v, connect = next(answers), next(answers), next(answers)
            st.case.chains[key[1]].insert(0, Hop(g, v))
            if (hop := _next_hop(connect)) is not None:
                following[key] = (st, hop)
        pending = following
    return {st.case.name: st.case for st in setups}


def _view(r: Resolved) -> dict[str, list[str]]:
    """Pairbench's resolution in ``ssh -G``'s words."""
    return {
        "user": [r.user],
        "hostname": [r.hostname],
        "port": [str(r.port)],
        "identityfile": list(r.identity_files),
        "certificatefile": list(r.certificate_files),
        "identitiesonly": ["yes" if r.identities_only else "no"],
        "stricthostkeychecking": [r.strict_host_key_checking],
        "userknownhostsfile": [" ".join(r.user_known_hosts) or "none"],
        "hostkeyalias": [r.host_key_alias] if r.host_key_alias is not None else [],
        "identityagent": [r.identity_agent] if r.identity_agent is not None else [],
        "proxyjump": [r.jump.shown()] if r.jump is not None else [],
        "proxycommand": [r.proxy_command] if r.proxy_command is not None else [],
    }


def _ssh_view(answer: Answer) -> dict[str, list[str]]:
    fields = answer.fields()
    return {key: fields.get(key, []) for key in KEYS}


def _compare(what: str, ours: Resolved, g: Answer, v: Answer) -> list[str]:
    """The differences between Pairbench's resolution and ssh's, one line each."""
    if g.returncode != 0:
        return [f"{what}: ssh -G failed ({g.stderr.strip().splitlines()[-1:]}), Pairbench did not"]
    problems = []
    theirs, mine = _ssh_view(g), _view(ours)
    for key in KEYS:
        if theirs[key] != mine[key]:
            problems.append(f"{what}: {key}: ssh {theirs[key]} / Pairbench {mine[key]}")
    if v.identity_files() != list(ours.identity_paths):
        problems.append(
            f"{what}: identity files loaded: ssh {v.identity_files()} / "
            f"Pairbench {list(ours.identity_paths)}"
        )
    if v.certificate_files() != list(ours.certificate_paths):
        problems.append(
            f"{what}: certificate files: ssh {v.certificate_files()} / "
            f"Pairbench {list(ours.certificate_paths)}"
        )
    return problems


def _compare_host(what: str, host: Host, g: Answer, v: Answer) -> list[str]:
    """The host Pairbench stores against what ssh uses to connect."""
    fields = g.fields()
    known = fields["userknownhostsfile"][0].split()
    strict = fields["stricthostkeychecking"][0]
    stored = {
        "hostname": host.address,
        "port": str(host.port),
        "user": host.user,
        "identity files": list(host.ssh.identity_files),
        "certificate files": list(host.ssh.certificate_files),
        "known_hosts": list(host.ssh.known_hosts or ()),
        "hostkeyalias": host.ssh.host_key_alias,
        "proxycommand": host.ssh.proxy_command,
        "first key accepted": host.ssh.accept_new_host_keys,
    }
    used = {
        "hostname": fields["hostname"][0],
        "port": fields["port"][0],
        "user": fields["user"][0],
        "identity files": v.identity_files(),
        "certificate files": v.certificate_files(),
        "known_hosts": [] if known == ["none"] else known,
        "hostkeyalias": (fields.get("hostkeyalias") or [None])[0],
        "proxycommand": (fields.get("proxycommand") or [None])[0],
        "first key accepted": strict in ("accept-new", "false"),
    }
    return [
        f"{what}: stored {key} {stored[key]!r}, ssh uses {used[key]!r}"
        for key in stored
        if stored[key] != used[key]
    ]


def _check_stored(name: str, entry: SSHConfigEntry, case: Case) -> list[str]:
    """The imported host (``services/ssh_hosts``) and its hops hold what ssh uses; an alias
    refused by Pairbench's own rules (a name or address it does not store) says so."""
    try:
        host = host_from_entry(entry).host
    except ValueError as exc:
        return [] if str(exc).startswith("invalid ") else [f"{name}: not stored: {exc}"]
    problems = _compare_host(name, host, case.g[name], case.v[name])
    for i, (hop, stored) in enumerate(zip(case.chains[name], host.ssh.jumps, strict=False)):
        problems += _compare_host(f"{name} hop {i + 1}", stored, hop.g, hop.v)
    return problems


def _check_refusal(name: str, reason: str, case: Case) -> list[str]:
    """A refusal must be backed by ssh's own run."""
    g, v = case.g[name], case.v[name]
    chain_text = "".join(h.g.stderr + h.v.stderr for h in case.chains[name])
    seen = g.stderr + v.stderr + chain_text
    if "ProxyUseFdpass" in reason:
        fdpass = [g.fields().get("proxyusefdpass")] + [
            h.g.fields().get("proxyusefdpass") for h in case.chains[name][:1]
        ]
        return [] if ["yes"] in fdpass else [f"{name}: refused ({reason}) but ssh has no fdpass"]
    for cause, marks in EVIDENCE.items():
        if cause in reason:
            if any(mark in seen for mark in marks):
                return []
            return [f"{name}: refused ({reason}) but ssh shows no {cause}"]
    if "ssh fails" in reason:
        failed = g.returncode != 0 or (v.returncode == 255 and "expansion" in v.stderr + v.stdout)
        failed = failed or "unknown key" in v.stderr or "jumphost loop" in g.stderr + v.stderr
        failed = failed or any(h.g.returncode != 0 for h in case.chains[name])
        return [] if failed else [f"{name}: refused ({reason}) but ssh did not fail"]
    return [f"{name}: refused for a reason ssh cannot confirm: {reason}"]


def check(case: Case) -> tuple[int, list[str]]:
    """(names that agree, the problems)."""
    if case.error is not None:
        accepted = [n for n in case.names if case.g[n].returncode == 0]
        if accepted or not case.names:
            return 0, [f"Pairbench refused the file ({case.error}); ssh accepts {accepted}"]
        return len(case.names), []
    agreed = 0
    problems: list[str] = []
    for name in case.names:
        entry = case.ours[name]
        found: list[str]
        if entry.refused is not None:
            found = _check_refusal(name, entry.refused, case)
        else:
            assert entry.resolved is not None
            found = _compare(name, entry.resolved, case.g[name], case.v[name])
            chain = case.chains[name]
            if len(chain) != len(entry.hops):
                found.append(
                    f"{name}: ssh goes through {len(chain)} hops, Pairbench {len(entry.hops)}"
                )
            else:
                for i, (hop, ours) in enumerate(zip(chain, entry.hops, strict=True)):
                    found += _compare(f"{name} hop {i + 1}", ours, hop.g, hop.v)
            found += _check_stored(name, entry, case)
        agreed += not found
        problems += found
    return agreed, problems


@pytest.fixture(scope="module")
def resolved() -> Iterator[dict[str, Case]]:
    """The corpus resolved by both, in a home with a short path: ssh gives up on a
    ``ControlPath`` (``~/.ssh/cm-%C``: 43 characters after the home) longer than a Unix
    socket's 107 bytes before it loads any identity, which a deep ``tmp_path`` (a pytest-xdist
    worker's ``popen-gwN``) reaches: that is about the path, not about the config."""
    require_sandbox()
    root = Path(tempfile.mkdtemp(prefix="pbssh-", dir="/tmp"))
    try:
        yield _resolve_all(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("name", CASES)
def test_each_alias_resolves_as_ssh_does(name: str, resolved: dict[str, Case]) -> None:
    agreed, problems = check(resolved[name])
    assert not problems, "\n".join(problems)
    assert agreed == len(resolved[name].names)


def test_the_corpus_covers_every_construct(resolved: dict[str, Case]) -> None:
    texts = "\n".join(p.read_text().lower() for p in CORPUS.rglob("*") if p.is_file())
    for construct in (
        "match host", "match originalhost", "match user", "match localuser", "match exec",
        "match all", "match final", "match canonical", "match !", "include", "identityfile",
        "identitiesonly", "certificatefile", "stricthostkeychecking", "userknownhostsfile",
        "hostkeyalias", "proxyjump", "proxycommand", "ssh://", "canonicalizehostname",
        "${", "%h", "%d", "%r", "%n", "%c", "%l", "%u", "%i", "%p", "%k",
    ):  # fmt: skip
        assert construct in texts, construct
    assert len(CASES) >= 30
    total = sum(len(case.names) for case in resolved.values())
    agreed = sum(check(case)[0] for case in resolved.values())
    refused = [
        f"{name}: {entry.refused}"
        for case in resolved.values()
        for name, entry in case.ours.items()
        if entry.refused is not None
    ]
    print(f"ssh_config corpus: {agreed}/{total} names resolve as ssh -G does")
    print(f"  in {len(CASES)} files; {len(refused)} names refused, each as ssh's run confirms:")
    print("\n".join(f"    {line}" for line in refused))
    assert agreed == total >= 100
