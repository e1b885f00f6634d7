"""The run parameters of a uperf profile of the user's: ``profile_file`` (its name),
``profile_xml`` (its text), ``profile_vars`` (values of its own variables), how they resolve,
and the environment and shape of the run they describe."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from pairbench.tools.base import ParamError
from pairbench.tools.params import FileNameParam, Param, file_name
from pairbench.tools.uperf_custom import parse_profile
from pairbench.tools.uperf_custom_run import (
    STANDARD_VARS,
    RunShape,
    parse_vars,
    profile_env,
    run_shape,
)
from pairbench.tools.uperf_profiles import check_host

__all__ = [
    "DEFAULT_NAME",
    "NAMES",
    "PARAMS",
    "environment",
    "profile_file_name",
    "resolve_custom",
    "shape",
]

DEFAULT_NAME: Final = "profile.xml"
NAMES: Final = ("profile_file", "profile_xml", "profile_vars")
# uperf's own options (``tools/uperf.py``'s parameters), whatever the profile.
MASTER_OPTIONS: Final = ("interval",)


def profile_file_name(path_or_name: str) -> str:
    """The name the profile is stored and uploaded under (``params.file_name``)."""
    return file_name(path_or_name, DEFAULT_NAME)


@dataclass(frozen=True, slots=True)
class ProfileTextParam(Param):
    """``profile_xml``: the profile's text, checked by ``uperf_custom.parse_profile``."""

    def check(self, raw: str) -> str:
        text = raw.replace("\r\n", "\n")
        if not text.strip():
            return ""
        parse_profile(text)
        return text


@dataclass(frozen=True, slots=True)
class VarsParam(Param):
    """``profile_vars``: ``name=value`` items (``uperf_custom_run.parse_vars``), in one form."""

    def check(self, raw: str) -> str:
        return " ".join(f"{k}={v}" for k, v in parse_vars(raw).items())


PARAMS: Final[tuple[Param, ...]] = (
    FileNameParam(
        "profile_file",
        "profilefile",
        "",
        "your own uperf profile instead of latency/throughput (its name; the CLI's --set "
        "profile_file=PATH and the Profile file… button read it)",
        button="Profile file…",
    ),
    ProfileTextParam("profile_xml", "profiletext", "", "the profile's XML, checked before a run"),
    VarsParam(
        "profile_vars",
        "vars",
        "",
        "values of the profile's own $variables, name=value apart by blanks (iter=100); "
        "$h (any remotehost) is the pair's server, $proto $nthr $dur $size $count $wndsz the "
        "parameters of the same meaning",
    ),
)


def resolve_custom(resolved: Mapping[str, str], defaults: Mapping[str, str]) -> dict[str, str]:
    """The parameters of a run of the user's profile (from fully resolved ones): its name,
    text and variables, uperf's own options (``interval``), and the parameters whose variables
    it uses (``$proto``: protocol, ``$nthr``: threads...); any other parameter given is
    refused, as the profile decides it. Every variable must be filled (checked with a
    stand-in server address)."""
    text = resolved["profile_xml"]
    if not text:
        raise ParamError(
            "profile_file needs the profile's text: give its path (pairbench run --set "
            "profile_file=PATH, or the Profile file… button)"
        )
    profile = parse_profile(text)
    used = profile.variables()
    applies = [
        *NAMES,
        *MASTER_OPTIONS,
        *(STANDARD_VARS[v] for v in sorted(used) if v in STANDARD_VARS),
    ]
    others = sorted(k for k, v in resolved.items() if k not in applies and v != defaults[k])
    if others:
        raise ParamError(
            f"{', '.join(others)}: set in the profile, not with a profile file's run (only "
            f"{', '.join(applies)} apply to this one)"
        )
    out = {name: resolved[name] for name in applies}
    out["profile_file"] = resolved["profile_file"] or DEFAULT_NAME
    if out.get("threads") == "0":
        out["threads"] = "1"
    run_shape(profile, profile_env(profile, out, "localhost"))
    return out


def environment(resolved: Mapping[str, str], host: str) -> dict[str, str]:
    """The environment uperf runs the resolved profile with, sent to ``host``."""
    return profile_env(parse_profile(resolved["profile_xml"]), resolved, check_host(host))


def shape(resolved: Mapping[str, str], host: str) -> RunShape:
    """The resolved profile's run shape (threads, timed transaction, length)."""
    profile = parse_profile(resolved["profile_xml"])
    return run_shape(profile, profile_env(profile, resolved, check_host(host)))
