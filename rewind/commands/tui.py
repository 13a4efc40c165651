"""``rewind tui``: the terminal user interface (the only command that imports textual)."""

from __future__ import annotations

import os
import sys

from rewind.actions.projects import store_to_read
from rewind.errors import ExitCode, UserError
from rewind.history.session import require_existing


class TuiCrashed(Exception):
    """The TUI stopped on an error it showed already: a bug, logged like any other."""


def run(*, session: str | None, remote: str | None = None) -> int:
    on_a_terminal = sys.stdin.isatty() and sys.stderr.isatty()
    if session is None and remote is None and on_a_terminal and _nothing_recorded():
        return _how_to_start()
    store, session_id = store_to_read(session, remote)
    require_existing(store, session_id)
    if not on_a_terminal:
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


def _nothing_recorded() -> bool:
    """Whether the project has no session of its own (nor fetched ones to point to)."""
    from rewind.actions.projects import recorded_store
    from rewind.history.remote.fetched import fetched_sessions
    from rewind.history.sessions import list_sessions

    store = recorded_store()
    if store is None:
        return True
    return not list_sessions(store, damaged=[]) and not fetched_sessions(store)


def _how_to_start() -> int:
    """The TUI's empty state: how to start recording, and 'q' to quit (exit code 0)."""
    from rewind.installers.registry import targets
    from rewind.store.root import find_root
    from rewind.tui.empty_state import NothingRecorded

    agents = [name for name, target in targets().items() if target.hook_agent]
    NothingRecorded(os.fsdecode(find_root(os.getcwdb())), agents).run()
    return int(ExitCode.OK)
