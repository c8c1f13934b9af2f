"""Benchmarks: generated AI clusters and the measurements written to BENCHMARKS.md."""
