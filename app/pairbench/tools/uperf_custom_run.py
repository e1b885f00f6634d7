"""A user's uperf profile on a pair: its ``$variables`` filled (the pair's server, Pairbench's
parameters, the user's ``profile_vars``), and what the run needs to know of it (threads, the
timed transaction, its length, the lines that describe it)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from pairbench.tools.uperf_custom import CustomProfile, ProfileError, Transaction
from pairbench.tools.uperf_profiles import DEFAULT_VARS, MAX_THREADS, VAR_NAME

__all__ = [
    "STANDARD_VARS",
    "RunShape",
    "parse_vars",
    "profile_env",
    "profile_lines",
    "run_shape",
]

# Variables Pairbench fills from its own parameters, under the names of its profiles (and of
# uperf's own workloads/netperf.xml and iperf.xml: $proto, $nthr).
STANDARD_VARS: Final[Mapping[str, str]] = {
    DEFAULT_VARS.protocol: "protocol",
    DEFAULT_VARS.threads: "threads",
    DEFAULT_VARS.duration: "duration",
    DEFAULT_VARS.size: "size",
    DEFAULT_VARS.count: "count",
    DEFAULT_VARS.wndsz: "wndsz",
}
# A value of the user's: no blank (uperf splits options on them), quote, '$', '=' or shell
# character; uperf keeps at most 128 characters of most of them.
_VALUE: Final = re.compile(r"[A-Za-z0-9._:%+-]{1,128}")
_TIME: Final = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([a-z]*)")
# uperf's time suffixes (numbers.c get_multiplier): the first letter counts, "m" is ms.
_TIME_UNITS: Final = {"": 1.0, "s": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
# Flowops whose operations are the timed transaction's own (one op per count).
_TRANSFERS: Final = frozenset({"read", "write", "send", "recv"})


def parse_vars(text: str) -> dict[str, str]:
    """``profile_vars``: ``name=value`` items apart by blanks or commas (``iter=100 conn=4``);
    names lower-cased (uperf lower-cases the profile before it reads the environment)."""
    found: dict[str, str] = {}
    for item in re.split(r"[\s,]+", text.strip()):
        if not item:
            continue
        name, sep, value = item.partition("=")
        name = name.lower()
        if not sep or not VAR_NAME.fullmatch(name):
            raise ProfileError(
                f"profile_vars: {item[:60]!r} is not name=value (a name of letters, digits, '_')"
            )
        if not _VALUE.fullmatch(value):
            raise ProfileError(
                f"profile_vars: {name}={value[:60]!r}: a value is letters, digits and ._:%+- "
                "(no blanks, quotes or shell characters)"
            )
        if name in found:
            raise ProfileError(f"profile_vars: {name} given twice")
        found[name] = value
    return found


def _standard(param: str, params: Mapping[str, str]) -> str | None:
    """A standard variable's value from its parameter; None when the parameter is not set
    (size and wndsz: "0" means a built-in profile's default, which a user's has not)."""
    value = params.get(param, "")
    if param == "threads":
        return value if value not in ("", "0") else "1"
    if param == "duration":
        return f"{value or '10'}s"
    return value if value not in ("", "0") else None


def profile_env(profile: CustomProfile, params: Mapping[str, str], host: str) -> dict[str, str]:
    """The environment uperf runs ``profile`` with: each ``remotehost`` variable is ``host``
    (the pair's server), ``$proto``, ``$nthr``, ``$dur``, ``$size``, ``$count``, ``$wndsz`` come
    from the parameters of the same meaning, every other variable from ``profile_vars``.
    ``ProfileError`` for a variable the profile uses that nothing fills, and a
    ``profile_vars`` name the profile does not use or that Pairbench fills."""
    used = profile.variables()
    hosts = profile.host_variables()
    given = parse_vars(params.get("profile_vars", ""))
    env: dict[str, str] = {}
    for name, where in sorted(used.items()):
        if name in hosts:
            if name in given:
                raise ProfileError(
                    f"profile_vars: ${name} is a remotehost: Pairbench fills it with the pair's "
                    "server address"
                )
            env[name] = host
        elif name in STANDARD_VARS:
            param = STANDARD_VARS[name]
            if name in given:
                raise ProfileError(
                    f"profile_vars: ${name} comes from the {param} parameter: set {param} instead"
                )
            value = _standard(param, params)
            if value is None:
                raise ProfileError(
                    f"the profile uses ${name} (in its {where}): set the {param} parameter"
                )
            env[name] = value
        elif name in given:
            env[name] = given[name]
        else:
            raise ProfileError(
                f"the profile uses ${name} (in its {where}): give its value with --set "
                f"profile_vars={name}=VALUE"
            )
    unused = sorted(set(given) - set(used))
    if unused:
        raise ProfileError(f"profile_vars: the profile does not use ${unused[0]}")
    return env


def _value(text: str, env: Mapping[str, str]) -> str:
    return env.get(text[1:], "") if text.startswith("$") else text


def _seconds(text: str) -> float | None:
    """A uperf time (``30s``, ``500m`` = 500 ms, ``2``) in seconds; None if uperf would not
    read it."""
    m = _TIME.fullmatch(text)
    if m is None or m.group(2)[:1] not in _TIME_UNITS:
        return None
    return float(m.group(1)) * _TIME_UNITS[m.group(2)[:1]]


@dataclass(frozen=True, slots=True)
class RunShape:
    """What a run of the profile needs to know: its strands (threads), its timed transaction
    (uperf's ``TxnN``, None when not exactly one position has a ``duration`` in every group),
    that one's operations per iteration (None unless one group of reads and writes), whether
    every connection is UDP, and its length in seconds (the timed transactions)."""

    threads: int
    main_txn: int | None
    ops_per_iteration: int | None
    udp: bool
    seconds: float


def _timed_positions(profile: CustomProfile) -> list[int]:
    longest = max(len(g.transactions) for g in profile.groups)
    return [
        i + 1
        for i in range(longest)
        if all(len(g.transactions) > i and g.transactions[i].duration for g in profile.groups)
        and not any(
            len(g.transactions) > i and g.transactions[i].iterations for g in profile.groups
        )
    ]


def _ops(txn: Transaction, env: Mapping[str, str]) -> int | None:
    total = 0
    for flowop in txn.flowops:
        count = _value(flowop.option("count") or "1", env)
        if flowop.type not in _TRANSFERS or not count.isdigit() or int(count) < 1:
            return None
        total += int(count)
    return total


def run_shape(profile: CustomProfile, env: Mapping[str, str]) -> RunShape:
    """The run's shape with the variables of ``env``; ``ProfileError`` for a strand count
    that is no whole number or more than ``MAX_THREADS`` in all."""
    threads = 0
    for i, group in enumerate(profile.groups, 1):
        value = _value(group.threads, env)
        if not value.isdigit() or int(value) < 1:
            raise ProfileError(f"group {i}: nthreads={value!r}: a whole number from 1")
        threads += int(value)
    if threads > MAX_THREADS:
        raise ProfileError(f"the profile runs {threads} threads; at most {MAX_THREADS} in all")
    timed = _timed_positions(profile)
    main = timed[0] if len(timed) == 1 else None
    opi = None
    if main is not None and len(profile.groups) == 1:
        opi = _ops(profile.groups[0].transactions[main - 1], env)
    protocols = [
        _value(value, env)
        for group in profile.groups
        for txn in group.transactions
        for flowop in txn.flowops
        for key, value in flowop.options
        if key == "protocol"
    ]
    seconds = 0.0
    longest = max(len(g.transactions) for g in profile.groups)
    for i in range(longest):
        lengths = [
            _seconds(_value(g.transactions[i].duration, env)) or 0.0
            for g in profile.groups
            if len(g.transactions) > i and g.transactions[i].duration
        ]
        seconds += max(lengths, default=0.0)
    udp = bool(protocols) and all(p == "udp" for p in protocols)
    return RunShape(threads, main, opi, udp, seconds)


def profile_lines(profile: CustomProfile) -> list[str]:
    """The profile in a few lines: per group its threads, per transaction its number (as
    uperf's progress lines count: Txn1...), how long it runs and its flowops."""
    lines = [f"profile {profile.name or '(no name)'}: {len(profile.groups)} group(s)"]
    for i, group in enumerate(profile.groups, 1):
        lines.append(f"  group {i}: nthreads={group.threads}")
        for n, txn in enumerate(group.transactions, 1):
            runs = (
                f"duration={txn.duration}"
                if txn.duration
                else f"iterations={txn.iterations or '1'}"
            )
            rate = f" rate={txn.rate}" if txn.rate else ""
            flowops = ", ".join(f.type for f in txn.flowops)
            lines.append(f"    txn{n} {runs}{rate}: {flowops}")
    return lines
