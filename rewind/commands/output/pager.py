"""Long output through a pager on a terminal, as git does: ``log``, ``show`` and ``diff``.

The pager is ``$REWIND_PAGER``, else ``$PAGER``, else ``less``; an empty value or ``cat`` means
none, and so does ``--no-pager``, output that is not a terminal, or a pager that cannot be
started. ``less`` gets ``LESS=FRX`` unless ``LESS`` is set: it quits at once when the output
fits on one screen, passes colours through and leaves the screen as it was.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager


def pager_command(disabled: bool) -> str | None:
    """The pager to run, or None (which commands are paged: rewind.cli.PAGED_COMMANDS)."""
    if disabled or not sys.stdout.isatty():
        return None
    if os.environ.get("TERM") == "dumb":
        return None
    chosen = os.environ.get("REWIND_PAGER", os.environ.get("PAGER", "less")).strip()
    return None if chosen in ("", "cat") else chosen


@contextmanager
def paged(disabled: bool) -> Iterator[None]:
    """Sends what is printed to a pager while the block runs (see the module doc)."""
    chosen = pager_command(disabled)
    if chosen is None:
        yield
        return
    environment = dict(os.environ)
    environment.setdefault("LESS", "FRX")
    try:
        pager = subprocess.Popen(chosen, shell=True, stdin=subprocess.PIPE, env=environment)
    except OSError:
        yield  # no pager to be had: print as usual
        return
    assert pager.stdin is not None
    original = sys.stdout
    sys.stdout = io.TextIOWrapper(
        pager.stdin, encoding=original.encoding or "utf-8", errors="replace", line_buffering=False
    )
    try:
        yield
    finally:
        try:
            sys.stdout.close()  # the pager reads to the end, then its person quits it
        except BrokenPipeError:
            pass  # the person quit before the end
        sys.stdout = original
        pager.wait()
