"""The bundle's entry script: ``pairbench.main.main``, plus ``-m pairbench.MODULE ARGS``.

In the PyInstaller bundle ``sys.executable`` is the ``pairbench`` program itself, not a Python.
The lab starts its helpers as ``sys.executable -m pairbench.lab.delayline ...``; so that this
keeps working in the bundle, ``-m`` runs a bundled ``pairbench`` module as ``python -m`` would.
"""

from __future__ import annotations

import runpy
import sys

MISSING_LIBRARIES = (
    "The window and charts need the system's OpenGL, EGL and font configuration; on Debian or "
    "Ubuntu: apt-get install --no-install-recommends libgl1 libegl1 fontconfig-config\n"
    "(QT_DEBUG_PLUGINS=1 names any other library Qt cannot load.)"
)


def run() -> int:
    """``pairbench [ARGS]`` as the console script; ``pairbench -m pairbench.X ARGS`` as python."""
    if len(sys.argv) >= 3 and sys.argv[1] == "-m" and sys.argv[2].startswith("pairbench."):
        module = sys.argv[2]
        sys.argv = [sys.argv[0], *sys.argv[3:]]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return 0
    from pairbench.main import main

    try:
        return main()
    except ImportError as exc:  # Qt's system libraries are missing (the window needs them)
        if "cannot open shared object file" not in str(exc):
            raise
        print(f"pairbench: {exc}\n{MISSING_LIBRARIES}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(run())
