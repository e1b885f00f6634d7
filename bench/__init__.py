"""Benchmarks of Pairbench's own cost, each against a baseline measured in the same run."""
