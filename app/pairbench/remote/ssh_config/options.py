"""The options one alias accumulates, and one keyword line applied to them (readconf.c)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pairbench.remote.ssh_config.jump import JumpSpec, a2port, parse_jump
from pairbench.remote.ssh_config.keywords import Use, canonical, known
from pairbench.remote.ssh_config.lexer import WHITESPACE, Directive, LineError, argv_split
from pairbench.remote.ssh_config.patterns import ascii_lower, match_pattern_list
from pairbench.remote.ssh_config.tokens import ExpandError, expand

MAX_IDENTITY_FILES = 100  # SSH_MAX_IDENTITY_FILES
MAX_HOSTS_FILES = 32
MAX_CANON_DOMAINS = 32

# Multi-state values (readconf.c): name -> value; ``-G`` prints the first name of a value.
FLAG = {"true": 1, "false": 0, "yes": 1, "no": 0}
STRICT_OFF, STRICT_NEW, STRICT_YES, STRICT_ASK = 0, 1, 2, 3
STRICT = {
    "true": STRICT_YES,
    "false": STRICT_OFF,
    "yes": STRICT_YES,
    "no": STRICT_OFF,
    "ask": STRICT_ASK,
    "off": STRICT_OFF,
    "accept-new": STRICT_NEW,
}
CANON_NO, CANON_YES, CANON_ALWAYS = 0, 1, 2
CANONICALIZE = {"true": 1, "false": 0, "yes": 1, "no": 0, "always": 2}


@dataclass
class Options:
    """What the lines read so far set for one alias (-1 / None: not set; first value wins)."""

    hostname: str | None = None
    user: str | None = None
    port: int = -1
    host_key_alias: str | None = None
    identity_agent: str | None = None
    ignored_unknown: str | None = None
    proxy_command: str | None = None
    jump_host: str | None = None  # "none" after ProxyJump none
    jump_user: str | None = None
    jump_port: int = -1
    jump_extra: str | None = None
    identity_files: list[tuple[str, bool]] = field(default_factory=list)
    certificate_files: list[tuple[str, bool]] = field(default_factory=list)
    identities_only: int = -1
    strict_host_key_checking: int = -1
    user_known_hosts: list[str] = field(default_factory=list)
    proxy_use_fdpass: int = -1
    canonicalize_hostname: int = -1
    canonical_domains: list[str] = field(default_factory=list)
    canonicalize_max_dots: int = -1
    canonicalize_fallback_local: int = -1
    permitted_cnames: list[tuple[str, str]] = field(default_factory=list)
    # Keywords Pairbench does not honour, first value set for the alias: name -> (value, where)
    not_honoured: dict[str, tuple[str, str]] = field(default_factory=dict)

    def set_jump(self, spec: JumpSpec | None) -> None:
        """What ``parse_jump`` stores for an active ProxyJump (or ``-J``) value."""
        if spec is None:
            self.jump_host, self.jump_port = "none", 0
            return
        self.jump_user, self.jump_host, self.jump_port = spec.user, spec.host, spec.port
        self.jump_extra = spec.extra
        self.proxy_command = "none"


Env = Mapping[str, str]
# One keyword's reader: (options, line, its arguments, whether the line is active, environment)
Handler = Callable[[Options, Directive, list[str], bool, Env], None]


def apply(options: Options, line: Directive, active: bool, environ: Mapping[str, str]) -> None:
    """Apply one keyword line (not Host, Match or Include) as ssh does: its arguments are
    checked even when the line is not active; ``LineError`` says why ssh refuses it."""
    args = argv_split(line.rest)
    keyword = canonical(line.keyword)
    handler = _HANDLERS.get(keyword)
    if handler is not None:
        handler(options, line, args, active, environ)
        return
    entry = known(line.keyword)
    if entry is None:
        ignored = options.ignored_unknown
        if ignored is not None and match_pattern_list(line.keyword, ignored, True) == 1:
            return
        raise LineError(f"Bad configuration option: {line.keyword}")
    if active and entry.use is Use.NOT_HONOURED:
        name = known(keyword) or entry
        options.not_honoured.setdefault(name.name, (" ".join(args), line.where))


def _one(line: Directive, args: list[str]) -> str:
    """The single argument of a line (``Missing argument`` / extra arguments refused)."""
    if not args or not args[0]:
        raise LineError("Missing argument.")
    if len(args) > 1:
        raise LineError(f"keyword {line.keyword} extra arguments at end of line")
    return args[0]


def _state(line: Directive, args: list[str], states: Mapping[str, int]) -> int:
    value = states.get(_one(line, args).lower())
    if value is None:
        raise LineError(f'unsupported option "{args[0]}".')
    return value


def _string(attribute: str) -> Handler:
    def handle(o: Options, line: Directive, args: list[str], active: bool, _env: Env) -> None:
        value = _one(line, args)
        if active and getattr(o, attribute) is None:
            setattr(o, attribute, value)

    return handle


def _state_of(attribute: str, states: Mapping[str, int]) -> Handler:
    def handle(o: Options, line: Directive, args: list[str], active: bool, _env: Env) -> None:
        value = _state(line, args, states)
        if active and getattr(o, attribute) == -1:
            setattr(o, attribute, value)

    return handle


def _files(attribute: str) -> Handler:
    def handle(o: Options, line: Directive, args: list[str], active: bool, _env: Env) -> None:
        path = _one(line, args)
        files: list[tuple[str, bool]] = getattr(o, attribute)
        if active:
            if len(files) >= MAX_IDENTITY_FILES:
                raise LineError(f"Too many {line.keyword} files specified")
            if (path, line.user_config) not in files:
                files.append((path, line.user_config))

    return handle


def _port(o: Options, line: Directive, args: list[str], active: bool, _env: Env) -> None:
    value = a2port(_one(line, args))
    if value <= 0:
        raise LineError(f"Bad port '{args[0]}'.")
    if active and o.port == -1:
        o.port = value


def _proxy_command(o: Options, line: Directive, args: list[str], active: bool, _env: Env) -> None:
    """First value wins; a ProxyJump read before has set it to ``none`` already."""
    if active and o.proxy_command is None:
        o.proxy_command = line.rest.lstrip(WHITESPACE + "=")


def _proxy_jump(o: Options, line: Directive, args: list[str], active: bool, _env: Env) -> None:
    try:
        spec = parse_jump(line.rest)
    except ValueError as exc:
        raise LineError(str(exc)) from None
    if spec is None:
        if active and o.jump_host is None:
            o.set_jump(None)
    elif active and o.proxy_command is None and o.jump_host is None:
        o.set_jump(spec)


def _known_hosts(o: Options, line: Directive, args: list[str], active: bool, _env: Env) -> None:
    was_empty = not o.user_known_hosts
    for position, arg in enumerate(args):
        if not arg:
            raise LineError(f"keyword {line.keyword} empty argument")
        if arg.lower() == "none" and (position > 0 or len(args) > 1):
            raise LineError(f'keyword {line.keyword} "none" argument must appear alone.')
        if active and was_empty:
            if len(o.user_known_hosts) >= MAX_HOSTS_FILES:
                raise LineError(f"too many {line.keyword} entries.")
            o.user_known_hosts.append(arg)


def _identity_agent(
    o: Options, line: Directive, args: list[str], active: bool, environ: Env
) -> None:
    value = _one(line, args)
    try:
        expand(value, None, environ)
    except ExpandError:
        raise LineError(f"Invalid environment expansion {value}.") from None
    name = value[1:]
    legacy = value.startswith("$") and not value.startswith("${")
    if legacy and not (name and all(c.isascii() and (c.isalnum() or c == "_") for c in name)):
        raise LineError(f"Invalid environment name {value}.")
    if active and o.identity_agent is None:
        o.identity_agent = value


def _domains(o: Options, line: Directive, args: list[str], active: bool, _env: Env) -> None:
    was_set = bool(o.canonical_domains)
    for position, arg in enumerate(args):
        if not arg:
            raise LineError(f"keyword {line.keyword} empty argument")
        if arg.lower() == "none" and (position > 0 or len(args) > 1):
            raise LineError(f'keyword {line.keyword} "none" argument must appear alone.')
        domain = _valid_domain(arg)
        if active and not was_set:
            if len(o.canonical_domains) >= MAX_CANON_DOMAINS:
                raise LineError("too many hostname suffixes.")
            o.canonical_domains.append(domain)


def _valid_domain(name: str) -> str:
    """``valid_domain(name, makelower=1)``: the name lower-cased without a final dot."""
    if not (name[:1].isascii() and name[:1].isalnum()):
        raise LineError(f'domain name "{name}" starts with invalid character')
    if ".." in name:
        raise LineError(f'domain name "{name}" contains consecutive separators')
    if not all(c.isascii() and (c.isalnum() or c in ".-_") for c in name):
        raise LineError(f'domain name "{name}" contains invalid characters')
    return ascii_lower(name).removesuffix(".")


def _cnames(o: Options, line: Directive, args: list[str], active: bool, _env: Env) -> None:
    was_set = bool(o.permitted_cnames)
    for position, arg in enumerate(args):
        if arg.lower() == "none":
            if position > 0 or len(args) > 1:
                raise LineError(f'keyword {line.keyword} "none" argument must appear alone.')
            rule = ("none", "")
        elif arg == "*":
            rule = ("*", "*")
        else:
            source, colon, target = ascii_lower(arg).partition(":")
            if not colon or not target:
                raise LineError(f'Invalid permitted CNAME "{ascii_lower(arg)}"')
            rule = (source, target)
        if active and not was_set:
            if len(o.permitted_cnames) >= MAX_CANON_DOMAINS:
                raise LineError("too many permitted CNAMEs.")
            o.permitted_cnames.append(rule)


def _max_dots(o: Options, line: Directive, args: list[str], active: bool, _env: Env) -> None:
    text = args[0] if args else ""
    if not text:
        raise LineError("integer value missing.")
    if not text.isdigit() or int(text) > 2**31 - 1:
        raise LineError("integer value invalid.")
    if len(args) > 1:
        raise LineError(f"keyword {line.keyword} extra arguments at end of line")
    if active and o.canonicalize_max_dots == -1:
        o.canonicalize_max_dots = int(text)


_HANDLERS: dict[str, Handler] = {
    "hostname": _string("hostname"),
    "user": _string("user"),
    "hostkeyalias": _string("host_key_alias"),
    "ignoreunknown": _string("ignored_unknown"),
    "port": _port,
    "identityfile": _files("identity_files"),
    "certificatefile": _files("certificate_files"),
    "identitiesonly": _state_of("identities_only", FLAG),
    "proxyusefdpass": _state_of("proxy_use_fdpass", FLAG),
    "canonicalizefallbacklocal": _state_of("canonicalize_fallback_local", FLAG),
    "stricthostkeychecking": _state_of("strict_host_key_checking", STRICT),
    "canonicalizehostname": _state_of("canonicalize_hostname", CANONICALIZE),
    "userknownhostsfile": _known_hosts,
    "proxycommand": _proxy_command,
    "proxyjump": _proxy_jump,
    "identityagent": _identity_agent,
    "canonicaldomains": _domains,
    "canonicalizepermittedcnames": _cnames,
    "canonicalizemaxdots": _max_dots,
}
