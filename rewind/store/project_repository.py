"""The project's own git repository (the user's, not rewind's store), read through pygit2.

Watch mode asks it what git knows of the work tree without starting git for every event: which
paths the ignore rules (``.gitignore`` files, ``.git/info/exclude``, ``core.excludesFile``)
leave out, and what the index held when the watcher started, with the blobs it names. libgit2
only reads here: nothing is written to the user's ``.git``.

It also reads what a commit brought (:func:`read_commit`), for the commit's authorship note
(rewind.history.attribution): each file the commit added or changed, as committed, and the
lines it added (against its first parent; every line of a root commit's files).

pygit2 is imported inside the functions that need it, so that importing this module is free.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pygit2


class IndexSnapshot:
    """The index as it was read, kept in memory: later changes to the file (``git add``, a
    checkout) do not change it."""

    def __init__(self, index: pygit2.Index) -> None:
        self._index = index

    def entry(self, name: str) -> tuple[int, str] | None:
        """The mode and blob id the index holds for ``name`` (a path relative to the top of
        the work tree), or None when it holds nothing there."""
        if name not in self._index:
            return None
        found = self._index[name]
        return found.mode, str(found.id)


class ProjectRepository:
    """A non-bare repository found at (or above) the project root."""

    def __init__(self, repository: pygit2.Repository) -> None:
        self._repository = repository

    @classmethod
    def open(cls, root: bytes) -> ProjectRepository | None:
        """The repository of the work tree at ``root``; None outside git, or for a bare one."""
        import pygit2

        try:
            repository = pygit2.Repository(os.fsdecode(root))
        except (pygit2.GitError, KeyError):
            return None
        return None if repository.is_bare else cls(repository)

    def is_ignored(self, path: str) -> bool:
        """Whether git's ignore rules leave ``path`` (relative to the top of the work tree) out.
        Raises UnicodeError or ValueError for a name libgit2 cannot take."""
        return bool(self._repository.path_is_ignored(path))

    def read_index(self) -> IndexSnapshot:
        """The index, read now."""
        import pygit2

        return IndexSnapshot(pygit2.Index(os.path.join(self._repository.path, "index")))

    def read_blob(self, oid: str) -> bytes:
        """The content of blob ``oid``; KeyError or ValueError when it cannot be read."""
        return self._repository[oid].read_raw()


# A file this large is not read for authorship (as rewind's default max_file_size).
MAX_BYTES = 16 * 1024 * 1024


@dataclass
class CommittedFile:
    path: bytes  # from the top of the work tree, as git names it
    content: bytes
    added: list[int]  # the line numbers (from 1) of the lines the commit added


@dataclass
class Commit:
    sha: str
    author: str  # "Name <email>"
    files: list[CommittedFile]


def read_commit(top: bytes, revision: str) -> Commit:
    """The commit ``revision`` names in the repository at ``top``: what it added or changed
    (its regular files; only read, nothing is written). A line counts as added when it is new
    against every parent (a merge brings no line its branch had committed) and a renamed file
    is diffed against its old name (a move adds no line)."""
    import pygit2

    repository = pygit2.Repository(top)
    commit = repository.revparse_single(revision).peel(pygit2.Commit)
    added: dict[bytes, set[int]] | None = None
    blobs: dict[bytes, pygit2.Blob] = {}
    parents: list[pygit2.Tree | None] = [parent.tree for parent in commit.parents] or [None]
    for parent in parents:
        if parent is None:
            diff = commit.tree.diff_to_tree(context_lines=0, swap=True)
        else:
            diff = parent.diff_to_tree(commit.tree, context_lines=0)
            diff.find_similar()
        found = _added_lines(repository, diff, blobs)
        added = (
            found
            if added is None
            else {path: lines & found[path] for path, lines in added.items() if path in found}
        )
    files = [
        CommittedFile(path, blobs[path].data, sorted(lines))
        for path, lines in (added or {}).items()
        if lines
    ]
    signature = commit.author
    return Commit(str(commit.id), f"{signature.name} <{signature.email}>", files)


def _added_lines(
    repository: pygit2.Repository, diff: pygit2.Diff, blobs: dict[bytes, pygit2.Blob]
) -> dict[bytes, set[int]]:
    """Per text file the diff adds to or changes: the line numbers (from 1) of its new lines."""
    import pygit2

    found: dict[bytes, set[int]] = {}
    for number, delta in enumerate(diff.deltas):
        # Only then diffed: a file of a kind, or of a size, the note never names costs nothing.
        if delta.new_file.mode not in (0o100644, 0o100755) or delta.is_binary:
            continue
        if delta.new_file.size > MAX_BYTES:
            continue
        path = delta.new_file.raw_path
        blob = blobs.get(path) or repository.get(delta.new_file.id)
        if not isinstance(blob, pygit2.Blob) or blob.size > MAX_BYTES:
            continue
        blobs[path] = blob
        patch = diff[number]
        if patch is None or not patch.hunks:
            continue
        found[path] = {
            line
            for hunk in patch.hunks
            for line in range(hunk.new_start, hunk.new_start + hunk.new_lines)
        }
    return found


def files_in_commit(top: bytes, revision: str, paths: list[bytes]) -> dict[bytes, bytes]:
    """The contents of those of ``paths`` that the commit ``revision`` holds as regular files."""
    import pygit2

    repository = pygit2.Repository(top)
    tree = repository.revparse_single(revision).peel(pygit2.Commit).tree
    found = {}
    for path in paths:
        try:
            item = tree[path.decode("utf-8", "surrogateescape")]
        except KeyError:
            continue
        blob = repository.get(item.id)
        if isinstance(blob, pygit2.Blob) and item.filemode in (0o100644, 0o100755):
            found[path] = blob.data
    return found


# A note larger than this is not read (no real authorship note is; a hostile one could be any
# size).
MAX_NOTE_BYTES = 16 * 1024 * 1024


def notes_of(top: bytes, commits: list[str], ref: str) -> dict[str, str | None]:
    """The notes under ``ref`` attached to those of ``commits`` that have one; None for a note
    larger than :data:`MAX_NOTE_BYTES` (not read)."""
    import pygit2

    try:
        repository = pygit2.Repository(top)
        repository.references[ref]
    except (KeyError, pygit2.GitError, pygit2.InvalidSpecError):
        return {}
    found: dict[str, str | None] = {}
    for commit in commits:
        try:
            note = repository.lookup_note(commit, ref)
            blob = repository.get(note.id)
        except (KeyError, ValueError, pygit2.GitError):
            continue
        if isinstance(blob, pygit2.Blob):
            too_large = blob.size > MAX_NOTE_BYTES
            found[commit] = None if too_large else blob.data.decode("utf-8", "replace")
    return found


def has_ref(top: bytes, ref: str) -> bool:
    import pygit2

    try:
        repository = pygit2.Repository(top)
        repository.references[ref]
    except (KeyError, pygit2.GitError, pygit2.InvalidSpecError):
        return False
    return True


def common_git_dir(top: bytes) -> str:
    """The git directory every work tree of the repository at ``top`` shares (the one
    ``refs/notes/...`` live in), absolute and real."""
    import pygit2

    path = os.fsdecode(pygit2.Repository(top).path)
    try:
        with open(os.path.join(path, "commondir"), encoding="utf-8") as handle:
            path = os.path.join(path, handle.read().strip())
    except OSError:
        pass  # the main work tree's own .git
    return os.path.realpath(path)
