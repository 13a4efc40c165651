"""``rewind tui``: the terminal user interface (the only command that imports textual)."""

from __future__ import annotations

import os
import sys

from rewind.errors import ExitCode, UserError
from rewind.history.opening import open_current_store
from rewind.history.session import require_existing
from rewind.history.sessions import resolve_session


class TuiCrashed(Exception):
    """The TUI stopped on an error it showed already: a bug, logged like any other."""


def run(*, session: str | None) -> int:
    store = open_current_store()
    require_existing(store, resolve_session(store, session))
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise UserError(
            "rewind tui needs a terminal (its input and standard error are not one); run it in "
            "one, or use 'rewind log' and 'rewind restore' instead."
        )
    from rewind.tui.app import RewindApp

    app = RewindApp(os.getcwd(), session)
    app.run()
    if app.return_code:
        error = getattr(app, "_exception", None)  # textual keeps the first error it met
        if isinstance(error, BaseException):
            raise TuiCrashed(f"the TUI stopped on {error!r}") from error
        raise TuiCrashed(f"the TUI stopped with exit code {app.return_code}")
    return int(ExitCode.OK)
