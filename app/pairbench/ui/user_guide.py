"""Help ▸ User guide: the README as a guide to the window, one section at a time.

It opens on how to use the window (the README's "The workbench window" section), with every
other section listed beside it (the command line, the tools, hosts, the library, comparing,
burst credits, ...). A link to another part of the README shows that part; a web link opens
in the browser. The README is split at its ``##`` headings (never inside a code block); each
part keeps its ``###`` subsections.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QImage, QResizeEvent, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

START = "The workbench window"  # the section the guide opens on
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclass(frozen=True, slots=True)
class GuideSection:
    """A ``##`` section of the README (the text before the first one is the introduction)."""

    title: str
    text: str  # its Markdown, heading and subsections included
    anchors: tuple[str, ...]  # the GitHub anchors of its headings (links to it or inside)


def anchor_of(title: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"`|\*|_", "", title.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def split_sections(markdown: str) -> list[GuideSection]:
    """The README's ``##`` sections in order, headings inside code blocks ignored."""
    parts: list[tuple[str, list[str], list[str]]] = [("Introduction", [], [])]
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match and len(match.group(1)) == 2:
            parts.append((match.group(2), [line], [anchor_of(match.group(2))]))
            continue
        parts[-1][1].append(line)
        if match:
            parts[-1][2].append(anchor_of(match.group(2)))
    return [
        GuideSection(title, "\n".join(lines).strip() + "\n", tuple(anchors))
        for title, lines, anchors in parts
        if "\n".join(lines).strip()
    ]


class UserGuide(QDialog):
    """The README's sections listed on the left, the one chosen on the right."""

    def __init__(self, path: Path | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Pairbench — user guide")
        self.path = path
        self.browser = QTextBrowser()
        self.browser.setObjectName("guide")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self.follow)
        self.contents = QListWidget()
        self.contents.setObjectName("guide_contents")
        self.contents.setWordWrap(True)  # long titles wrap: the list never scrolls sideways
        self.contents.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.sections: list[GuideSection] = []
        if path is None:
            self.browser.setPlainText(
                "The user guide (README.md) is not installed with this copy of Pairbench."
            )
        else:
            self.browser.setSearchPaths([str(path.parent)])
            self.sections = split_sections(path.read_text(encoding="utf-8"))
        for section in self.sections:
            self.contents.addItem(section.title)
        self.contents.currentRowChanged.connect(self.show_section)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(QLabel("<b>Contents</b>"))
        side_layout.addWidget(self.contents, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(side)
        split.addWidget(self.browser)
        split.setStretchFactor(1, 1)
        split.setSizes([230, 670])
        layout = QHBoxLayout(self)
        layout.addWidget(split)
        self.resize(900, 640)
        start = next((i for i, s in enumerate(self.sections) if s.title == START), 0)
        if self.sections:
            self.contents.setCurrentRow(start)

    def current_title(self) -> str:
        """The title of the section shown ("" without a guide)."""
        row = self.contents.currentRow()
        return self.sections[row].title if 0 <= row < len(self.sections) else ""

    def show_section(self, row: int) -> None:
        if 0 <= row < len(self.sections):
            self.browser.setMarkdown(self.sections[row].text)
            self.fit_images()
            self.browser.verticalScrollBar().setValue(0)

    def fit_images(self) -> None:
        """Pictures no wider than the page (a screenshot would scroll it sideways)."""
        document = self.browser.document()
        room = max(200, self.browser.viewport().width() - 24)
        cursor = QTextCursor(document)
        block = document.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                fmt = fragment.charFormat()
                if fragment.isValid() and fmt.isImageFormat():
                    image = fmt.toImageFormat()
                    found = self._image_width(image.name())
                    if found > 0 and image.width() != min(found, room):
                        image.setWidth(min(found, room))
                        cursor.setPosition(fragment.position())
                        cursor.setPosition(
                            fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor
                        )
                        cursor.setCharFormat(image)
                it += 1
            block = block.next()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_images()

    def _image_width(self, name: str) -> int:
        if self.path is None:
            return 0
        return QImage(str(self.path.parent / name)).width()

    def follow(self, url: QUrl) -> None:
        """A link: another part of the README is shown here; anything else opens outside."""
        fragment = url.fragment()
        if fragment and not url.scheme() and not url.path():
            row = next((i for i, s in enumerate(self.sections) if fragment in s.anchors), None)
            if row is not None:
                self.contents.setCurrentRow(row)
            return
        if not url.scheme() and self.path is not None:
            url = QUrl.fromLocalFile(str(self.path.parent / url.path()))
        QDesktopServices.openUrl(url)
