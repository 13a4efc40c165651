"""Labels attached to entries after the fact: ``rewind label`` and the TUI.

A label is a git ref, ``refs/rewind/labels/<the session's ref name>/<label>``, pointing at the
commit that records the entry. A closed entry's commit never changes (only the open turn is
amended in place), so the ref stays right; an open turn is refused rather than closed behind the
agent's back. 'rewind gc' keeps everything a label reaches, like a session's own ref; 'rewind
forget' deletes the session's labels with the session.

Labels given at 'rewind begin --label' are part of the entry's record instead; the log shows
both kinds together.
"""

from __future__ import annotations

import os

from rewind.errors import UserError
from rewind.history import commits
from rewind.history.entry import Entry
from rewind.history.lookup import locate
from rewind.history.session import label_ref_prefix, require_existing, usable_as_ref
from rewind.history.sessions import labels_of
from rewind.store.repository import Store

__all__ = ["add_label", "check_label_name", "label_ref", "labels_of", "remove_label"]


def check_label_name(name: str) -> None:
    if not usable_as_ref(name):
        raise UserError(
            f"{name!r} cannot be a label: use letters, digits, '-', '_' and inner dots, up to 100 "
            "characters, starting with a letter or digit and not ending in '.' or '.lock'."
        )


def label_ref(session_id: str, name: str) -> str:
    check_label_name(name)
    return label_ref_prefix(session_id) + name


def _locate(store: Store, session_id: str, entry: Entry | str) -> tuple[Entry, str]:
    """The entry (an :class:`Entry` of the session, or a TURN as the CLI takes it) and the
    commit that records it."""
    return locate(store, require_existing(store, session_id), entry)


def _describe(entry: Entry) -> str:
    return f"{entry.kind} {entry.number}"


def add_label(store: Store, session_id: str, entry: Entry | str, name: str) -> Entry:
    """Labels a closed entry; adding a label it already has changes nothing.

    Raises :class:`UserError` for an open turn, a bad name, or a name that already labels
    another entry of the session. Returns the labelled entry.
    """
    ref = label_ref(session_id, name)
    chosen, commit = _locate(store, session_id, entry)
    if chosen.is_open:
        raise UserError(
            f"turn {chosen.number} is still open; label it once it ends "
            "(the agent's next prompt or 'rewind end' ends it)."
        )
    with store.lock():
        require_existing(store, session_id)  # not forgotten meanwhile
        try:  # nor dropped by gc's retention since it was found
            chosen, commit = _locate(store, session_id, chosen)
        except UserError:
            raise UserError(
                f"{_describe(chosen)} of session {session_id} was just dropped by gc's retention; "
                "'rewind log' lists the turns left."
            ) from None
        existing = store.read_ref(ref)
        if existing == commit:
            return chosen
        if existing is not None:
            other, _ = commits.read_entry(store, existing)
            raise UserError(
                f"label {name!r} already names {_describe(other)} of session {session_id}; "
                f"'rewind label --remove {other.number} {name}' frees it."
            )
        store.write_ref(ref, commit)
    return chosen


def remove_label(store: Store, session_id: str, entry: Entry | str, name: str) -> Entry:
    """Removes a label given with :func:`add_label` from ``entry``; returns the entry."""
    ref = label_ref(session_id, name)
    chosen, _ = _locate(store, session_id, entry)
    with store.lock():
        existing = store.read_ref(ref)
        if existing is None:
            if name in chosen.labels:
                raise UserError(
                    f"label {name!r} was given when {_describe(chosen)} began ('rewind begin "
                    "--label') and is part of its record; it cannot be removed."
                )
            raise UserError(
                f"{_describe(chosen)} has no label {name!r}; 'rewind log' shows the labels."
            )
        labelled, _ = commits.read_entry(store, existing)
        if labelled.id != chosen.id:
            raise UserError(
                f"label {name!r} is on {_describe(labelled)}, not on {_describe(chosen)}."
            )
        store.delete_ref(ref)
        try:
            os.rmdir(os.path.join(store.git_dir, label_ref_prefix(session_id)))
        except OSError:
            pass  # other labels are left
    return chosen
