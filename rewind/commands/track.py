from __future__ import annotations

import sys

from rewind.filestate import DIRECTORY, SPECIAL, TOO_LARGE, UNREADABLE
from rewind.recording import track
from rewind.session import resolve_session
from rewind.store import Store

_PROBLEMS = {
    DIRECTORY: "is a directory, not recorded; track the files in it instead",
    SPECIAL: "is not a regular file or symlink, not recorded",
    UNREADABLE: "could not be read: recorded without its content, so it cannot be restored; "
    "check its permissions",
    TOO_LARGE: "is larger than max_file_size: recorded without its content, so it cannot be "
    "restored; raise max_file_size in rewind.toml to keep it",
}


def run(*, session: str | None, paths: list[str], agent: str) -> int:
    store = Store.of_current_project(create=True)
    names = [store.root.stored_name(path) for path in paths]
    session_id = resolve_session(store, session, create=True)
    states = track(store, session_id, names, agent=agent)
    failed = False
    for name, state in states.items():
        problem = _PROBLEMS.get(state.kind)
        if problem:
            failed = True
            print(f"rewind: {store.root.display(name)} {problem}.", file=sys.stderr)
    return 1 if failed else 0
