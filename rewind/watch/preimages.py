"""The state a path had before an external change, when it can be known.

In order:

1. the path's first event in the burst was its creation: it was absent (with the parent
   directories created in the same burst) -- unless what rewind knows says it existed: a file
   renamed into the project from outside (an editor's temporary file in /tmp) over an existing
   one is reported as a creation too, and rules 2 and 3 then give what it replaced;
2. the watcher's snapshot of the files git does not hold (rewind.watch.snapshot), for the
   first change of a path after the snapshot was taken;
3. the last state this session recorded for it (exact while the watcher has been running
   since);
4. in a git repository, from what git said when the watcher started: a path that was clean
   then and has not been seen changing since still holds what the index holds, so the index's
   blob is its previous content (copied into rewind's store); a path neither in the index nor
   reported by ``git status`` did not exist. Outside git, only the names of the files that
   existed at start are known (one walk of the tree): a path that was not there did not exist;
5. otherwise nothing: ``unknown``, shown as not rewindable.

The user's repository is only read: the index is read once into memory at start,
``git status`` runs with ``--no-optional-locks``, and blobs are read with libgit2
(:mod:`rewind.store.project_repository`).
"""

from __future__ import annotations

import os
import stat

from rewind.errors import UserError
from rewind.history.filestate import ABSENT, FILE, LINK, TOO_LARGE, UNKNOWN, FileState, fingerprint
from rewind.store.repository import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.store.project_repository import ProjectRepository

GITLINK = 0o160000


class GitBaseline:
    """What the repository's index and ``git status`` said when the watcher started."""

    def __init__(self, repository: ProjectRepository, root: bytes) -> None:
        from rewind.store.git_status import changed_paths

        self.repository = repository
        # Read into memory now: later changes to the index (git add, a checkout) must not
        # change what the start-up state was.
        self.index = repository.read_index()
        dirty = changed_paths(root)
        self.dirty = {path for path in dirty if not path.endswith(b"/")}
        self.dirty_prefixes = tuple(path for path in dirty if path.endswith(b"/"))
        # Which of the changed paths were on disk (a path deleted in the work tree is changed).
        self.dirty_present = {p for p in self.dirty if os.path.lexists(os.path.join(root, p))}

    def existed_at_start(self, path: bytes) -> bool:
        """Whether ``path`` was on disk when the watcher started (True when unsure)."""
        if path in self.dirty:
            return path in self.dirty_present
        if path.startswith(self.dirty_prefixes):
            return True
        return self.state_at_start(path) != ("absent", 0, "")

    def state_at_start(self, path: bytes) -> tuple[str, int, str] | None:
        """``("blob", mode, oid)``, ``("absent", 0, "")``, or None when unknown."""
        if path in self.dirty or path.startswith(self.dirty_prefixes):
            return None
        name = os.fsdecode(path)
        parts = name.split("/")
        for depth in range(1, len(parts)):  # inside a submodule: git status did not look
            parent = self.index.entry("/".join(parts[:depth]))
            if parent is not None and parent[0] == GITLINK:
                return None
        entry = self.index.entry(name)
        if entry is None:
            return ("absent", 0, "")
        mode, oid = entry
        if mode == GITLINK:
            return None
        return ("blob", mode, oid)


class PreImages:
    def __init__(self, store: Store, repository: ProjectRepository | None) -> None:
        self.store = store
        self.git: GitBaseline | None = None
        self.seen: set[bytes] = set()  # changed since start without being recorded
        self.trust_git = True
        self.existing: set[bytes] | None = None  # outside git: the files there at start
        # The snapshot's states, each the earlier state of its path's first change whose first
        # event came at or after ``snapshot_from`` (rewind.watch.snapshot).
        self.snapshot: dict[bytes, FileState] = {}
        self.snapshot_from = float("inf")
        mask = os.umask(0o022)
        os.umask(mask)
        # A file put back from the index gets git's permission: executable or not, with the umask.
        self.file_modes = (0o666 & ~mask, 0o777 & ~mask)
        if repository is not None:
            try:
                self.git = GitBaseline(repository, store.root.path)
            except (UserError, OSError, ValueError) as error:
                store.log_problem(f"watch: git's view of the work tree is not used: {error}")

    def note_existing(self, names: set[bytes]) -> None:
        """Outside git: the files that existed when the watcher started."""
        self.existing = names

    def take_snapshot(self, states: dict[bytes, FileState], valid_from: float) -> None:
        """``states`` are what the files held when their first change after ``valid_from``
        (a ``time.monotonic()`` of the events) began."""
        self.snapshot = dict(states)
        self.snapshot_from = valid_from

    def forget(self, path: bytes) -> None:
        """A change of ``path`` was taken in: the snapshot no longer says what it holds."""
        self.snapshot.pop(path, None)

    def mark_seen(self, path: bytes) -> None:
        """A change to ``path`` was seen but not recorded (a storm): the index no longer says
        what it held."""
        self.seen.add(path)

    def events_lost(self) -> None:
        """The kernel dropped events: any clean file may have changed unseen since."""
        self.trust_git = False

    def before(
        self,
        path: bytes,
        created: bool,
        recorded: FileState | None,
        missing_dirs: int,
        first: float = 0.0,
    ) -> FileState:
        """The state before a change of ``path`` whose first event came at ``first``."""
        snapped = self.snapshot.get(path) if first >= self.snapshot_from else None
        if created and snapped is None and not self._existed(path, recorded):
            return FileState(ABSENT, missing_dirs=missing_dirs)
        if snapped is not None:
            return snapped
        if recorded is not None:
            return recorded
        if not self.trust_git or path in self.seen or path.startswith(b"/"):
            return FileState(UNKNOWN)  # (paths starting with / are in extra roots: not known)
        if self.git is None:
            if self.existing is None or path in self.existing:
                return FileState(UNKNOWN)
            return FileState(ABSENT)
        known = self.git.state_at_start(path)
        if known is None:
            return FileState(UNKNOWN)
        kind, mode, oid = known
        if kind == "absent":
            return FileState(ABSENT)  # its directories may have existed, empty: they are kept
        return self._from_blob(path, mode, oid)

    def _existed(self, path: bytes, recorded: FileState | None) -> bool:
        """Whether the path existed just before a burst whose first event was its creation.

        Only a rename from outside the root over an existing file makes this true; when rewind
        cannot tell (events were lost, a change was not recorded), the event is believed.
        """
        if recorded is not None:
            return recorded.kind != ABSENT
        if not self.trust_git or path in self.seen or path.startswith(b"/"):
            return False
        if self.git is not None:
            return self.git.existed_at_start(path)
        return self.existing is not None and path in self.existing

    def _from_blob(self, path: bytes, mode: int, oid: str) -> FileState:
        assert self.git is not None
        try:
            data = self.git.repository.read_blob(oid)
        except (KeyError, ValueError) as error:
            self.store.log_problem(
                f"watch: the index's blob of {self.store.root.display(path)} cannot be read "
                f"({error}); its earlier state is unknown"
            )
            return FileState(UNKNOWN)
        if stat.S_ISLNK(mode):
            state = FileState(LINK, size=len(data), xxh=fingerprint(data))
        else:
            bits = self.file_modes[1] if mode & 0o100 else self.file_modes[0]
            if len(data) > self.store.config.max_file_size:
                return FileState(TOO_LARGE, mode=bits, size=len(data))
            state = FileState(FILE, mode=bits, size=len(data), xxh=fingerprint(data))
        state.oid = self.store.writer.write_blob(data)
        return state
