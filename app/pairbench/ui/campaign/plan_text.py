"""The editor's text fields and the plan's values: ``key = value`` parameter lines (a
comma-separated value is an axis), ``key=glob`` tag selectors, zip groups, times of day."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pairbench.services.campaign_plan import PlanError


def parse_params(text: str, where: str) -> dict[str, object]:
    """``streams = 1, 4`` lines as a plan's ``params`` (a list for an axis); ``PlanError``
    naming the line that is not ``key = value``."""
    params: dict[str, object] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise PlanError(f"{where}, line {number}: write key = value, e.g. streams = 1, 4")
        if key in params:
            raise PlanError(f"{where}, line {number}: {key!r} is given twice")
        parts = [part.strip() for part in value.split(",")]
        if value and any(not part for part in parts):
            raise PlanError(f"{where}, line {number}: {key!r} has an empty value between commas")
        params[key] = parts if len(parts) > 1 else ([] if not value else parts[0])
    return params


def params_text(axes: Mapping[str, Sequence[str]]) -> str:
    """A test's parameters as the editor's lines."""
    return "\n".join(f"{key} = {', '.join(values)}" for key, values in axes.items())


def parse_tags(text: str) -> dict[str, str]:
    """``zone=a, type=r4.*`` as a tag selector; ``PlanError`` for a part without ``=``."""
    tags: dict[str, str] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key, sep, glob = part.partition("=")
        if not sep or not key.strip() or not glob.strip():
            raise PlanError(f"the tag selector {part!r} is not key=glob, e.g. zone=a or type=r4.*")
        tags[key.strip()] = glob.strip()
    if not tags:
        raise PlanError("the tag selector is empty: write key=glob, e.g. zone=a")
    return tags


def tags_text(tags: Mapping[str, str]) -> str:
    return ", ".join(f"{key}={glob}" for key, glob in tags.items())


def parse_zip(text: str) -> list[list[str]]:
    """``bitrate, length; a, b``: groups of axes that advance together."""
    groups = []
    for group in text.split(";"):
        names = [name.strip() for name in group.split(",") if name.strip()]
        if names:
            groups.append(names)
    return groups


def zip_text(groups: Sequence[Sequence[str]]) -> str:
    return "; ".join(", ".join(group) for group in groups)


def parse_times(text: str) -> list[str]:
    """``08:00, 20:00`` as the schedule's times of day (checked by the plan's reader)."""
    return [t.strip() for t in text.replace(";", ",").split(",") if t.strip()]
