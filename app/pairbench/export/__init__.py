"""Qt-free export of runs and comparisons: JSON shapes, tables, bundles."""
