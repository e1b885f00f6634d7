"""Pairbench: a desktop workbench for cloud network and storage benchmarks."""

__version__ = "0.1.0"
