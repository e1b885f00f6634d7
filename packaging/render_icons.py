"""Render the application icon's PNG sizes from its SVG (run after editing the SVG).

``.venv/bin/python packaging/render_icons.py`` writes
``app/pairbench/resources/icons/hicolor/NxN/apps/pairbench.png`` for every size in ``SIZES``
(the freedesktop icon-theme layout, so the tree can be copied into ``~/.local/share/icons``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parents[1] / "app" / "pairbench" / "resources" / "icons"
SVG = ICONS / "hicolor" / "scalable" / "apps" / "pairbench.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render(renderer: QSvgRenderer, size: int, out: Path) -> None:
    """One transparent ``size``×``size`` PNG of the whole SVG."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(out)):
        raise OSError(f"cannot write {out}")


def main() -> int:
    _app = QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"render_icons: not a valid SVG: {SVG}", file=sys.stderr)
        return 1
    for size in SIZES:
        out = ICONS / "hicolor" / f"{size}x{size}" / "apps" / "pairbench.png"
        render(renderer, size, out)
        print(f"wrote {out.relative_to(ICONS.parents[3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
