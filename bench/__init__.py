"""Benchmarks and measurement harnesses (not shipped in the wheel)."""
