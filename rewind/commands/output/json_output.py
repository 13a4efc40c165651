"""What the ``--json`` outputs share: how they are printed, and "nothing recorded yet" as a normal
answer rather than an error (docs/cli.md documents every shape)."""

from __future__ import annotations

import json
import os

from rewind.errors import UserError
from rewind.history.restoring.opening import open_store
from rewind.history.session import load_head, recent_session
from rewind.history.sessions import list_sessions
from rewind.store.home import store_dir_for
from rewind.store.repository import Store
from rewind.store.root import find_root

# The version of every --json shape; an object carries it as "format", a list's elements are of
# this version (docs/cli.md). It changes only when a key is removed or changes meaning.
FORMAT = 1


def print_json(value: object) -> None:
    print(json.dumps(value, indent=2))


def recorded_store() -> Store | None:
    """The current project's store, or None when rewind has recorded nothing for it yet."""
    root = find_root(os.getcwdb())
    if not os.path.exists(os.path.join(store_dir_for(root), "HEAD")):
        return None
    return open_store(root)


def has_session(store: Store, requested: str | None) -> bool:
    """Whether a session to show exists: one asked for (``--session``, ``$REWIND_SESSION``),
    which must exist, else any. An unknown session asked for stays an error."""
    if requested or os.environ.get("REWIND_SESSION"):
        return True
    recent = recent_session(store)
    if recent and load_head(store, recent).current is not None:
        return True
    return bool(list_sessions(store))


def refuse_json_without_dry_run(as_json: bool, dry_run: bool, command: str) -> None:
    if as_json and not dry_run:
        raise UserError(
            f"--json prints the plan only: use 'rewind {command} --dry-run --json', "
            "then run it without --json."
        )
