"""A session's head: its newest entry, kept as the tip commit of the session's own ref.

Every change to the newest entry writes a new commit that replaces the tip (same parent), so
the ref always holds the whole history, open turn included. A small JSON cache of the newest
entry spares the hook path from reading git objects; it is trusted only while it names the
commit the ref points at.
"""

from __future__ import annotations

import os
import time

from rewind.errors import UserError
from rewind.history import commits, journal
from rewind.history.entry import TURN, Entry
from rewind.store import garbage
from rewind.store.atomic import write_text_atomically
from rewind.store.digest import sha1_hex
from rewind.store.fastjson import dumps, load_object
from rewind.store.repository import (
    LABELS_REF_PREFIX,
    SESSIONS_REF_PREFIX,
    Store,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.history.journal import JournalRecords

_REF_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")


def ref_leaf(session_id: str) -> str:
    """The last part of a session's ref; ids that git would not accept as a ref name are
    hashed."""
    if usable_as_ref(session_id):
        return session_id
    return "x-" + sha1_hex(session_id.encode("utf-8", "surrogateescape"))[:20]


def ref_name(session_id: str) -> str:
    """The ref of a session in a project's store."""
    return SESSIONS_REF_PREFIX + ref_leaf(session_id)


def label_ref_prefix(session_id: str) -> str:
    """Where the session's labels live: ``refs/rewind/labels/<the session's ref name>/``."""
    return LABELS_REF_PREFIX + ref_leaf(session_id) + "/"


def conversation_ref(store: Store, session_id: str) -> str:
    """Where the agent's conversation kept with the session is
    (rewind.history.kept_conversation): ``refs/rewind/conversations/<the session's ref name>``
    in a project's store, that machine's folder of the mirror in a view of fetched sessions."""
    return store.conversations_prefix + ref_leaf(session_id)


# Where the end of the last slice kept of each session's conversation is noted, in the store's
# state folder (rewind.history.kept_conversation).
KEPT_CUTS = "kept-conversations"


def kept_cut_path(store: Store, session_id: str) -> str:
    return store.state_path(KEPT_CUTS, ref_leaf(session_id))


def session_ref(store: Store, session_id: str) -> str:
    """The ref of a session in ``store`` (a project's store, or a view of fetched sessions)."""
    return store.sessions_prefix + ref_leaf(session_id)


def labels_folder(store: Store, session_id: str) -> str:
    """Where the session's labels live in ``store``."""
    return store.labels_prefix + ref_leaf(session_id) + "/"


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


# What a session's journal is to its head (SessionHead.journal_state).
MERGED = "merged"  # it belongs to the open turn: its pending records are applied to it
STALE = "stale"  # everything in it is in the history already: it can go
STRAY = "stray"  # it holds records no open turn can take: it is set aside, never applied


class SessionHead:
    """The tip commit of a session, its parent, and the entry the tip records, with the open
    turn's journal merged in (see :mod:`rewind.history.journal`)."""

    __slots__ = (
        "absorbed",
        "current",
        "journal",
        "journal_fd",
        "journal_state",
        "parent",
        "ref",
        "session_id",
        "tip",
    )

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
        self.journal: JournalRecords | None = None  # what the journal held when read
        self.journal_state = ""  # MERGED, STALE or STRAY when there is a journal
        self.journal_fd: int | None = None  # the journal's lock, while a writer holds it
        self.absorbed = False  # whether a commit holds the merged records now

    @property
    def next_number(self) -> int:
        return self.current.number + 1 if self.current else 1


def _cache_path(store: Store, ref: str) -> str:
    return store.state_path("sessions", ref.rsplit("/", 1)[1] + ".json")


def journal_path_of(store: Store, session_id: str) -> str:
    return journal.journal_path(
        store.state_path(journal.JOURNAL_DIR), ref_name(session_id).rsplit("/", 1)[1]
    )


def load_head(store: Store, session_id: str) -> SessionHead:
    """The session's head, its open turn as the journal says it is now (nothing is written)."""
    head = _load_tip(store, session_id)
    merge_journal(store, head)
    return head


def _load_tip(store: Store, session_id: str) -> SessionHead:
    ref = session_ref(store, session_id)
    tip = store.read_ref(ref)
    if tip is None:
        return SessionHead(session_id, ref)
    try:
        with open(_cache_path(store, ref), encoding="utf-8") as handle:
            cache = load_object(handle.read())
        parent, current = cache.get("parent"), cache.get("current")
        if cache.get("tip") == tip and isinstance(current, dict):
            parent = parent if isinstance(parent, str) else None
            if parent is not None and tip in store.reader.cut_points():
                parent = None  # retention cut the history at the tip
            cached = Entry.from_json(current)
            if cached.session == session_id:
                return SessionHead(session_id, ref, tip, parent, cached)
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        pass  # no cache, or a stale or damaged one: read the tip commit instead
    current, parent = commits.read_entry(store, tip, session_id)
    head = SessionHead(session_id, ref, tip, parent, current)
    try:
        _write_cache(store, head)
    except OSError:
        pass  # only a cache: a read-only or full store still reads
    return head


def merge_journal(store: Store, head: SessionHead) -> None:
    """Applies the open turn's journal to ``head`` in memory (see :class:`SessionHead`)."""
    current = head.current
    spent = current.absorbed_spool_files() if current is not None else ()
    records = journal.read(journal_path_of(store, head.session_id), spent)
    if records is None:
        return
    head.journal = records
    is_open = current is not None and current.is_open
    if records.entry and (current is None or records.entry != current.id):
        head.journal_state = STRAY  # its turn is not the session's newest entry
        return
    absorbed = current.absorbed_lines(records.journal) if current is not None else 0
    if not is_open:
        pending = records.lines > absorbed
        head.journal_state = STRAY if pending else STALE
        return
    assert current is not None
    journal.apply(current, records, absorbed)
    head.journal_state = MERGED


class Settled:
    """A session's head for a writer that holds the store lock: the journal's lock is taken
    first, so that every record appended so far is merged and none is appended meanwhile.

    On exit, a journal whose records are all in the history and whose turn is over is removed;
    one that belongs to no open turn is set aside (and logged), never applied or deleted.
    """

    def __init__(self, store: Store, session_id: str) -> None:
        self.store = store
        self.session_id = session_id
        self.path = journal_path_of(store, session_id)
        self.head: SessionHead | None = None

    def __enter__(self) -> SessionHead:
        fd = journal.lock_for_fold(self.path)
        try:
            head = load_head(self.store, self.session_id)
        except BaseException:
            if fd is not None:
                os.close(fd)
            raise
        head.journal_fd = fd
        self.head = head
        for spent in head.journal.spent if head.journal else ():
            journal.remove_file(spent)  # left by a fold interrupted after its commit
        if head.journal_state == STRAY and fd is not None:
            late = _appended_after_its_fold(self.store, head)
            if late is not None:
                head.journal, head.journal_state = None, ""
                journal.retire(self.path, None)
                if late:
                    self._open_late_turn(head, late)
                    self.store.log_problem(
                        f"session {head.session_id}: records appended to the journal of a turn "
                        f"that had ended were recorded as turn {head.next_number - 1}"
                    )
                return head
            else:
                kept = journal.set_aside(self.path, _stray_reason(head))
                self.store.log_problem(
                    f"session {head.session_id}: a journal that belongs to no open turn was set "
                    f"aside as {kept}; its records were not applied"
                )
            head.journal, head.journal_state = None, ""
        return head

    def _open_late_turn(self, head: SessionHead, late: dict[str, object]) -> None:
        """Opens the next turn with records hooks appended to the journal of a turn that had
        ended (its fold was killed before removing it), and gives it a journal of its own."""
        previous = head.current
        turn = Entry(
            head.session_id,
            head.next_number,
            new_entry_id(),
            TURN,
            "",
            previous.agent if previous is not None else "",
            started=time.time(),
        )
        records = journal.JournalRecords("", "")
        records.records.append((0, late))
        journal.apply(turn, records, 0)
        if head.journal_fd is not None:
            os.close(head.journal_fd)  # the old journal, removed: appenders holding it retry
            head.journal_fd = None
        save_entry(self.store, head, turn, replace_tip=False)
        journal.create(self.path, turn.id)
        head.journal_fd = journal.lock_for_fold(self.path)

    def __exit__(self, *exc_info: object) -> None:
        head = self.head
        assert head is not None
        if head.journal_fd is None:
            return
        try:
            if head.journal_state == STALE:
                journal.retire(self.path, None)
        finally:
            os.close(head.journal_fd)
            head.journal_fd = None


def _appended_after_its_fold(store: Store, head: SessionHead) -> dict[str, object] | None:
    """What was appended to the journal of an ended turn after its last fold, as one record.

    A fold killed after its commit but before removing the journal leaves it in place, and
    hooks go on appending to it: those records came after the turn (or the restore that went
    on top of it, then its parent) was committed, so they belong to the next turn, like spooled
    ones ({} when there are none). None when the journal is not one the newest entry or its
    parent absorbed: it is set aside.
    """
    records = head.journal
    owner = head.current
    if records is None or owner is None:
        return None
    if records.entry != owner.id and head.parent is not None:
        owner = commits.read_entry(store, head.parent, head.session_id)[0]
    if records.entry != owner.id or not owner.journal:
        return None
    if owner.journal.get("id") != records.journal:
        return None
    return journal.records_after(records, owner.absorbed_lines(records.journal)) or {}


def _stray_reason(head: SessionHead) -> str:
    current = head.current
    state = "open" if current is not None and current.is_open else "closed"
    newest = f"entry {current.id} ({state})" if current is not None else "none"
    entry = head.journal.entry if head.journal else "?"
    return f"journal of entry {entry}; the session's newest entry is {newest}"


def last_known_tip(store: Store, ref: str) -> str | None:
    """The tip the session's cache names (for repairing a damaged ref), if any."""
    try:
        with open(_cache_path(store, ref), encoding="utf-8") as handle:
            tip = load_object(handle.read()).get("tip")
    except (OSError, ValueError, RecursionError):
        return None
    return tip if isinstance(tip, str) else None


def damaged_ref_hint(store: Store, ref: str) -> str:
    """How to point a damaged session ref back at the tip rewind last knew (its cache)."""
    tip = last_known_tip(store, ref)
    if not tip:
        return "No earlier tip is known; the session's history cannot be found again."
    return (
        f"The last tip rewind knew is {tip}: 'git --git-dir={store.git_dir} update-ref "
        f"{ref} {tip}' points it there again."
    )


def _write_cache(store: Store, head: SessionHead) -> None:
    assert head.current is not None
    cache = {"tip": head.tip, "parent": head.parent, "current": head.current.to_json()}
    write_text_atomically(_cache_path(store, head.ref), dumps(cache))


def save_entry(store: Store, head: SessionHead, entry: Entry, replace_tip: bool) -> None:
    """Records ``entry`` as the session's newest; with ``replace_tip`` it supersedes the tip.

    The caller holds the store lock, and :class:`Settled` gave it ``head``. Records merged from
    the open turn's journal are committed with that turn (before anything goes on top of it);
    once they are, a journal whose turn is over is removed.
    """
    merged = head.journal_state == MERGED and not head.absorbed
    if merged and not replace_tip:
        assert head.current is not None
        head.absorbed = True  # its spool files go as soon as this commit holds them
        _commit(store, head, _absorbing(head, head.current), replace_tip=True)
    if merged and entry is head.current:
        _absorbing(head, entry)
        head.absorbed = True
    _commit(store, head, entry, replace_tip)
    records = head.journal
    turn_over = not entry.is_open or (records is not None and records.entry != entry.id)
    if head.journal_state == MERGED and head.absorbed and turn_over:
        if head.journal_fd is not None:  # a journal file (its lock held), not only spool files
            journal.retire(journal_path_of(store, head.session_id), records)
        head.journal, head.journal_state = None, ""


def drop_newest(store: Store, head: SessionHead) -> None:
    """Takes the newest entry off the session, as if it had never been made: its ref points at
    the entry's parent again (a restore rolled back before it was done). The caller holds the
    store lock, and :class:`Settled` gave it ``head``."""
    dropped, parent = head.tip, head.parent
    if dropped is None or parent is None:
        raise UserError(f"session {head.session_id} has no entry before its newest one")
    current, grandparent = commits.read_entry(store, parent, head.session_id)
    if parent in store.reader.cut_points():
        grandparent = None  # retention cut the history there
    store.write_ref(head.ref, parent)
    garbage.record_superseded(store, dropped)
    head.tip, head.parent, head.current = parent, grandparent, current
    _write_cache(store, head)


def _absorbing(head: SessionHead, entry: Entry) -> Entry:
    records = head.journal
    assert records is not None
    entry.journal = {"id": records.journal, "lines": records.lines}
    if records.spool_files:  # named, so that a fold interrupted before removing them is not
        # applied again, to this turn or the next
        entry.journal["spooled"] = [os.path.basename(path) for path in records.spool_files]
    return entry


def _commit(store: Store, head: SessionHead, entry: Entry, replace_tip: bool) -> None:
    parent = head.parent if replace_tip else head.tip
    commit = commits.write_entry(store, entry, parent)
    store.write_ref(head.ref, commit)
    if replace_tip and head.tip is not None and head.tip != commit:
        garbage.record_superseded(store, head.tip)  # gc frees what only it needed at once
    head.tip, head.parent, head.current = commit, parent, entry
    _write_cache(store, head)
    _remember_recent(store, head.session_id)
    if head.journal is not None and head.absorbed:
        for spooled in head.journal.spool_files:  # now in a commit: never to be applied again
            journal.remove_file(spooled)
        head.journal.spool_files = []


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
    """Deletes the session's ref, its labels, the conversation kept with it and its cache; its
    objects go at the next 'rewind gc' (a full repack, which takes them out of the packs too).

    Returns how many labels went with it.
    """
    with store.lock():
        garbage.request_full_repack(store)
        labels = store.ref_names(label_ref_prefix(head.session_id))
        for label in labels:
            store.delete_ref(label)
        try:
            os.rmdir(os.path.join(store.git_dir, label_ref_prefix(head.session_id)))
        except OSError:
            pass
        store.delete_ref(head.ref)
        store.delete_ref(conversation_ref(store, head.session_id))
        for path in (_cache_path(store, head.ref), kept_cut_path(store, head.session_id)):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        path = journal_path_of(store, head.session_id)
        fd = journal.lock_for_fold(path)
        try:
            journal.retire(path, journal.read(path))
        finally:
            if fd is not None:
                os.close(fd)
        if recent_session(store) == head.session_id:
            os.unlink(store.state_path("recent"))
    return len(labels)


def recent_session(store: Store) -> str | None:
    try:
        with open(store.state_path("recent"), encoding="utf-8") as handle:
            return handle.read() or None
    except FileNotFoundError:
        return None


def require_existing(store: Store, session_id: str) -> SessionHead:
    head = load_head(store, session_id)
    if head.current is None:
        raise UserError(f"there is no session {session_id!r}; 'rewind sessions' lists them.")
    return head
