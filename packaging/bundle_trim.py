"""Trimming the PyInstaller analysis of the bundle: Qt plugins, translations, orphaned libraries.

Imported by ``pairbench.spec`` (PyInstaller's own Python runs it). PyInstaller's Qt hooks collect
every plugin of a used Qt module, and the analysis then collects each plugin's link-time
dependencies from this machine (the GTK theme plugin alone brings GTK, cairo and pango).
``trim`` keeps the plugins Pairbench uses, drops Qt's translations (the UI is English), and
then drops the shared libraries that only dropped plugins needed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

from PyInstaller.depend import bindepend

Entry = tuple[str, str, str]  # (destination in the bundle, source path, typecode)

QT_DIR = PurePosixPath("PySide6/Qt")

# Plugin directory -> the plugin files kept ("*": all). Every other plugin is left out.
KEEP_PLUGINS: dict[str, frozenset[str] | str] = {
    # X11 windows, headless (offscreen: tests, chart export), and "minimal" for diagnostics.
    # Wayland sessions use XWayland through xcb.
    "platforms": frozenset({"libqxcb.so", "libqoffscreen.so", "libqminimal.so"}),
    "xcbglintegrations": "*",
    # File dialogs through the desktop portal; the GTK3 theme would bring GTK, cairo and pango.
    "platformthemes": frozenset({"libqxdgdesktopportal.so"}),
    # Dead keys / compose sequences and IBus input methods in text fields.
    "platforminputcontexts": frozenset(
        {"libcomposeplatforminputcontextplugin.so", "libibusplatforminputcontextplugin.so"}
    ),
    # SVG icons and images; PNG is built into QtGui. No JPEG/TIFF/WebP/... readers needed.
    "imageformats": frozenset({"libqsvg.so", "libqico.so"}),
    "iconengines": frozenset({"libqsvgicon.so"}),
}


def _plugin_kind(dest: str) -> tuple[str, str] | None:
    """(plugin directory, file name) for a Qt plugin's destination, else None."""
    parts = PurePosixPath(dest).parts
    prefix = (*QT_DIR.parts, "plugins")
    if len(parts) == len(prefix) + 2 and parts[: len(prefix)] == prefix:
        return parts[-2], parts[-1]
    return None


def _keep_plugin(dest: str) -> bool:
    kind = _plugin_kind(dest)
    if kind is None:
        return True
    directory, name = kind
    keep = KEEP_PLUGINS.get(directory)
    return keep == "*" or (isinstance(keep, frozenset) and name in keep)


def _is_translation(dest: str) -> bool:
    return PurePosixPath(dest).parent == QT_DIR / "translations"


def _needed(entries: Iterable[Entry]) -> dict[str, set[str]]:
    """Bundle file name (basename) -> the sonames it links against (DT_NEEDED)."""
    graph: dict[str, set[str]] = {}
    for dest, src, typecode in entries:
        if typecode in ("BINARY", "EXTENSION") and os.path.isfile(src):
            names = {name for name, _path in bindepend.get_imports(src)}
            graph.setdefault(PurePosixPath(dest).name, set()).update(names)
    return graph


def _closure(roots: Iterable[str], graph: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(graph.get(name, ()))
    return seen


def _without_dangling_symlinks(
    binaries: list[Entry], datas: list[Entry]
) -> tuple[list[Entry], list[Entry]]:
    """Drop SYMLINK entries (src: the target, relative to the link) whose target is gone."""
    files = {os.path.normpath(e[0]) for e in (*binaries, *datas) if e[2] != "SYMLINK"}

    def keep(entry: Entry) -> bool:
        dest, target, typecode = entry
        return typecode != "SYMLINK" or (
            os.path.normpath(os.path.join(os.path.dirname(dest), target)) in files
        )

    return [e for e in binaries if keep(e)], [e for e in datas if keep(e)]


def trim(binaries: list[Entry], datas: list[Entry]) -> tuple[list[Entry], list[Entry], list[str]]:
    """(binaries, datas, names of what was dropped) without unused plugins, translations, and
    libraries needed only by dropped plugins (libraries something kept links to stay)."""
    dropped_plugins = [e for e in binaries if not _keep_plugin(e[0])]
    kept = [e for e in binaries if _keep_plugin(e[0])]
    graph = _needed(binaries)
    kept_names = {PurePosixPath(e[0]).name for e in kept}
    reachable_from_dropped = _closure((PurePosixPath(e[0]).name for e in dropped_plugins), graph)
    reachable_from_kept_roots = _closure(
        (
            PurePosixPath(e[0]).name
            for e in kept
            if e[2] == "EXTENSION"
            or _plugin_kind(e[0]) is not None
            or not PurePosixPath(e[0]).name.startswith("lib")
        ),
        graph,
    )
    orphans = {
        name
        for name in kept_names & reachable_from_dropped
        if name not in reachable_from_kept_roots and not name.startswith("libpython")
    }
    binaries_out = [e for e in kept if PurePosixPath(e[0]).name not in orphans]
    datas_out = [e for e in datas if not _is_translation(e[0])]
    binaries_out, datas_out = _without_dangling_symlinks(binaries_out, datas_out)
    dropped = sorted(
        [PurePosixPath(e[0]).name for e in dropped_plugins]
        + sorted(orphans)
        + [f"{sum(1 for e in datas if _is_translation(e[0]))} Qt translation files"]
    )
    return binaries_out, datas_out, dropped


def strip_debug_info(
    binaries: list[Entry], should_strip: Callable[[str], bool], workdir: Path
) -> list[Entry]:
    """Replace the binaries whose source path ``should_strip`` by copies without debug sections
    (``strip --strip-debug``: symbols stay). pyenv builds libpython and lib-dynload with ~25 MB
    of DWARF; wheels' libraries come stripped (and patchelf-edited ones are left alone: binutils'
    strip can corrupt them)."""
    strip = shutil.which("strip")
    if strip is None:
        raise SystemExit("pairbench.spec: `strip` not found; install Debian's binutils")
    out: list[Entry] = []
    for dest, src, typecode in binaries:
        if typecode in ("BINARY", "EXTENSION") and os.path.isfile(src) and should_strip(src):
            stripped = workdir / dest
            stripped.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([strip, "--strip-debug", "-o", str(stripped), src], check=True)
            src = str(stripped)
        out.append((dest, src, typecode))
    return out
