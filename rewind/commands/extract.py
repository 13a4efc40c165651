"""``rewind extract TURN DIR``: the files a turn touched, rebuilt in a new folder for inspection
(rewind.history.restoring.extract)."""

from __future__ import annotations

import os

from rewind.actions.reading import extract
from rewind.actions.stores import open_current_store
from rewind.errors import ExitCode
from rewind.history.filestate import LINK
from rewind.history.lookup import find
from rewind.history.remote.fetched import open_fetched
from rewind.history.session import require_existing
from rewind.history.sessions import resolve_session


def run(
    *,
    turn: str,
    folder: str,
    session: str | None = None,
    remote: str | None = None,
    before: bool = False,
    after: bool = False,
    paths: list[str] | None = None,
) -> int:
    store = open_current_store()
    if remote is None:
        reader, session_id = store, resolve_session(store, session)
    else:
        reader, session_id = open_fetched(store, remote, session)
    entry = find(reader, require_existing(reader, session_id), turn)
    only = [store.root.stored_name(path) for path in paths] if paths else None
    target = os.fsencode(os.path.abspath(folder))
    done = extract(reader, entry, target, not before, only, trusted=remote is None)
    side = "before" if before else "as left by"
    where = f"{entry.kind} {entry.number} of session {session_id}"
    if remote is not None:
        where += f" (fetched from {remote})"
    print(f"Wrote {len(done.written)} file(s) {side} {where} into {os.fsdecode(target)}:")
    for path, state in done.written:
        shown = store.root.display(path)
        if state.kind == LINK:
            print(f"  link     {shown}")
        else:
            print(f"  file     {shown}  ({state.mode & 0o777:o}, {state.size} bytes)")
    for path in done.absent:
        print(f"  absent   {store.root.display(path)}  (did not exist: not written)")
    for path, reason in done.skipped:
        print(f"  skipped  {store.root.display(path)}  ({reason})")
    return ExitCode.INCOMPLETE if done.skipped else ExitCode.OK
