"""The run side of the workbench: the run panel (pair, tool, parameters, presets) and run tabs."""
