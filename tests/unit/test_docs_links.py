"""The README and the docs hold together: every relative link (and image) points at a file of
the repository and, with a ``#anchor``, at a heading of it (GitHub's anchors); the guide's
index lists every page; the README stays a front page; F1's pages exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pairbench.ui.guide_pages import SCREEN_PAGES, anchors, pages, split_target
from testkit import REPO

GUIDE = REPO / "docs" / "guide"
DOCUMENTS = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")])
_FENCE = re.compile(r"^\s*```.*?^\s*```[^\n]*$", re.M | re.S)
_CODE = re.compile(r"(`+).+?\1", re.S)
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def links(markdown: str) -> list[str]:
    """The targets of the Markdown's links and images, code blocks and code spans left out."""
    return _LINK.findall(_CODE.sub("", _FENCE.sub("", markdown)))


def broken(document: Path) -> list[str]:
    """The document's relative links whose file or heading does not exist."""
    wrong: list[str] = []
    for target in links(document.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:: not ours to check
        path, anchor = split_target(target)
        file = (document.parent / path).resolve() if path else document
        if not file.exists() or REPO.resolve() not in file.parents:
            wrong.append(f"{target}: no such file in the repository")
        elif anchor and anchor not in anchors(file.read_text(encoding="utf-8")):
            wrong.append(f"{target}: no heading with that anchor")
    return wrong


def test_the_link_check_finds_what_is_broken(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A page\n\n## Two words\n\n## Two words\n")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md) [ok](a.md#two-words) [ok](a.md#two-words-1) [ok](#here) ![ok](a.md)\n"
        "[gone](c.md) [bad](a.md#two-words-2) [bad](#nowhere) `[code](x.md)`\n"
        "# Here\n```\n[in a block](y.md)\n```\n[web](https://example.org/#x)\n"
    )
    # (tmp_path is outside the repository: every file is "not in it", so check the anchors)
    text = page.read_text()
    assert links(text) == [
        "a.md",
        "a.md#two-words",
        "a.md#two-words-1",
        "#here",
        "a.md",
        "c.md",
        "a.md#two-words-2",
        "#nowhere",
        "https://example.org/#x",
    ]
    assert anchors((tmp_path / "a.md").read_text()) == ["a-page", "two-words", "two-words-1"]


# Anchors GitHub gave these headings (links the README carried before the guide).
GITHUB_ANCHORS = {
    "Installing uperf or iperf3 3.21 on a host": "installing-uperf-or-iperf3-321-on-a-host",
    "fio: job files of several groups": "fio-job-files-of-several-groups",
    "Several lab pairs: `pairbench lab up --pairs N`": (
        "several-lab-pairs-pairbench-lab-up---pairs-n"
    ),
    "The columns: CloudHarmony's, then Pairbench's own": (
        "the-columns-cloudharmonys-then-pairbenchs-own"
    ),
    "What limited a run: host telemetry and the verdict": (
        "what-limited-a-run-host-telemetry-and-the-verdict"
    ),
}


@pytest.mark.parametrize(("heading", "github"), GITHUB_ANCHORS.items())
def test_anchors_are_githubs(heading: str, github: str) -> None:
    assert anchors(f"## {heading}\n") == [github]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_points_at_a_file_and_heading(document: Path) -> None:
    assert broken(document) == []


def test_the_index_lists_every_page_and_the_readme_every_page_too() -> None:
    listed = [page.name for page in pages(GUIDE)]
    assert sorted(listed) == sorted(p.name for p in GUIDE.glob("*.md"))
    readme = REPO / "README.md"
    named = {Path(t).name for t in links(readme.read_text()) if t.startswith("docs/guide/")}
    assert named >= set(listed) - {"index.md"}


def test_the_readme_is_a_front_page() -> None:
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= 400
    for command in ("make run", "make test", "make check"):
        assert f"\n{command} " in text  # the two commands, in their code block


def test_each_screen_has_its_page_and_heading() -> None:
    for screen, target in SCREEN_PAGES.items():
        page, anchor = split_target(target)
        file = GUIDE / page
        assert file.is_file(), screen
        assert not anchor or anchor in anchors(file.read_text(encoding="utf-8")), screen
