"""Messages the app's screens send to the app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the restore engine is imported when a restore is asked for, not at start
    from rewind.tui.origin import Opened
    from rewind.tui.restore_actions import RestoreOutcome


class Restored(Message):
    """A restore made from a screen (the hunk picker, a file's history) is done: for the app
    to say what it did, make ``u`` undo it and show the new entry on every screen."""

    def __init__(self, outcome: RestoreOutcome) -> None:
        super().__init__()
        self.outcome = outcome


class SessionChosen(Message):
    """A session (local, or fetched from a remote) was chosen in the sessions screen: for the
    app to show it and to act on it (or, fetched, to refuse to)."""

    def __init__(self, opened: Opened) -> None:
        super().__init__()
        self.opened = opened
