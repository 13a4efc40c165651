"""Blame by prompt: for every line of a file as it is now, the version that last changed it.

The walk goes through the file's versions
(:func:`rewind.history.insight.file_history.file_versions`)
oldest first, then to the file on disk. Each step is one line diff made by libgit2 between two
blobs of the store (:class:`rewind.store.line_diffs.LineDiffer`, no context lines); only its hunks
are looked at from Python. Where each line of the current version came from is an ``array`` of
codes spliced by slices (C-speed copies), never one object per line. What the walk knows of the
newest version is kept in the index, so the next blame starts from there: after one more turn it
diffs one more version, plus the file now.

What cannot be known is said, not guessed:

- lines that differ between the newest recorded version and the file now, and lines an
  :data:`~rewind.history.insight.file_history.OUTSIDE` version brought (a before-state that no
  recorded after-state explains), are :data:`OUTSIDE_RECORD`;
- lines already in the oldest version whose content rewind holds (the file as rewind first saw
  it, or the first version after one whose content was not kept: too large, unreadable, a link)
  are :data:`BEFORE_RECORD`.

A restore, an undo or a redo that puts back a content rewind recorded before is not the author
of its lines: they keep the origins they had in the first version with that content (the
entry that wrote them). Only what a restore wrote that no recorded version held (a partial
restore's merge) is its own, line by line, as the diff from the version before says.
"""

from __future__ import annotations

import os
import stat
from array import array

from rewind.errors import UserError
from rewind.history.entry import RESTORING
from rewind.history.filestate import ABSENT, FILE, RecordedFingerprints
from rewind.history.index.queries import EntryIndex
from rewind.history.insight.file_history import OUTSIDE, Version, file_versions
from rewind.store.line_diffs import Hunk, LineDiffer
from rewind.store.repository import Store

RECORDED = "recorded"
BEFORE_RECORD = "before-record"
OUTSIDE_RECORD = "outside"
# How much of a file is looked at for a NUL byte to call it binary (as git does).
BINARY_PROBE = 8000

# Codes of the per-line origin array besides a version's position (>= 0).
_CHANGED_SINCE = -2  # differs between the newest recorded version and the file now
_BEFORE = -3


class Run:
    """Consecutive lines (``start`` counts from 1) with the same origin."""

    __slots__ = ("count", "start", "status", "version")

    def __init__(self, start: int, count: int, version: Version | None, status: str) -> None:
        self.start = start
        self.count = count
        self.version = version  # None for lines before the record or changed since it
        self.status = status

    def __repr__(self) -> str:
        origin = self.version.id if self.version is not None else None
        return f"Run({self.start}, {self.count}, {origin}, {self.status})"


class Blame:
    """The file now (``lines``, without their line ends) and where each run of lines came
    from."""

    __slots__ = ("lines", "path", "runs", "versions")

    def __init__(
        self, path: bytes, lines: list[bytes], runs: list[Run], versions: list[Version]
    ) -> None:
        self.path = path
        self.lines = lines
        self.runs = runs
        self.versions = versions  # newest first, as file_versions gives them


def nothing_recorded_for(shown: str) -> str:
    """The refusal of a file rewind has no version of (``blame``, ``history``)."""
    return (
        f"nothing is recorded for {shown}; 'rewind log' lists the turns and the files each changed."
    )


def blame_file(
    store: Store, path: bytes, index: EntryIndex | None = None, allow_unrecorded: bool = False
) -> Blame:
    """The blame of ``path`` (a stored name) as it is on disk now.

    Raises a UserError when the file is missing, is not a regular file, is binary, or when rewind
    has recorded nothing for it (unless ``allow_unrecorded``: every line is then
    :data:`BEFORE_RECORD`). ``index``: an open index to reuse.
    """
    if index is None:
        with EntryIndex(store) as opened:
            return blame_file(store, path, opened, allow_unrecorded)
    shown = store.root.display(path)
    data = _read_text(store.root.absolute(path), shown)
    versions = file_versions(store, path, index, count_lines=False)
    if not versions and allow_unrecorded:
        lines = data.split(b"\n")
        if data.endswith(b"\n") or not data:
            lines.pop()
        return Blame(path, lines, [Run(1, len(lines), None, BEFORE_RECORD)] if lines else [], [])
    if not versions:
        raise UserError(nothing_recorded_for(shown))
    return blame_content(store, path, data, versions, index)


def blame_content(
    store: Store, path: bytes, data: bytes, versions: list[Version], index: EntryIndex
) -> Blame:
    """The blame of ``data`` as a content of ``path`` (the file on disk, or as a commit holds
    it), from the path's ``versions`` (newest first, as file_versions gives them)."""
    oldest_first = list(reversed(versions))
    origins = _origins(store, index, path, data, oldest_first)
    lines = data.split(b"\n")
    if data.endswith(b"\n") or not data:
        lines.pop()
    return Blame(path, lines, _runs(origins, oldest_first), versions)


def _read_text(absolute: bytes, shown: str) -> bytes:
    try:
        info = os.lstat(absolute)
    except FileNotFoundError:
        raise UserError(
            f"{shown} does not exist now; 'rewind history {shown}' lists its recorded versions."
        ) from None
    if stat.S_ISLNK(info.st_mode):
        raise UserError(f"{shown} is a symbolic link; blame the file it points to instead.")
    if not stat.S_ISREG(info.st_mode):
        raise UserError(f"{shown} is not a regular file; blame reads the lines of a text file.")
    with open(absolute, "rb") as handle:
        data = handle.read()
    if b"\0" in data[:BINARY_PROBE]:
        raise UserError(
            f"{shown} is a binary file; 'rewind history {shown}' lists its recorded versions."
        )
    return data


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


def _key(version: Version) -> str:
    return f"{version.id} {version.state.oid or version.state.kind}"


def _origins(
    store: Store, index: EntryIndex, path: bytes, now: bytes, oldest_first: list[Version]
) -> array[int]:
    """Per line of ``now``: the position in ``oldest_first`` of the version that brought it,
    or one of the codes above.

    The walk goes forwards, version after version; what it knows of the newest version is kept
    in the index, so that the next blame starts from there and diffs only what was recorded
    since (and the file now).
    """
    recorded = RecordedFingerprints()
    for version in oldest_first:
        recorded.note(version.state)
    differ = LineDiffer(store.git_dir, recorded)
    keys = [_key(version) for version in oldest_first]
    start, codes, previous = _cached(index, path, keys, oldest_first)
    put_back = _put_back_contents(oldest_first)
    if start and any(v.state.oid in put_back for v in oldest_first[:start]):
        start, codes, previous = 0, None, None  # a restore reaches back before the cache
    first_codes: dict[str, array[int]] = {}  # each content put back: its lines' first origins
    for position in range(start, len(oldest_first)):
        version = oldest_first[position]
        state = version.state
        if state.kind == ABSENT:
            codes, previous = array("i"), None
            continue
        if state.kind != FILE or state.oid is None:  # its content was not kept
            codes, previous = None, None
            continue
        if version.source in RESTORING and state.oid in first_codes:
            codes = array("i", first_codes[state.oid])  # the lines' authors, not the restore
        elif codes is None:  # nothing known before it: its lines predate what can be explained
            count = sum(hunk[3] for hunk in differ.hunks(None, state.oid))
            codes = array("i", [_BEFORE]) * count
        else:
            _splice(codes, differ.hunks(previous, state.oid), position)
        if state.oid in put_back and state.oid not in first_codes:
            first_codes[state.oid] = array("i", codes)
        previous = state.oid
    if codes is None:  # the newest version's content was not kept: nothing explains the file
        return array("i", [_CHANGED_SINCE]) * _line_count(now)
    if start < len(keys):
        _remember(store, index, path, keys, codes)
    codes = array("i", codes)
    _splice(codes, differ.hunks_to(previous, now), _CHANGED_SINCE)
    if len(codes) != _line_count(now):
        raise AssertionError(f"blame counted {len(codes)} lines for {_line_count(now)}")
    return codes


def _put_back_contents(oldest_first: list[Version]) -> set[str]:
    """The contents a restore, an undo or a redo wrote (those a version before may hold): the
    walk keeps the origins of only these, not of every version."""
    return {
        version.state.oid
        for version in oldest_first
        if version.source in RESTORING and version.state.oid is not None
    }


def _splice(codes: array[int], hunks: list[Hunk], code: int) -> None:
    """Replaces the lines each hunk removes by the lines it adds, marked ``code`` (bottom up, so
    that the positions of the hunks above stay right)."""
    for old_start, old_lines, _, new_lines in reversed(hunks):
        codes[old_start : old_start + old_lines] = array("i", [code]) * new_lines


def _cached(
    index: EntryIndex, path: bytes, keys: list[str], oldest_first: list[Version]
) -> tuple[int, array[int] | None, str | None]:
    """Where the walk can start: how many versions the index's blame of ``path`` covers (when
    they are the first of ``keys``), the codes of the newest of them and its blob."""
    found = index.blame(path)
    if found is None:
        return 0, None, None
    chain, packed = found
    covered = chain.count("\n") + 1
    if covered > len(keys) or "\n".join(keys[:covered]) != chain:
        return 0, None, None
    codes = array("i")
    codes.frombytes(packed)
    if any(code >= covered for code in set(codes)):
        return 0, None, None
    return covered, codes, oldest_first[covered - 1].state.oid


def _remember(
    store: Store, index: EntryIndex, path: bytes, keys: list[str], codes: array[int]
) -> None:
    try:
        index.remember_blame(path, "\n".join(keys), codes.tobytes())
    except Exception as error:  # only a cache: the next blame walks the whole history again
        store.log_problem(f"could not keep the blame of {path!r} in the index: {error}")


def _runs(origins: array[int], oldest_first: list[Version]) -> list[Run]:
    runs: list[Run] = []
    start = 0
    total = len(origins)
    while start < total:
        code = origins[start]
        end = start + 1
        while end < total and origins[end] == code:
            end += 1
        runs.append(_run(start + 1, end - start, code, oldest_first))
        start = end
    return runs


def _run(start: int, count: int, code: int, oldest_first: list[Version]) -> Run:
    if code == _CHANGED_SINCE:
        return Run(start, count, None, OUTSIDE_RECORD)
    if code < 0:
        return Run(start, count, None, BEFORE_RECORD)
    version = oldest_first[code]
    return Run(start, count, version, OUTSIDE_RECORD if version.source == OUTSIDE else RECORDED)
