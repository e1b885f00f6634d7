"""Benchmark tools: for each, an argv builder that depends on probed versions, and a parser."""
