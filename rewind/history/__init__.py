"""The middle layer: sessions, their entries and file states, recording, restores and indexes.

It stands on :mod:`rewind.store` and knows nothing of the interfaces above it (the command
line, hooks, the quicksave, watch mode, installers, the TUI, the Python API). See
docs/architecture.md.
"""
