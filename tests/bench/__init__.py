"""Benchmarks of rewind as its users run it: whole processes, against references measured in
the same run.

``python -m tests.bench`` runs them all and prints a table of figures, ratios and PASS/FAIL
against each target; ``python -m tests.bench.track_startup`` (or ``turn_scaling``,
``restore_1000``) runs one. ``--quick`` (or ``REWIND_BENCH_QUICK=1``) makes everything small.
See docs/performance.md. pytest does not collect these (``norecursedirs`` in pyproject.toml).
"""
