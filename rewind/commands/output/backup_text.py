"""The automatic backup's state as ``rewind status`` and ``rewind stats`` show it
(rewind.history.remote.backup), as one line of text (their ``--json`` gives
rewind.actions.records.backup_json)."""

from __future__ import annotations

from rewind.commands.output.render import local_time
from rewind.history.remote.backup import backup_state, pending_since
from rewind.store.backup_trigger import pusher_running
from rewind.store.repository import Store


def backup_line(store: Store) -> str | None:
    """``to NAME, last pushed ...`` / ``FAILING ...``; None when no backup is set."""
    remote = store.config.remote.backup
    if not remote:
        return None
    state = backup_state(store)
    waiting = pending_since(store)
    if state is not None and state.error and state.remote == remote:
        since = f" since {local_time(state.last_success)}" if state.last_success else ""
        return (
            f"to {remote} FAILING ({state.failures} attempt(s), nothing pushed{since}): "
            f"{state.error.rstrip('.')}; 'rewind push --all' tries again now"
        )
    if state is None or not state.last_success:
        pushed = "nothing pushed yet"
    else:
        pushed = f"last pushed {local_time(state.last_success)}"
    if waiting is not None:
        doing = "pushing now" if pusher_running(store) else "'rewind push --all' pushes it now"
        pushed += f"; entries closed since {local_time(waiting)} wait ({doing})"
    return f"to {remote}, {pushed}"
