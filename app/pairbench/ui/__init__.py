"""The desktop workbench (PySide6 + pyqtgraph): the only package that imports Qt."""
