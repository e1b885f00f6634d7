"""The user guide's pages (``docs/guide/*.md``): where they are, their order, their headings'
anchors, and the page each screen of the window is explained on (F1)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
# Shipped with the package in a bundle (packaging/pairbench.spec), else the checkout's docs.
GUIDE_PLACES = (PACKAGE / "resources" / "docs" / "guide", PACKAGE.parents[1] / "docs" / "guide")
INDEX = "index.md"

# The page (and section) that explains each screen; F1 opens it.
SCREEN_PAGES = {
    "window": "window.md",
    "run panel": "window.md",
    "run": "live-plots.md",
    "Library": "library.md#the-library-tab",
    "Team": "team-library.md#the-team-library-in-the-window",
    "Hosts": "hosts-and-pairs.md#the-hosts-tab",
    "Storage suite": "storage-suite.md#the-storage-suite-in-the-window",
    "Campaigns": "campaigns.md#the-campaigns-tab",
    "compare": "compare.md",
}

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+\.md)\)")


@dataclass(frozen=True, slots=True)
class GuidePage:
    """One page of the guide: its file name and its title (its ``#`` heading)."""

    name: str
    title: str


def guide_dir() -> Path | None:
    """The folder of the guide's pages, where this installation has one."""
    return next((p for p in GUIDE_PLACES if (p / INDEX).is_file()), None)


def split_target(target: str) -> tuple[str, str]:
    """``page.md#anchor`` → (``page.md``, ``anchor``); either may be empty."""
    page, _, anchor = target.partition("#")
    return page, anchor


def anchor_of(title: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*]", "", title.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def headings(markdown: str) -> list[tuple[int, str]]:
    """The Markdown's headings (level, text) in order, those inside code blocks ignored."""
    found: list[tuple[int, str]] = []
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            found.append((len(match.group(1)), match.group(2)))
    return found


def unique_anchors(titles: Iterable[str]) -> list[str]:
    """The anchors GitHub gives headings of these titles, in order: a repeated one gets
    ``-1``, ``-2``..."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for title in titles:
        base = anchor_of(title)
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.append(base if count == 0 else f"{base}-{count}")
    return out


def anchors(markdown: str) -> list[str]:
    """The anchors of the Markdown's headings (GitHub's)."""
    return unique_anchors(text for _level, text in headings(markdown))


def title_of(markdown: str, default: str) -> str:
    """The page's ``#`` heading."""
    return next((text for level, text in headings(markdown) if level == 1), default)


def pages(directory: Path) -> list[GuidePage]:
    """The index, then the pages in the order the index lists them (each once)."""
    index = (directory / INDEX).read_text(encoding="utf-8")
    names = [INDEX]
    for target in _LINK.findall(index):
        name = split_target(target)[0]
        if "/" not in name and name not in names and (directory / name).is_file():
            names.append(name)
    return [
        GuidePage(name, title_of((directory / name).read_text(encoding="utf-8"), name))
        for name in names
    ]
