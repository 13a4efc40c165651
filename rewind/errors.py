"""The errors rewind reports to people, and the exit codes that go with them."""

from __future__ import annotations

import errno
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


class ExitCode:
    """The process's exit codes (plain ints: importing enum costs the hook path ~3 ms)."""

    OK = 0
    USER_ERROR = 1
    INCOMPLETE = 2  # a restore or undo was done, but some files could not be brought back
    CRASH = 3
    INTERRUPTED = 130


class UserError(Exception):
    """A mistake the person can fix: printed as one sentence that says what to do next."""

    exit_code = ExitCode.USER_ERROR


class ConflictError(UserError):
    """A restore would overwrite work rewind has not seen: nothing was changed."""


class StoreError(UserError):
    """The store is damaged or unreadable."""


class MissingObject(StoreError):
    """An object the history names is in none of the store's loose files or packs."""


class DamagedEntry(StoreError):
    """An entry whose record cannot be read; its commit, and so its parent, still can.
    ``check`` is the command that lists every damaged entry of its store (a remote's, for a
    fetched session)."""

    def __init__(
        self, commit: str, parent: str | None, reason: str, check: str = "rewind check"
    ) -> None:
        super().__init__(
            f"the entry recorded in commit {commit[:12]} is damaged ({reason}); "
            f"'{check}' lists every damaged entry."
        )
        self.commit = commit
        self.parent = parent
        self.reason = reason


# OSErrors the environment causes, as what went wrong and what to do; {path} is the file.
_AGAIN = "then run the command again"
_FULL = f"free some space (or raise the quota), {_AGAIN}"
_ADVICE = {
    errno.ENOSPC: ("the disk is full (writing {path})", _FULL),
    errno.EDQUOT: ("the disk quota is exhausted (writing {path})", _FULL),
    errno.EFBIG: (
        "a file grew past the file size limit (writing {path})",
        f"raise the limit ('ulimit -f') or record smaller files, {_AGAIN}",
    ),
    errno.EACCES: (
        "permission denied for {path}",
        f"check its permissions and those of its directory, {_AGAIN}",
    ),
    errno.EPERM: (
        "operation not permitted on {path}",
        f"check its permissions and owner, {_AGAIN}",
    ),
    errno.EROFS: ("{path} is on a read-only file system", f"make it writable, {_AGAIN}"),
}


def environment_problem(error: OSError) -> str | None:
    """One sentence for an OSError the person can fix (a full disk, permissions, a file where
    a directory should be); None for the others, which are bugs."""
    path = error.filename if isinstance(error.filename, str | bytes) else None
    if error.errno in (errno.ENOTDIR, errno.EEXIST):
        blocking = _file_in_the_way(path)
        if blocking is None:
            return None
        return (
            f"{blocking} is a file where rewind needs a directory; move it out of the way "
            f"(or set REWIND_HOME elsewhere if it is in rewind's home), {_AGAIN}."
        )
    found = _ADVICE.get(error.errno or 0)
    if found is None:
        return None
    what, advice = found
    shown = os.fsdecode(path) if path is not None else "a file"
    what = what.replace(" (writing {path})", "" if path is None else " (writing {path})")
    return f"{what.format(path=shown)}; {advice}."


def _file_in_the_way(path: str | bytes | None) -> str | None:
    """The deepest existing part of ``path`` that is not a directory, if there is one."""
    if path is None:
        return None
    current = os.path.abspath(os.fsdecode(path))
    while True:
        if os.path.lexists(current):
            return None if os.path.isdir(current) else current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'X'?"`` for the choice closest to a mistyped ``word`` (as git
    suggests a command), or '' when none is close."""
    from difflib import get_close_matches  # only on the way to an error

    close = get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
