"""Rebuilding the files one turn touched, as it left them (or as it found them), in a folder.

``rewind extract TURN DIR`` is for looking at a turn of any session, a fetched one included,
with one's own tools, without touching the work tree: every file the turn touched is written
below DIR (which must not exist yet, or be empty) with its recorded content and permission
bits; a symlink is written as a symlink (never followed); a path that did not exist is listed,
not written; a state without content (not shared, too large...) is listed with why.

The paths come from the session (hostile when fetched: rewind.history.restoring.safe_paths) and each
content is checked against its recorded size and fingerprint before it is written
(rewind.history.restoring.apply.verified_content). Files are created with ``O_EXCL | O_NOFOLLOW``
and folders one level at a time, each checked with ``lstat``: nothing is written outside DIR.
"""

from __future__ import annotations

import os
import stat

from rewind.errors import UserError
from rewind.history.entry import Entry
from rewind.history.filestate import ABSENT, FILE, LINK, UNKNOWN, FileState
from rewind.history.restoring.apply import ContentRefused, verified_content
from rewind.history.restoring.safe_paths import refuse_nested, refuse_unsafe, why_unsafe
from rewind.store.limits import make_folders, why_bad_link_target, why_unwritable
from rewind.store.repository import Store

_PERMISSIONS = 0o777


class Extracted:
    """What an extract wrote: per path, the state written, those absent, and those skipped."""

    __slots__ = ("absent", "directory", "skipped", "written")

    def __init__(self, directory: bytes) -> None:
        self.directory = directory
        self.written: list[tuple[bytes, FileState]] = []
        self.absent: list[bytes] = []
        self.skipped: list[tuple[bytes, str]] = []


def states_of(entry: Entry, after: bool, only: list[bytes] | None) -> dict[bytes, FileState]:
    """The states of the files ``entry`` touched, as it left them (``after``) or found them."""
    states = {
        change.path: (change.after if after else change.before) or FileState(UNKNOWN)
        for change in entry.files
    }
    if only is None:
        return states
    missing = [path for path in only if path not in states]
    if missing:
        raise UserError(
            f"{os.fsdecode(missing[0])} was not changed in {entry.kind} {entry.number}; "
            f"'rewind show {entry.number}' lists the files it changed."
        )
    return {path: states[path] for path in dict.fromkeys(only)}


def extract(
    reader: Store,
    entry: Entry,
    directory: bytes,
    after: bool = True,
    only: list[bytes] | None = None,
    trusted: bool = False,
) -> Extracted:
    """Writes the files of ``entry`` (read from ``reader``'s objects) below ``directory``."""
    if entry.is_open and after:
        raise UserError(
            f"{entry.kind} {entry.number} is still open, so what it leaves is not recorded yet; "
            "extract it with --before, or once it has ended."
        )
    where = f"{entry.kind} {entry.number} of session {entry.session}"
    if not trusted:
        refuse_unsafe((change.path for change in entry.files), where)
    states = states_of(entry, after, only)
    refuse_nested({path: state.kind in (FILE, LINK) for path, state in states.items()}, where)
    _prepare(directory)
    done = Extracted(directory)
    limit = reader.config.max_file_size
    for path in sorted(states):
        state = states[path]
        if why_unsafe(path):  # a trusted session's file outside the root (extra_roots)
            done.skipped.append((path, "it is outside the project root"))
        elif state.kind == ABSENT:
            done.absent.append(path)
        elif state.kind not in (FILE, LINK):
            done.skipped.append((path, f"its content was not recorded ({state.kind})"))
        else:
            try:
                data = verified_content(reader, state, limit)
            except ContentRefused as refused:
                done.skipped.append((path, str(refused)))
                continue
            unwritable = _why_unwritable(directory, path, state, data)
            if unwritable:
                done.skipped.append((path, f"this system cannot write it: {unwritable}"))
                continue
            _write(directory, path, state, data)
            done.written.append((path, state))
    return done


def _why_unwritable(directory: bytes, path: bytes, state: FileState, data: bytes) -> str:
    """Why this system cannot write ``state`` at ``path`` below ``directory`` ("" if it can)."""
    reason = why_unwritable(directory, path)
    if not reason and state.kind == LINK:
        reason = why_bad_link_target(data)
    return reason


def _prepare(directory: bytes) -> None:
    """Makes ``directory``, or checks that it is an empty folder (not a symlink to one)."""
    shown = os.fsdecode(directory)
    try:
        info = os.lstat(directory)
    except FileNotFoundError:
        make_folders(directory)
        return
    if not stat.S_ISDIR(info.st_mode):
        raise UserError(f"{shown} exists and is not a folder; give a new or empty folder.")
    if os.listdir(directory):
        raise UserError(f"{shown} is not empty; give a new or empty folder.")


def _write(directory: bytes, path: bytes, state: FileState, data: bytes) -> None:
    """Writes one file or symlink below ``directory``, making its folders one at a time and
    never going through anything but a real folder."""
    here = directory
    for name in path.split(b"/")[:-1]:
        here = os.path.join(here, name)
        try:
            os.mkdir(here)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(here).st_mode):
                raise UserError(
                    f"{os.fsdecode(path)} would be written through "
                    f"{os.fsdecode(here)}, which is not a folder; extract stopped."
                ) from None
    target = os.path.join(directory, path)
    if state.kind == LINK:
        os.symlink(data, target)
        return
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, state.mode & _PERMISSIONS)
    finally:
        os.close(fd)


__all__ = ["Extracted", "extract", "states_of"]
