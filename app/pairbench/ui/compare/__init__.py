"""The compare feature: chart rendering (PNG, SVG, PDF) and the compare view."""
