"""The only module that talks to pygit2 about the store itself.

pygit2 is imported inside the functions that need it, so that importing this module is free. The
user's own git configuration (global, XDG, system) is blanked before any repository is opened, so
nothing in it (hooks, filters, ``core.*`` settings) can leak into the store.
"""

from __future__ import annotations

from rewind.errors import MissingObject, StoreError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    import pygit2

_repositories: dict[str, pygit2.Repository] = {}


def open_repository(git_dir: str) -> pygit2.Repository:
    repository = _repositories.get(git_dir)
    if repository is None:
        import pygit2
        from pygit2.enums import ConfigLevel

        for level in (ConfigLevel.GLOBAL, ConfigLevel.XDG, ConfigLevel.SYSTEM):
            pygit2.settings.search_path[level] = ""
        try:
            repository = pygit2.Repository(git_dir)
        except pygit2.GitError as error:
            raise StoreError(
                f"the store at {git_dir} cannot be opened ({error}); run 'rewind check'."
            ) from None
        _repositories[git_dir] = repository
    return repository


def read_packed_object(git_dir: str, oid: str) -> tuple[bytes, bytes]:
    import pygit2

    repository = open_repository(git_dir)
    try:
        kind, body = repository.odb.read(oid)[0:2]
    except KeyError:
        raise MissingObject(
            f"object {oid} is missing from the store; run 'rewind check' to see what it affects."
        ) from None
    except pygit2.GitError as error:  # a pack that cannot be inflated, or fails its checksum
        raise StoreError(
            f"object {oid} in the store is corrupted ({error}); "
            "run 'rewind check' to see what it affects."
        ) from None
    names = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}
    return names[int(kind)], bytes(body)


def build_pack(git_dir: str, folder: str, objects: Iterable[bytes]) -> None:
    """Writes a delta-compressed pack of ``objects`` (20-byte ids) and its index into
    ``folder`` (libgit2's PackBuilder)."""
    import pygit2

    builder = pygit2.PackBuilder(open_repository(git_dir))
    try:
        for raw in objects:
            builder.add(pygit2.Oid(raw=raw))
        builder.write(folder)
    except (pygit2.GitError, KeyError) as error:
        raise StoreError(
            f"a pack could not be written ({error}); run 'rewind check' to see what it affects."
        ) from None


def forget_repository(git_dir: str) -> None:
    """Drops the open repository, so that the next read sees the packs as they are now."""
    _repositories.pop(git_dir, None)


Hunk = tuple[int, int, int, int]


def _hash_on_read(enabled: bool) -> None:
    import pygit2
    from pygit2.enums import Option

    pygit2.option(Option.ENABLE_STRICT_HASH_VERIFICATION, enabled)


class LineDiffer:
    """Line diffs (libgit2, no context) between the store's blobs, for walks that diff each
    version with the next: the blob read for one step is kept for the next.

    A hunk is ``(old_start, old_lines, new_start, new_lines)``; the starts count from 0 and, for
    an empty side, are where its lines would go. None stands for empty content. Every blob is
    diffed as text.
    """

    def __init__(
        self, git_dir: str, recorded: Callable[[str, memoryview], bool | None] | None = None
    ) -> None:
        self.repository = open_repository(git_dir)
        self.kept: tuple[str, pygit2.Blob] | None = None
        # Whether a blob's content is what was recorded for it (None: nothing to check it by).
        self.recorded = recorded

    def _blob(self, oid: str) -> pygit2.Blob:
        import pygit2

        if self.kept is not None and self.kept[0] == oid:
            return self.kept[1]
        try:
            blob = self._read(oid)
        except (KeyError, ValueError):
            raise MissingObject(
                f"object {oid} is missing from the store; run 'rewind check' to see what it "
                "affects."
            ) from None
        except pygit2.GitError as error:
            raise StoreError(
                f"object {oid} in the store is corrupted ({error}); run 'rewind check' to see "
                "what it affects."
            ) from None
        if not isinstance(blob, pygit2.Blob):
            raise StoreError(f"object {oid} in the store is not a blob; run 'rewind check'.")
        self.kept = (oid, blob)
        return blob

    def _read(self, oid: str) -> pygit2.Object:
        """The object ``oid``. libgit2 hashes every object it reads again (SHA-1 with collision
        detection: 0.8 ms for 200 KB, most of a walk's time); with ``recorded``, the content is
        checked against its recorded fingerprint instead (a twentieth of that), and hashed
        only when nothing was recorded to check it by."""
        import pygit2

        if self.recorded is None:
            return self.repository[oid]
        _hash_on_read(False)
        try:
            found = self.repository[oid]
        finally:
            _hash_on_read(True)
        if not isinstance(found, pygit2.Blob):
            return found  # the caller says what is wrong with it
        verdict = self.recorded(oid, memoryview(found))  # the content, not copied out
        if verdict is None:
            return self.repository[oid]  # read again, hashed
        if not verdict:
            raise StoreError(
                f"object {oid} in the store does not hold what was recorded; run 'rewind check' "
                "to see what it affects."
            )
        return found

    def hunks(self, old: str | None, new: str | None) -> list[Hunk]:
        """From blob ``old`` to blob ``new``."""
        old_blob = self._blob(old) if old is not None else None
        return line_hunks(old_blob, self._blob(new) if new is not None else None)

    def counts(self, old: str | None, new: str | None) -> tuple[int, int, bool]:
        """Lines added and removed from blob ``old`` to blob ``new``, and whether either is
        binary (then no lines are counted), as ``git diff --numstat`` counts them."""
        import pygit2

        old_blob = self._blob(old) if old is not None else None
        new_blob = self._blob(new) if new is not None else None
        if old_blob is not None and new_blob is not None:
            patch = old_blob.diff(new_blob)
        else:
            patch = pygit2.Patch.create_from(old_blob, new_blob)
        if patch is None:
            return 0, 0, False
        _, added, removed = patch.line_stats
        return added, removed, bool(patch.delta.is_binary)

    def hunks_to(self, old: str | None, data: bytes) -> list[Hunk]:
        """From blob ``old`` to ``data`` (a file as it is now)."""
        return line_hunks(self._blob(old) if old is not None else None, data)


def line_hunks(old: pygit2.Blob | bytes | None, new: pygit2.Blob | bytes | None) -> list[Hunk]:
    """The runs of changed lines from ``old`` to ``new`` (blobs or contents; None is empty), as
    :class:`LineDiffer` describes them: libgit2's xdiff as ``git diff`` runs it, with no context,
    every content as text. Near linear where a longest-common-run matcher is cubic (files with
    many repeated lines). A line keeps its newline, so a last line without one differs from the
    same line with one; changes one unchanged line apart are two hunks."""
    import pygit2
    from pygit2.enums import DiffOption

    flag = DiffOption.FORCE_TEXT
    patch = pygit2.Patch.create_from(old, new, context_lines=0, flag=flag)
    if patch is None:
        return []
    return [
        (
            hunk.old_start - 1 if hunk.old_lines else hunk.old_start,
            hunk.old_lines,
            hunk.new_start - 1 if hunk.new_lines else hunk.new_start,
            hunk.new_lines,
        )
        for hunk in patch.hunks
    ]
