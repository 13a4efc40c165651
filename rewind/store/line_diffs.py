"""Line diffs, made by libgit2's xdiff (as ``git diff`` makes them) through pygit2: the runs of
changed lines between the store's blobs or between contents, their +/- counts, and unified
diffs to show. Every diff rewind makes is made here, by one call (:func:`_patch`).

pygit2 is imported inside the functions that need it, so that importing this module is free.
"""

from __future__ import annotations

from typing import NamedTuple

from rewind.errors import MissingObject, StoreError
from rewind.store.packed import open_repository

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    import pygit2

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
        except (pygit2.GitError, MemoryError) as error:  # MemoryError: a damaged size
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
        old_blob = self._blob(old) if old is not None else None
        new_blob = self._blob(new) if new is not None else None
        patch = _patch(old_blob, new_blob)
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
    patch = _patch(old, new, context_lines=0, force_text=True)
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


class UnifiedDiff(NamedTuple):
    """A unified diff (``text``, empty unless asked for) and its +/- line counts; a binary
    side counts no lines."""

    added: int
    removed: int
    binary: bool
    text: str


def unified_diff(
    old: bytes | None, new: bytes | None, name: str, with_text: bool = True
) -> UnifiedDiff:
    """From ``old`` to ``new`` (None: empty), the file named ``name`` on both sides, with three
    lines of context as ``git diff`` shows them. ``name`` must encode to UTF-8 (pygit2 cannot
    encode lone surrogates)."""
    patch = _patch(old, new, name=name)
    if patch is None:
        return UnifiedDiff(0, 0, False, "")
    _, added, removed = patch.line_stats
    text = (patch.text or "") if with_text else ""
    return UnifiedDiff(added, removed, bool(patch.delta.is_binary), text)


def _patch(
    old: pygit2.Blob | bytes | None,
    new: pygit2.Blob | bytes | None,
    name: str | None = None,
    context_lines: int = 3,
    force_text: bool = False,
) -> pygit2.Patch | None:
    """libgit2's patch from ``old`` to ``new``: the one place a diff is made."""
    import pygit2
    from pygit2.enums import DiffOption

    flag = DiffOption.FORCE_TEXT if force_text else DiffOption.NORMAL
    if name is None:
        return pygit2.Patch.create_from(old, new, flag=flag, context_lines=context_lines)
    return pygit2.Patch.create_from(
        old, new, old_as_path=name, new_as_path=name, flag=flag, context_lines=context_lines
    )
