"""The bottom layer: the git object database outside the work tree and rewind's own files in it.

Nothing here knows what a session, a turn or a restore is (that is :mod:`rewind.history`); it
imports only :mod:`rewind.errors` and itself. See docs/architecture.md.
"""
