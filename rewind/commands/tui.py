"""``rewind tui``: the terminal user interface (the only command that imports textual)."""

from __future__ import annotations

import os
import sys

from rewind.commands.parsing.reading import session_to_read
from rewind.errors import ExitCode, UserError
from rewind.history.session import require_existing


class TuiCrashed(Exception):
    """The TUI stopped on an error it showed already: a bug, logged like any other."""


def run(*, session: str | None, remote: str | None = None) -> int:
    store, session_id = session_to_read(session, remote)
    require_existing(store, session_id)
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise UserError(
            "rewind tui needs a terminal (its input and standard error are not one); run it in "
            "one, or use 'rewind log' and 'rewind restore' instead."
        )
    from rewind.tui.app import RewindApp

    app = RewindApp(os.getcwd(), session, remote=remote)
    app.run()
    if app.return_code:
        error = getattr(app, "_exception", None)  # textual keeps the first error it met
        if isinstance(error, BaseException):
            raise TuiCrashed(f"the TUI stopped on {error!r}") from error
        raise TuiCrashed(f"the TUI stopped with exit code {app.return_code}")
    if app.resume is not None:  # chosen in the rewind menu: the agent's client takes over
        from rewind.commands.resume import resume_from

        return resume_from(app.store, app.resume, "", False, False, [])
    return int(ExitCode.OK)
