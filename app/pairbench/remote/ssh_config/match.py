"""``Match`` lines evaluated as OpenSSH 9.2 does (readconf.c ``match_cfg_line``).

``Match exec`` runs a command each time ssh connects. Pairbench stores a resolved host once,
so a command's answer at import time would be frozen into the host while ssh asks again at
every connection (network probes, agent checks, VPN state...). An alias whose resolution
reaches a ``Match exec`` that ssh would run is therefore refused (``ExecNotEvaluated``); an
exec ssh skips (an earlier criterion of its line failed, or the line is in a file included
from a block that does not apply) changes nothing and is skipped here too.
"""

from __future__ import annotations

from dataclasses import dataclass

from pairbench.remote.ssh_config.lexer import Directive, LineError, strdelim
from pairbench.remote.ssh_config.patterns import match_hostname, match_pattern_list
from pairbench.remote.ssh_config.tokens import ExpandError, expand


class ExecNotEvaluated(Exception):
    """ssh would run a ``Match exec`` command for this alias; the message says which."""


@dataclass(frozen=True, slots=True)
class MatchContext:
    """What a Match line is evaluated against (the alias's state when ssh reads the line)."""

    host_arg: str  # the name given to ssh (Host lines' name in the first pass)
    original_host: str  # the name given to ssh, always
    hostname: str | None  # HostName so far (in the final pass: the canonical host name)
    user: str  # User so far, else the local user
    local_user: str
    final: bool  # the final pass (after canonicalization or Match final)
    never_match: bool  # a file included from a block that does not apply


@dataclass
class MatchOutcome:
    """Whether the block applies, and whether the line asked for a final pass."""

    active: bool
    wants_final: bool = False


def evaluate(line: Directive, context: MatchContext) -> MatchOutcome:
    """Evaluate one Match line; ``LineError`` when ssh refuses it, ``ExecNotEvaluated`` when ssh
    would run its exec command for this alias, ``ExpandError`` when HostName has a bad token."""
    host = _match_host(context)
    rest: str | None = line.rest
    result = 1
    attributes = 0
    wants_final = False
    while True:
        attribute, rest = strdelim(rest)
        if not attribute:
            break
        if attribute.startswith("#"):
            rest = None
            break
        negate = attribute.startswith("!")
        name = attribute[1:] if negate else attribute
        lowered = name.lower()
        if lowered == "all":
            following, after = strdelim(rest)
            if attributes > 1 or (following and not following.startswith("#")):
                raise LineError(f"'{attribute}' cannot be combined with other Match attributes")
            rest = None if following and following.startswith("#") else after
            if result:
                result = 0 if negate else 1
            return _done(line, rest, attributes + 1, result, wants_final, context)
        attributes += 1
        if lowered in ("canonical", "final"):
            wants_final = wants_final or lowered == "final"
            if context.final == negate:
                result = 0
            continue
        argument, rest = strdelim(rest)
        if not argument or argument.startswith("#"):
            raise LineError(f"Missing Match criteria for {name}")
        if lowered == "exec":
            try:
                expand(argument, _EXEC_TOKENS)
            except ExpandError as exc:
                raise LineError(f"Match exec: {exc}") from None
            if result == 1 and not context.never_match:
                raise ExecNotEvaluated(_exec_reason(line, argument))
            continue
        matched = _criterion(lowered, argument, host, context, name)
        if matched == negate:
            result = 0
    return _done(line, rest, attributes, result, wants_final, context)


def _done(
    line: Directive,
    rest: str | None,
    attributes: int,
    result: int,
    wants_final: bool,
    context: MatchContext,
) -> MatchOutcome:
    if attributes == 0:
        raise LineError("One or more attributes required for Match")
    if rest:
        raise LineError(f"keyword {line.keyword} extra arguments at end of line")
    return MatchOutcome(active=bool(result) and not context.never_match, wants_final=wants_final)


def _match_host(context: MatchContext) -> str:
    """The host name a ``Match host`` compares: HostName so far with ``%h`` expanded."""
    if context.final:
        return context.hostname or context.host_arg
    if context.hostname is None:
        return context.host_arg
    return expand(context.hostname, {"h": context.host_arg})


def _criterion(lowered: str, argument: str, host: str, context: MatchContext, name: str) -> bool:
    if lowered == "host":
        return match_hostname(host, argument) == 1
    if lowered == "originalhost":
        return match_hostname(context.original_host, argument) == 1
    if lowered == "user":
        return match_pattern_list(context.user, argument, False) == 1
    if lowered == "localuser":
        return match_pattern_list(context.local_user, argument, False) == 1
    raise LineError(f"Unsupported Match attribute {name}")


# The tokens a Match exec command may use (values do not matter: it is never run here).
_EXEC_TOKENS = {token: "" for token in "CLdhklnprui"}


def _exec_reason(line: Directive, command: str) -> str:
    return (
        f'Match exec "{command}" ({line.where}) is not evaluated: ssh runs it at each '
        "connection and its answer can change, while Pairbench stores the host once"
    )
