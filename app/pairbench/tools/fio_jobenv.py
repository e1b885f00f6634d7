"""``${VAR}`` in a fio job file, filled as fio fills it from its environment, from values the
user gives (``jobfile_env``: ``NAME=value`` items; ``--set env.NAME=value`` on the CLI, a field
per variable in the window). fio's reserved keywords (``$pagesize``, ``$mb_memory``,
``$ncpus``) are fio's own: left for it to replace."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from pairbench.tools.fio_jobtext import JobFileError, comment_start, option_lines
from pairbench.tools.params import Param

# fio (parse.c, option_dup_subs): "${" up to the first "}" is replaced by the environment
# variable of that name, "" when unset; in option lines only, after their comment is cut.
_REFERENCE: Final = re.compile(r"\$\{([^}]*)\}")
VAR_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
# A value goes into the job file as text: no blank (items are apart by blanks), nothing that
# would start a comment there (";", "#") or be read as another variable ("${").
_VALUE: Final = re.compile(r"[^\s;#]{0,1024}")
ENV_PREFIX: Final = "env."
MAX_VARIABLES: Final = 64


def references(text: str) -> list[str]:
    """The variables the job file's options use, in order of first use; ``JobFileError`` for
    a reference that is no variable name (``${}``, ``${A B}``) or one in an option's name."""
    names: list[str] = []
    for number, raw in option_lines(text):
        option = raw[: comment_start(raw)]
        key = option.partition("=")[0]
        if "${" in key:
            raise JobFileError(
                f"line {number}: {key.strip()[:60]!r}: a variable in an option's name: write "
                "the name itself"
            )
        for match in _REFERENCE.finditer(option):
            name = match.group(1)
            if not VAR_NAME.fullmatch(name):
                raise JobFileError(
                    f"line {number}: ${{{name[:40]}}}: a variable's name is letters, digits "
                    "and _ (not starting with a digit)"
                )
            if name not in names:
                names.append(name)
    if len(names) > MAX_VARIABLES:
        raise JobFileError(f"job file uses {len(names)} variables; at most {MAX_VARIABLES}")
    return names


def parse_env(text: str) -> dict[str, str]:
    """``jobfile_env``: ``NAME=value`` items apart by blanks (an empty value is one: fio's
    unset variable); ``JobFileError`` says what is wrong."""
    found: dict[str, str] = {}
    for item in text.split():
        name, sep, value = item.partition("=")
        if not sep or not VAR_NAME.fullmatch(name):
            raise JobFileError(
                f"jobfile_env: {item[:60]!r} is not NAME=value (a name of letters, digits, _)"
            )
        _check_value(name, value)
        if name in found:
            raise JobFileError(f"jobfile_env: {name} given twice")
        found[name] = value
    if len(found) > MAX_VARIABLES:
        raise JobFileError(f"jobfile_env: {len(found)} variables; at most {MAX_VARIABLES}")
    return found


def _check_value(name: str, value: str) -> None:
    if not _VALUE.fullmatch(value) or "${" in value:
        raise JobFileError(
            f"jobfile_env: {name}={value[:60]!r}: a value has no blanks, ';', '#' or '${{' "
            "(Pairbench writes it into the job file, where they would change its meaning)"
        )


def format_env(env: Mapping[str, str]) -> str:
    """The one form of ``jobfile_env``: items sorted by name."""
    return " ".join(f"{name}={env[name]}" for name in sorted(env))


def substitute(text: str, env: Mapping[str, str]) -> str:
    """The job file with every ``${NAME}`` of its options replaced by ``env[NAME]``, as fio
    would with that environment; comments, section headers and blank lines as they are.
    ``JobFileError`` for a variable without a value and a value no variable uses."""
    used = references(text)
    missing = [name for name in used if name not in env]
    if missing:
        raise JobFileError(
            f"the job file uses ${{{missing[0]}}}: give its value with --set "
            f"env.{missing[0]}=VALUE (in the window, the field {missing[0]} under the job "
            "file; an empty value is fio's unset variable)"
        )
    unused = sorted(set(env) - set(used))
    if unused:
        raise JobFileError(f"jobfile_env: the job file does not use ${{{unused[0]}}}")
    if not used:
        return text
    lines = text.split("\n")
    for number, raw in option_lines(text):
        cut = comment_start(raw)
        option = _REFERENCE.sub(lambda m: env[m.group(1)], raw[:cut])
        lines[number - 1] = option + raw[cut:]
    return "\n".join(lines)


def env_settings(params: Mapping[str, str]) -> dict[str, str]:
    """The parameters with every ``env.NAME=value`` (the CLI's form) folded into
    ``jobfile_env``; ``JobFileError`` for a variable given both ways or twice."""
    out = {k: v for k, v in params.items() if not k.startswith(ENV_PREFIX)}
    given = {k[len(ENV_PREFIX) :]: v for k, v in params.items() if k.startswith(ENV_PREFIX)}
    if not given:
        return out
    env = parse_env(out.get("jobfile_env", ""))
    for name, value in given.items():
        if not VAR_NAME.fullmatch(name):
            raise JobFileError(f"env.{name[:60]}: a variable's name is letters, digits and _")
        if name in env:
            raise JobFileError(f"env.{name}: given in jobfile_env too")
        _check_value(name, value)
        env[name] = value
    out["jobfile_env"] = format_env(env)
    return out


@dataclass(frozen=True, slots=True)
class JobEnvParam(Param):
    """``jobfile_env``: the values of the job file's ``${VAR}``s, ``NAME=value`` apart by
    blanks, in one form (sorted by name)."""

    def check(self, raw: str) -> str:
        return format_env(parse_env(raw))
