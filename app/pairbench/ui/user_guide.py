"""Help ▸ User guide (F1): the guide's pages (``docs/guide/``) rendered in the app.

The pages are listed on the left in the index's order; the one shown is on the right. F1
opens the page of the screen in view (``guide_pages.SCREEN_PAGES``). A link to another page,
or to a heading of one, shows it here; anything else (a web address, a file beyond the
guide) goes to the opener, the desktop's by default.
"""

from __future__ import annotations

from collections.abc import Callable
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

from pairbench.ui.guide_pages import INDEX, GuidePage, pages, split_target, unique_anchors

Opener = Callable[[QUrl], object]
MISSING = "The user guide (docs/guide) is not installed with this copy of Pairbench."


class UserGuide(QDialog):
    """The guide's pages listed on the left, the one shown on the right."""

    def __init__(
        self,
        directory: Path | None,
        parent: QWidget | None = None,
        *,
        opener: Opener = QDesktopServices.openUrl,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Pairbench — user guide")
        self.directory = directory
        self.opener = opener
        self.page = ""  # the file name of the page shown
        self.anchor = ""  # the heading scrolled to ("" for the top)
        self.browser = QTextBrowser()
        self.browser.setObjectName("guide")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self.follow)
        self.contents = QListWidget()
        self.contents.setObjectName("guide_contents")
        self.contents.setWordWrap(True)  # long titles wrap: the list never scrolls sideways
        self.contents.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.pages: list[GuidePage] = []
        if directory is None:
            self.browser.setPlainText(MISSING)
        else:
            self.browser.setSearchPaths([str(directory)])
            self.pages = pages(directory)
        for page in self.pages:
            self.contents.addItem(page.title)
        self.contents.currentRowChanged.connect(self._row_chosen)
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
        if self.pages:
            self.show_page(INDEX)

    def current_title(self) -> str:
        """The title of the page shown ("" without a guide)."""
        return next((p.title for p in self.pages if p.name == self.page), "")

    def show_page(self, target: str) -> bool:
        """Show ``page.md`` or ``page.md#anchor`` (the page shown when the page is empty);
        False when the guide has no such page."""
        name, anchor = split_target(target)
        name = name or self.page
        row = next((i for i, p in enumerate(self.pages) if p.name == name), None)
        if row is None or self.directory is None:
            return False
        if name != self.page:
            self.page = name
            self.browser.setMarkdown((self.directory / name).read_text(encoding="utf-8"))
            self.fit_images()
            self.contents.blockSignals(True)
            self.contents.setCurrentRow(row)
            self.contents.blockSignals(False)
        self.anchor = anchor if self._scroll_to(anchor) else ""
        return True

    def _row_chosen(self, row: int) -> None:
        if 0 <= row < len(self.pages):
            self.show_page(self.pages[row].name)

    def _scroll_to(self, anchor: str) -> bool:
        """Scroll the heading with this anchor to the top (to the page's top without one)."""
        bar = self.browser.verticalScrollBar()
        if not anchor:
            bar.setValue(0)
            return False
        document = self.browser.document()
        blocks = []
        block = document.begin()
        while block.isValid():
            if block.blockFormat().headingLevel() > 0:
                blocks.append(block)
            block = block.next()
        found = unique_anchors(b.text() for b in blocks)
        if anchor not in found:
            bar.setValue(0)
            return False
        top = document.documentLayout().blockBoundingRect(blocks[found.index(anchor)]).top()
        bar.setValue(int(top))
        return True

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
        if self.directory is None:
            return 0
        return QImage(str(self.directory / name)).width()

    def follow(self, url: QUrl) -> None:
        """A link: a page of the guide (or a heading of one) is shown here; anything else
        goes to the opener."""
        if url.scheme() or self.directory is None:
            self.opener(url)
            return
        target = url.path()
        inside = not target or ("/" not in target and target.endswith(".md"))
        if inside and self.show_page(f"{target}#{url.fragment()}" if url.fragment() else target):
            return
        self.opener(QUrl.fromLocalFile(str((self.directory / target).resolve())))
