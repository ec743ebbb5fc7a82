"""Reproductions of published results, importable so scripts and tests share one code path."""
