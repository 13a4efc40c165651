"""The project's own git repository (the user's, not rewind's store), read through pygit2.

Watch mode asks it what git knows of the work tree without starting git for every event: which
paths the ignore rules (``.gitignore`` files, ``.git/info/exclude``, ``core.excludesFile``)
leave out, and what the index held when the watcher started, with the blobs it names. libgit2
only reads here: nothing is written to the user's ``.git``.

pygit2 is imported inside the functions that need it, so that importing this module is free.
"""

from __future__ import annotations

import os

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
