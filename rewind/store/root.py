"""The project root, and the rule that nothing outside it is ever recorded or written.

Paths are stored relative to the root as bytes. A path in one of the opted-in extra roots is
stored absolute (it starts with ``/``). Any path with a ``.git`` component is refused: the
user's repository is never recorded, so it is never written either.
"""

from __future__ import annotations

import os

from rewind.errors import UserError
from rewind.store.limits import NAME_MAX, why_unwritable

GIT_DIR_NAME = b".git"


def find_root(start: bytes) -> bytes:
    """The top of the enclosing git work tree (as ``git rev-parse`` finds it), else ``start``."""
    here = os.path.realpath(start)
    directory = here
    while True:
        if os.path.lexists(os.path.join(directory, GIT_DIR_NAME)):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return here
        directory = parent


def is_inside(path: bytes, directory: bytes) -> bool:
    """Whether ``path`` is ``directory`` or below it (both absolute and normalised)."""
    return path == directory or path.startswith(directory.rstrip(b"/") + b"/")


class Root:
    __slots__ = ("extra_roots", "path")

    def __init__(self, path: bytes, extra_roots: tuple[bytes, ...] = ()) -> None:
        self.path = path
        self.extra_roots = extra_roots

    def display(self, stored: bytes) -> str:
        """A printable form: bytes that are not UTF-8 are shown as ``\\xNN`` escapes, which any
        output encoding can carry (a lone surrogate from ``fsdecode`` cannot be printed)."""
        return stored.decode("utf-8", "backslashreplace")

    def absolute(self, stored: bytes) -> bytes:
        return stored if stored.startswith(b"/") else os.path.join(self.path, stored)

    def stored_name(self, path: str | bytes, cwd: bytes | None = None) -> bytes:
        """The name under which ``path`` is recorded; refuses paths rewind must not touch."""
        try:
            raw = os.fsencode(path)
        except UnicodeEncodeError:  # a lone surrogate an agent's JSON can carry
            raise UserError(f"{path!r} is not a file name: it is not valid Unicode.") from None
        shown = os.fsdecode(raw)
        if not raw:
            raise UserError("an empty path was given; name the file to record.")
        if b"\0" in raw:
            raise UserError(f"{shown!r} is not a file name: it holds a NUL byte.")
        absolute = os.path.normpath(os.path.join(cwd or os.getcwdb(), raw))
        parent, name = os.path.split(absolute)
        full = os.path.join(os.path.realpath(parent), name) if name else parent
        if is_inside(full, self.path):
            stored = os.path.relpath(full, self.path)
            if stored == b".":
                raise UserError(f"{shown} is the project root; name the files in it instead.")
        elif any(is_inside(full, extra) for extra in self.extra_roots):
            stored = full
        else:
            raise UserError(
                f"{shown} is outside the project root {os.fsdecode(self.path)}; "
                "add its directory to extra_roots in rewind.toml to record it."
            )
        if GIT_DIR_NAME in stored.split(b"/"):
            raise UserError(f"{shown} is inside a .git directory, which rewind never touches.")
        if any(len(part) > NAME_MAX for part in stored.split(b"/")):
            raise UserError(
                f"{shown[:60]}... has a name longer than file systems allow ({NAME_MAX} bytes), "
                "so no such file can exist; check the path."
            )
        too_long = why_unwritable(self.path, stored)
        if too_long:
            raise UserError(
                f"{shown[:60]}... cannot be recorded: {too_long}, so rewind could never write "
                "it back; keep such files at a shorter path."
            )
        return stored

    def writable_path(self, stored: bytes) -> bytes:
        """The absolute path to write ``stored`` to, checked again at write time
        (:meth:`why_not_writable`); :class:`NotWritableHere` when it may not be written."""
        reason = self.why_not_writable(stored)
        if reason:
            raise NotWritableHere(f"{os.fsdecode(stored)} {reason}; it was not written.")
        return self.absolute(stored)

    def why_not_writable(self, stored: bytes) -> str:
        """Why rewind may not write ``stored`` now ("" when it may): a path inside a ``.git``
        directory, or one whose nearest existing parent resolves outside the project or into
        a ``.git`` directory (a directory replaced by a symlink since the path was recorded).
        Nothing is read through such a parent either."""
        if GIT_DIR_NAME in stored.split(b"/"):
            return "is inside a .git directory"
        parent = os.path.dirname(self.absolute(stored))
        while not os.path.lexists(parent):
            parent = os.path.dirname(parent)
        real = os.path.realpath(parent)
        allowed = (self.path, *self.extra_roots) if stored.startswith(b"/") else (self.path,)
        inside = [directory for directory in allowed if is_inside(real, directory)]
        if not inside:
            return f"now resolves outside the project root (through {os.fsdecode(parent)})"
        if GIT_DIR_NAME in os.path.relpath(real, inside[0]).split(b"/"):
            return f"now resolves into a .git directory (through {os.fsdecode(parent)})"
        return ""


class NotWritableHere(UserError):
    """A path rewind may never write as things are (see :meth:`Root.why_not_writable`): no
    later try can succeed while the link or the ``.git`` directory is there."""
