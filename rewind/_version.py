"""rewind's version: the one place it is written (pyproject.toml reads it from here, the Claude
Code plugin's manifest must match it). A module of its own so that ``rewind --version`` reads it
without importing anything else."""

__version__ = "0.1.0"
