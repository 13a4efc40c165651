"""A session's head: its newest entry, kept as the tip commit of the session's own ref.

Every change to the newest entry writes a new commit that replaces the tip (same parent), so
the ref always holds the whole history, open turn included. A small JSON cache of the newest
entry spares the hook path from reading git objects; it is trusted only while it names the
commit the ref points at.
"""

from __future__ import annotations

import os
import time

from rewind.atomic import write_text_atomically
from rewind.digest import sha1_hex
from rewind.entry import Entry
from rewind.errors import UserError
from rewind.fastjson import dumps, load_object
from rewind.store import LABELS_REF_PREFIX, SESSIONS_REF_PREFIX, Store

_REF_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")


def ref_name(session_id: str) -> str:
    """The ref of a session; ids that git would not accept as a ref name are hashed."""
    if usable_as_ref(session_id):
        return SESSIONS_REF_PREFIX + session_id
    return SESSIONS_REF_PREFIX + "x-" + sha1_hex(session_id.encode("utf-8", "surrogateescape"))[:20]


def label_ref_prefix(session_id: str) -> str:
    """Where the session's labels live: ``refs/rewind/labels/<the session's ref name>/``."""
    return LABELS_REF_PREFIX + ref_name(session_id).rsplit("/", 1)[1] + "/"


def usable_as_ref(name: str) -> bool:
    """Plain ASCII names git accepts as one ref component (no regex: ``re`` costs ~4 ms)."""
    return (
        0 < len(name) <= 100
        and name[0].isalnum()
        and all(character in _REF_CHARACTERS for character in name)
        and ".." not in name
        and not name.endswith((".", ".lock"))
    )


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + os.urandom(3).hex()


def new_entry_id() -> str:
    return os.urandom(6).hex()


class SessionHead:
    """The tip commit of a session, its parent, and the entry the tip records."""

    __slots__ = ("current", "parent", "ref", "session_id", "tip")

    def __init__(
        self,
        session_id: str,
        ref: str,
        tip: str | None = None,
        parent: str | None = None,
        current: Entry | None = None,
    ) -> None:
        self.session_id = session_id
        self.ref = ref
        self.tip = tip
        self.parent = parent
        self.current = current

    @property
    def next_number(self) -> int:
        return self.current.number + 1 if self.current else 1


def _cache_path(store: Store, ref: str) -> str:
    return store.state_path("sessions", ref.rsplit("/", 1)[1] + ".json")


def load_head(store: Store, session_id: str) -> SessionHead:
    ref = ref_name(session_id)
    tip = store.read_ref(ref)
    if tip is None:
        return SessionHead(session_id, ref)
    try:
        with open(_cache_path(store, ref), encoding="utf-8") as handle:
            cache = load_object(handle.read())
        parent, current = cache.get("parent"), cache.get("current")
        if cache.get("tip") == tip and isinstance(current, dict):
            parent = parent if isinstance(parent, str) else None
            return SessionHead(session_id, ref, tip, parent, Entry.from_json(current))
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no cache, or a stale or damaged one: read the tip commit instead
    current, parent = store.read_entry(tip)
    head = SessionHead(session_id, ref, tip, parent, current)
    _write_cache(store, head)
    return head


def _write_cache(store: Store, head: SessionHead) -> None:
    assert head.current is not None
    cache = {"tip": head.tip, "parent": head.parent, "current": head.current.to_json()}
    write_text_atomically(_cache_path(store, head.ref), dumps(cache))


def save_entry(store: Store, head: SessionHead, entry: Entry, replace_tip: bool) -> None:
    """Records ``entry`` as the session's newest; with ``replace_tip`` it supersedes the tip.

    The caller holds the store lock.
    """
    parent = head.parent if replace_tip else head.tip
    commit = store.commit_entry(entry, parent)
    store.write_ref(head.ref, commit)
    head.tip, head.parent, head.current = commit, parent, entry
    _write_cache(store, head)
    _remember_recent(store, head.session_id)


def _remember_recent(store: Store, session_id: str) -> None:
    path = store.state_path("recent")
    try:
        with open(path, encoding="utf-8") as handle:
            if handle.read() == session_id:
                return
    except FileNotFoundError:
        pass
    write_text_atomically(path, session_id)


def forget_session(store: Store, head: SessionHead) -> int:
    """Deletes the session's ref, its labels and its cache; its objects go at the next 'rewind gc'.

    Returns how many labels went with it.
    """
    with store.lock():
        labels = store.ref_names(label_ref_prefix(head.session_id))
        for label in labels:
            store.delete_ref(label)
        try:
            os.rmdir(os.path.join(store.git_dir, label_ref_prefix(head.session_id)))
        except OSError:
            pass
        store.delete_ref(head.ref)
        try:
            os.unlink(_cache_path(store, head.ref))
        except FileNotFoundError:
            pass
        if recent_session(store) == head.session_id:
            os.unlink(store.state_path("recent"))
    return len(labels)


def recent_session(store: Store) -> str | None:
    try:
        with open(store.state_path("recent"), encoding="utf-8") as handle:
            return handle.read() or None
    except FileNotFoundError:
        return None


def resolve_session(store: Store, requested: str | None, create: bool = False) -> str:
    """``--session``, else ``$REWIND_SESSION``, else the project's most recent session."""
    chosen = requested or os.environ.get("REWIND_SESSION") or recent_session(store)
    if chosen:
        return chosen
    from rewind.history import list_sessions  # only when the recent session was forgotten

    sessions = list_sessions(store)
    if sessions:
        return sessions[-1].head.session_id
    if create:
        return new_session_id()
    raise UserError("this project has no sessions yet; start one with 'rewind begin'.")


def require_existing(store: Store, session_id: str) -> SessionHead:
    head = load_head(store, session_id)
    if head.current is None:
        raise UserError(f"there is no session {session_id!r}; 'rewind sessions' lists them.")
    return head
