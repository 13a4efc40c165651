"""+/- line counts of recorded changes, counted once and kept in the index.

Counting a change means reading both contents and diffing them; ``log`` shows counts for every
file of every entry it prints, so they are looked up by the pair of contents
(:meth:`rewind.history.index.caches.IndexCaches.diffstat`) and counted only the first time any
reader needs them. The hook path never counts (it would need pygit2).
"""

from __future__ import annotations

from rewind.history.entry import Entry
from rewind.history.filestate import ABSENT, FILE, LINK, FileState, RecordedFingerprints
from rewind.history.index.queries import EntryIndex
from rewind.history.insight.diffs import ADDED, DELETED, MODE, MODIFIED, FileDiff, diff_states
from rewind.store.line_diffs import LineDiffer
from rewind.store.repository import Store

COUNTED = frozenset({ADDED, DELETED, MODIFIED, MODE})
Key = tuple[str, str]
Counts = tuple[int, int, bool]


def _key(state: FileState | None) -> str:
    if state is None:
        return "-"
    return state.oid or f"-{state.kind}"


class LineCounts:
    """Diffs without text for entries, their counts from the index when it has them.

    With ``preload`` every count the index holds is read at once (for a reader that goes
    through many entries); otherwise each is looked up as needed. :meth:`save` keeps the
    counts made meanwhile.
    """

    def __init__(self, store: Store, index: EntryIndex, preload: bool = False) -> None:
        self.store = store
        self.index = index
        self.known: dict[Key, Counts] = index.all_diffstats() if preload else {}
        self.preloaded = preload
        self.counted: dict[Key, Counts] = {}
        self.differ: LineDiffer | None = None
        self.recorded = RecordedFingerprints()

    def diffs(self, entry: Entry) -> list[FileDiff]:
        return [self.diff(change.path, change.before, change.after) for change in entry.files]

    def diff(self, path: bytes, old: FileState | None, new: FileState | None) -> FileDiff:
        result = FileDiff(path, old, new)
        if result.status not in COUNTED:
            return result
        key = (_key(old), _key(new))
        counts = self.known.get(key)
        if counts is None and not self.preloaded:
            counts = self.index.diffstat(*key)
        if counts is None:
            counts = self._count(path, old, new)
            self.counted[key] = counts
        self.known[key] = counts
        result.added, result.removed, result.binary = counts
        return result

    def _count(self, path: bytes, old: FileState | None, new: FileState | None) -> Counts:
        """Between two blobs (or a blob and an absence), libgit2 diffs the stored objects
        themselves, the blob read for one pair kept for the next (a file's versions in a row);
        other states go through :func:`diff_states`."""
        if _blob_or_absent(old) and _blob_or_absent(new):
            if self.differ is None:
                self.differ = LineDiffer(self.store.git_dir, self.recorded)
            self.recorded.note(old)
            self.recorded.note(new)
            return self.differ.counts(_oid(old), _oid(new))
        made = diff_states(self.store, path, old, new, with_text=False)
        return made.added, made.removed, made.binary

    def save(self) -> None:
        try:
            self.index.remember_diffstats(self.counted)
        except Exception as error:  # only a cache: the counts are made again next time
            self.store.log_problem(f"could not keep line counts in the index: {error}")
        self.counted = {}


def _blob_or_absent(state: FileState | None) -> bool:
    if state is None:
        return False
    return state.kind == ABSENT or (state.kind in (FILE, LINK) and state.oid is not None)


def _oid(state: FileState | None) -> str | None:
    return state.oid if state is not None and state.kind != ABSENT else None
