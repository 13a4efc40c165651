"""One file's whole story: every distinct state rewind recorded for a path, across sessions.

``rewind log --path`` lists the *entries* that recorded a path; this module turns them into the
path's *versions*: each distinct content the file had, in time order, with who made it. It is the
API behind ``rewind history`` and ``rewind blame``, and the TUI's file view builds on it.

A version is named like a git revision of the entry that recorded it:

- ``ENTRYID``: the file as that entry left it (the change's after-state);
- ``ENTRYID^``: the file as it was just before that entry first touched it (the before-state).

Walking the entries oldest first, a before-state that equals the previous recorded state adds
nothing (consecutive duplicates collapse); one that differs is a change nobody recorded (an
editor, a command the quicksave could not read, the person between two prompts) and becomes a
version of its own with the source :data:`OUTSIDE`. The very first before-state is the file as
rewind first saw it: what it held then predates the record.

Renames are followed where rewind saw both ends, within one entry: the move was announced when
it was recorded (``FileChange.moved_from``: ``mv A B`` read by the shell quicksave, an
``apply_patch`` ``*** Move to:``) and the entry left ``A`` absent; or, for entries recorded
otherwise, ``B`` went from absent to the content ``A`` held before the entry, and ``A`` ended
absent. The story of ``B`` then goes on, further back, with the versions of ``A`` (only when the
move is the first time rewind saw ``B``); each version says which path it had.

Only the entries that touched the path (and, for a rename, its earlier name) are read, through
the index's ``touches`` rows: the cost grows with the file's own history, never with the
project's.
"""

from __future__ import annotations

from itertools import pairwise

from rewind.history.entry import EXTERNAL, RESTORING, Entry, FileChange
from rewind.history.filestate import ABSENT, FILE, LINK, UNKNOWN, FileState
from rewind.history.index.queries import EntryIndex
from rewind.history.insight.line_counts import LineCounts
from rewind.store.repository import Store

# The sources of versions beyond FileChange's own ("edit", "shell", "external").
OUTSIDE = "outside"  # a before-state that differs from the previous recorded state
PRE_COMMIT = "pre-commit"  # recorded by the git pre-commit hook (session "git")
# The session and agent rewind.hooks.git_precommit records into (not imported: hooks/ is an
# interface layer above this one).
PRE_COMMIT_SESSION = "git"
# How many renames are followed back at most (a chain A -> B -> A -> ... stops there).
MAX_RENAMES = 32
# Above this many versions, every known line count is read from the index at once.
PRELOAD_COUNTS_FROM = 50


class Version:
    """One recorded state of the file, and the entry that recorded it.

    ``added``/``removed`` count lines against the previous (older) version; ``binary`` is True
    when either side is not text; all three stay 0/False for the oldest version, which has
    nothing to be compared with (``compared`` says whether they mean anything).
    """

    __slots__ = (
        "added",
        "after",
        "at",
        "binary",
        "compared",
        "entry",
        "moved_from",
        "path",
        "removed",
        "same_as",
        "source",
        "state",
    )

    def __init__(
        self,
        path: bytes,
        entry: Entry,
        after: bool,
        source: str,
        at: float,
        state: FileState,
        moved_from: bytes | None = None,
    ) -> None:
        self.path = path  # the name the file had in this version
        self.entry = entry
        self.after = after  # the entry's after-state (ENTRYID), else its before-state (ENTRYID^)
        self.source = source
        self.at = at
        self.state = state
        self.moved_from = moved_from  # set on the version that renamed the file to ``path``
        # For a restore, an undo or a redo that put back a content recorded before: the first
        # version that held it (the restore is an event of the file's story, not its author).
        self.same_as: Version | None = None
        self.added = 0
        self.removed = 0
        self.binary = False
        self.compared = False

    def __repr__(self) -> str:
        return f"Version({self.id!r}, {self.path!r}, {self.source}, {self.state.kind})"

    @property
    def id(self) -> str:
        return self.entry.id if self.after else self.entry.id + "^"

    @property
    def deleted(self) -> bool:
        return self.state.kind == ABSENT

    @property
    def has_content(self) -> bool:
        """Whether the store holds what the version contained (a file's or a link's blob)."""
        return self.state.kind in (FILE, LINK) and self.state.oid is not None


class Batch:
    """The versions of many paths read together (a commit's files): the index synced and the
    open turns read once, and each entry parsed once, however many of the paths it touched."""

    def __init__(self, index: EntryIndex) -> None:
        self.open_turns = index.sync_all()
        self._parsed: dict[tuple[str, int], Entry] = {}

    def touching(self, index: EntryIndex, path: bytes) -> dict[tuple[str, int], Entry]:
        found = {}
        for session, number, _ in index.touching(path):
            key = (session, number)
            entry = self._parsed.get(key)
            if entry is None:
                entry = index.entry(session, number)
                if entry is None:
                    continue
                self._parsed[key] = entry
            found[key] = entry
        return found


def file_versions(
    store: Store,
    path: bytes,
    index: EntryIndex | None = None,
    count_lines: bool = True,
    batch: Batch | None = None,
) -> list[Version]:
    """Every distinct recorded state of ``path`` (a stored name), newest first.

    Open turns count with what their journals hold (their after-states are not recorded yet).
    ``index``: an open index to reuse; one is opened (and closed) otherwise. ``count_lines``:
    fill each version's +/- against the one before (a diff per version the first time; a
    caller that does not show them, such as blame, saves that). ``batch``: the reading of many
    paths this one is part of (made on ``index``).
    """
    if index is None:
        with EntryIndex(store) as opened:
            return file_versions(store, path, opened, count_lines)
    open_turns = batch.open_turns if batch is not None else index.sync_all()
    touches = _changes_of(index, open_turns, path, None, set(), 0, batch)
    versions = _versions(touches)
    _note_put_back(versions)
    if count_lines:
        _count_lines(store, index, versions)
    versions.reverse()
    return versions


def _note_put_back(oldest_first: list[Version]) -> None:
    """Sets :attr:`Version.same_as` of each version a restore, an undo or a redo wrote with a
    content an earlier version held."""
    first: dict[str, Version] = {}
    for version in oldest_first:
        oid = version.state.oid if version.has_content else None
        if oid is None:
            continue
        earlier = first.setdefault(oid, version)
        if earlier is not version and version.source in RESTORING:
            version.same_as = earlier


def find_version(versions: list[Version], wanted: str) -> Version | None:
    """The version named ``wanted`` (``ENTRYID`` or ``ENTRYID^``, or a unique prefix of the id
    followed by the same mark); None when none matches. Several matches raise a ValueError."""
    wanted = wanted.strip().lower()
    after = not wanted.endswith("^")
    prefix = wanted.rstrip("^")
    if not prefix:
        return None
    found = [v for v in versions if v.after == after and v.entry.id.startswith(prefix)]
    if len({v.id for v in found}) > 1:
        raise ValueError(f"{wanted!r} matches more than one version; give more of the id")
    return found[0] if found else None


def version_content(store: Store, version: Version) -> bytes | None:
    """What the version held (a file's bytes, a link's target); None for a deletion or a state
    whose content was not kept (too large, unreadable, unknown)."""
    if not version.has_content:
        return None
    assert version.state.oid is not None
    return store.reader.read_blob(version.state.oid)


# collecting the changes -----------------------------------------------------------------------


class _Touch:
    """One entry's change of one path, with what following a rename found about it."""

    __slots__ = ("change", "entry", "key", "moved_from", "only_before")

    def __init__(self, entry: Entry, change: FileChange, only_before: bool = False) -> None:
        self.entry = entry
        self.change = change
        self.key = _order(entry, change)
        self.only_before = only_before  # the old name's side of a rename: its after is absence
        self.moved_from: bytes | None = None


def _order(entry: Entry, change: FileChange) -> tuple[float, float, str, int]:
    """Changes are put in the order they were first seen (the before-state's time), then by
    entry: across sessions that is the order in which files were touched."""
    return (change.at or entry.started, entry.started, entry.session, entry.number)


def _changes_of(
    index: EntryIndex,
    open_turns: list[Entry],
    path: bytes,
    until: tuple[float, float, str, int] | None,
    seen: set[tuple[bytes, str, int]],
    renames: int,
    batch: Batch | None = None,
) -> list[_Touch]:
    """The changes of ``path`` recorded before ``until`` (all when None), oldest first, with
    the changes of the path it was renamed from when it first appears through a rename."""
    if batch is not None:
        entries = batch.touching(index, path)
    else:
        entries = {(e.session, e.number): e for e in index.query(None, path=path)}
    for entry in open_turns:
        if entry.file(path) is not None:
            entries[(entry.session, entry.number)] = entry
    touches = []
    for entry in entries.values():
        change = entry.file(path)
        if change is None or (path, entry.session, entry.number) in seen:
            continue
        touch = _Touch(entry, change)
        if until is None or touch.key < until:
            touches.append(touch)
    touches.sort(key=lambda touch: touch.key)
    if not touches or renames >= MAX_RENAMES:
        return touches
    first = touches[0]
    source = _moved_from(first.entry, first.change)
    if source is None:
        return touches
    first.moved_from = source.path
    seen.add((path, first.entry.session, first.entry.number))
    seen.add((source.path, first.entry.session, first.entry.number))
    older = _changes_of(index, open_turns, source.path, first.key, seen, renames + 1, batch)
    older.append(_Touch(first.entry, source, only_before=True))
    return older + touches


Key = tuple[float, float, str, int]


def moved_to(index: EntryIndex, path: bytes, after: Key) -> tuple[bytes, Key] | None:
    """The name ``path`` was moved to by the first entry after ``after`` (a change's
    :func:`touch_key`) that moved it, recognised as :func:`file_versions` recognises a rename,
    with the key of that move; None when no later entry moved it."""
    entries = {(e.session, e.number): e for e in index.query(None, path=path)}
    for entry in index.sync_all():  # open turns: their journals are in no commit yet
        if entry.file(path) is not None:
            entries[(entry.session, entry.number)] = entry
    later = []
    for entry in entries.values():
        change = entry.file(path)
        if change is not None and _order(entry, change) > after:
            later.append((_order(entry, change), entry))
    for _, entry in sorted(later, key=lambda found: found[0]):
        for change in entry.files:
            source = _moved_from(entry, change) if change.path != path else None
            if source is not None and source.path == path:
                return change.path, _order(entry, change)
    return None


def touch_key(entry: Entry, change: FileChange) -> tuple[float, float, str, int]:
    """Where ``entry``'s ``change`` lies in a file's story (the order versions are listed in)."""
    return _order(entry, change)


def _moved_from(entry: Entry, change: FileChange) -> FileChange | None:
    """The change of the same entry that ``change`` is the other end of a move of.

    A move announced when it was recorded (``change.moved_from``) counts when the entry left the
    old name absent and the new one present. Otherwise one is recognised by content: the new
    name goes from absent to a content the old name held before the entry, and the old name
    ends absent.
    """
    before, after = change.before, change.after
    if after is None or after.kind not in (FILE, LINK):
        return None
    if change.moved_from is not None:
        source = entry.file(change.moved_from)
        if source is not None and source.after is not None and source.after.kind == ABSENT:
            return source
    if before is None or before.kind != ABSENT:
        return None
    for other in entry.files:
        old, new = other.before, other.after
        if (
            other.path != change.path
            and old is not None
            and new is not None
            and new.kind == ABSENT
            and old.kind == after.kind
            and _same_content(old, after)
        ):
            return other
    return None


def _same_content(one: FileState, other: FileState) -> bool:
    if one.oid is not None and other.oid is not None:
        return one.oid == other.oid
    return one.xxh is not None and one.xxh == other.xxh and one.size == other.size


def _same(one: FileState, other: FileState) -> bool:
    """Whether two states are one version (an unknown state never equals anything)."""
    if one.same_as(other):
        return True
    return (
        one.kind == other.kind == FILE
        and one.mode == other.mode
        and one.oid is not None
        and one.oid == other.oid
    )


# making the versions --------------------------------------------------------------------------


def _versions(touches: list[_Touch]) -> list[Version]:
    """The distinct states, oldest first.

    The before-state of an entry of changes made outside any agent's turn (drift found by
    'rewind begin', watch mode) is what its session last recorded, which another session may
    have changed since: only its after-state, what was found, is a version (unless it is the
    first record of the file)."""
    versions: list[Version] = []
    last: FileState | None = None
    for touch in touches:
        entry, change = touch.entry, touch.change
        before = change.before
        if (
            before is not None
            and before.kind != UNKNOWN
            and touch.moved_from is None  # the new name's absence is not a state of the file
            and (last is None or not (_same(before, last) or entry.is_outside_agent))
        ):
            source = _source(entry, change) if last is None else _outside_source(entry)
            versions.append(Version(change.path, entry, False, source, change.at, before))
            last = before
        if touch.only_before:
            continue
        after = change.after
        if after is None or after.kind == UNKNOWN:
            continue
        moved = touch.moved_from is not None
        if last is not None and _same(after, last) and not moved:
            continue
        at = entry.ended or change.at
        version = Version(change.path, entry, True, _source(entry, change), at, after)
        version.moved_from = touch.moved_from
        versions.append(version)
        last = after
    return versions


def _source(entry: Entry, change: FileChange) -> str:
    if entry.kind in RESTORING:
        return entry.kind
    if entry.session == PRE_COMMIT_SESSION and entry.agent == PRE_COMMIT_SESSION:
        return PRE_COMMIT
    if entry.is_outside_agent:
        return EXTERNAL
    return change.source


def _outside_source(entry: Entry) -> str:
    """A before-state that differs from the last recorded state: changed outside the record,
    unless the pre-commit hook is what recorded it (it records exactly such changes)."""
    if entry.session == PRE_COMMIT_SESSION and entry.agent == PRE_COMMIT_SESSION:
        return PRE_COMMIT
    return OUTSIDE


def _count_lines(store: Store, index: EntryIndex, versions: list[Version]) -> None:
    counts = LineCounts(store, index, preload=len(versions) > PRELOAD_COUNTS_FROM)
    try:
        for older, newer in pairwise(versions):
            diff = counts.diff(newer.path, older.state, newer.state)
            newer.added, newer.removed, newer.binary = diff.added, diff.removed, diff.binary
            newer.compared = True
    finally:
        counts.save()
