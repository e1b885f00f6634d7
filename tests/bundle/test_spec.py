"""The bundle's spec and resources agree with the code (fast: nothing is built here)."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

from testkit import REPO, require

SPEC = REPO / "packaging" / "pairbench.spec"
RESOURCES = REPO / "app" / "pairbench" / "resources"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def _spec_list(name: str) -> list[str]:
    for node in ast.parse(SPEC.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            assert isinstance(value, list)
            return [str(v) for v in value]
    raise AssertionError(f"{name} not found in {SPEC}")


def test_every_qt_module_the_app_imports_is_bundled() -> None:
    """A Qt module imported anywhere in the app but missing from QT_MODULES would be excluded
    from the bundle and fail only there, at run time."""
    used: set[str] = set()
    for path in (REPO / "app" / "pairbench").rglob("*.py"):
        used.update(re.findall(r"\bPySide6\.(Qt\w+)", path.read_text()))
    assert used, "no PySide6 imports found: the scan is broken"
    assert used <= set(_spec_list("QT_MODULES")), sorted(used - set(_spec_list("QT_MODULES")))


def test_icon_sizes_and_desktop_file_ship_in_the_package() -> None:
    hicolor = RESOURCES / "icons" / "hicolor"
    assert (hicolor / "scalable" / "apps" / "pairbench.svg").is_file()
    for size in PNG_SIZES:
        png = (hicolor / f"{size}x{size}" / "apps" / "pairbench.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        assert (width, height) == (size, size)
    desktop = (RESOURCES / "pairbench.desktop").read_text()
    assert "Exec=pairbench\n" in desktop and "Icon=pairbench\n" in desktop


def test_desktop_file_is_valid() -> None:
    validator = shutil.which("desktop-file-validate")
    require(validator is not None, "desktop-file-validate (desktop-file-utils) is not installed")
    assert validator is not None
    done = subprocess.run(
        [validator, str(RESOURCES / "pairbench.desktop")], capture_output=True, text=True
    )
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


def test_resources_link_points_into_the_package() -> None:
    """resources/ at the top of the repository is the package's resources directory."""
    top = REPO / "resources"
    assert top.resolve() == RESOURCES.resolve()
    assert Path(top / "pairbench.desktop").is_file()
