"""An entry as a git commit: ``turn.json`` and every stored file state in the commit's tree.

This is the only place that knows how an entry is laid out in the object database (see
docs/store.md); everything above reads and writes entries through it.
"""

from __future__ import annotations

import time

from rewind.errors import DamagedEntry, StoreError
from rewind.history.entry import Entry, entry_from_record
from rewind.store.fastjson import dumps
from rewind.store.input_limits import RECORD_BYTES, too_large
from rewind.store.objects import MODE_FILE, MODE_TREE
from rewind.store.repository import Store

RECORD_NAME = b"turn.json"  # the blob of a commit's tree that holds the entry itself
FILES_NAME = b"files"  # the tree of the stored file states, each named by stored_name()
# Why an entry whose record names another session than its ref is damaged.
OTHER_SESSION = "its turn.json names another session than the ref that holds it"


def stored_name(index: int, side: str) -> bytes:
    """The name in the files tree of the state before or after (``side``) of the entry's
    ``index``-th file."""
    return f"{index}.{side}".encode()


def write_entry(store: Store, entry: Entry, parent: str | None) -> str:
    """Writes ``entry`` as a commit on ``parent``; returns the commit's id."""
    stored = []
    for index, change in enumerate(entry.files):
        for side, state in (("before", change.before), ("after", change.after)):
            if state is not None and state.oid:
                stored.append((stored_name(index, side), state.git_mode, state.oid))
    record = dumps(entry.to_json()).encode()
    tree = [(RECORD_NAME, MODE_FILE, store.writer.write_blob(record))]
    if stored:
        tree.append((FILES_NAME, MODE_TREE, store.writer.write_tree(stored)))
    return store.writer.write_commit(
        store.writer.write_tree(tree), parent, entry.commit_message(), time.time()
    )


def read_entry(store: Store, commit: str, session: str | None = None) -> tuple[Entry, str | None]:
    """The entry recorded in ``commit``, and the commit's parent.

    An entry that cannot be read raises :class:`DamagedEntry`, which still names the parent:
    the history goes on past it. So does one whose record names another session than
    ``session``, when given: the session's ref names it (a record a remote made up can claim
    any name, a sibling's too), and an entry of another session is no part of its history.
    """
    tree, parent = store.reader.read_commit(commit)
    try:
        found = [oid for name, _, oid in store.reader.read_tree(tree) if name == RECORD_NAME]
        if not found:
            raise ValueError("it has no turn.json")
        if store.read_only and store.reader.size(found[0]) > RECORD_BYTES:
            # fetched: a record is measured before it is inflated (a remote's may inflate to
            # far more than the fetch brought)
            raise ValueError(too_large(RECORD_BYTES, "a record").of("its turn.json"))
        entry = entry_from_record(store.reader.read_blob(found[0]))
    except (StoreError, ValueError) as error:
        reason = str(error).split(";")[0].rstrip(".")
        raise DamagedEntry(commit, parent, reason, store.check_command) from None
    if session is not None and entry.session != session:
        raise DamagedEntry(commit, parent, OTHER_SESSION, store.check_command)
    return entry, parent
