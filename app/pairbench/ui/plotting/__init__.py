"""Live plots: growable buffers, pyqtgraph plots that follow a streaming run.

PySide6 is imported here, before any module of this package imports pyqtgraph, so pyqtgraph
binds to it (DESIGN §2: import PySide6 before pyqtgraph).
"""

import PySide6.QtCore  # noqa: F401  (must precede pyqtgraph)
