"""Paths read from another session's entries, checked before anything is written at them.

A fetched session's entries say whatever the remote says: a path in them is hostile input.
``rewind apply`` and ``rewind extract`` (rewind.history.restoring.apply,
rewind.history.restoring.extract) write
only at paths that are relative, made of ordinary names (no empty name, ``.``, ``..``, NUL or
``.git`` component), and never below a path the same set of entries records as a file or a
symlink (writing ``link`` as a symlink then ``link/file`` would write through it). Parents that
already exist on disk are checked with ``lstat`` too: a symlink there is never written through.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from collections.abc import Iterable

from rewind.errors import UserError
from rewind.store.limits import NAME_MAX


def why_unsafe(path: bytes) -> str:
    """Why ``path`` must not be written below a root ("" when it may)."""
    if not path:
        return "it is empty"
    if b"\0" in path:
        return "it holds a NUL byte"
    if path.startswith(b"/"):
        return "it is absolute"
    for name in path.split(b"/"):
        if name in (b"", b"."):
            return "it has an empty component"
        if name == b"..":
            return "it holds '..'"
        if _is_git_dir_name(name):
            return "it is inside a .git directory (on some file system)"
        if len(name) > NAME_MAX:
            return f"a name in it is longer than {NAME_MAX} bytes"
    return ""


# Code points HFS+ ignores in names (git's is_hfs_dotgit): ".g\u200cit" is ".git" there.
_HFS_IGNORED = dict.fromkeys(
    [*range(0x200C, 0x2010), *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF]
)


def folded(name: bytes) -> str:
    """``name`` as a case-insensitive, normalising file system sees it (macOS, Windows)."""
    text = name.decode("utf-8", "surrogateescape").translate(_HFS_IGNORED)
    return unicodedata.normalize("NFC", text).casefold()


def _is_git_dir_name(name: bytes) -> bool:
    """Whether ``name`` is ``.git`` on some file system: HFS+ and NTFS fold case, HFS+ drops
    some code points, NTFS drops trailing dots and spaces, reads ``.git::$DATA`` as ``.git``
    and has the short name ``git~1``."""
    base = folded(name).split(":")[0].rstrip(". ")
    return base in (".git", "git~1")


def refuse_unsafe(paths: Iterable[bytes], where: str) -> None:
    """Refuses the whole command when any of ``paths`` (from ``where``) is unsafe."""
    for path in paths:
        reason = why_unsafe(path)
        if reason:
            raise UserError(
                f"{where} records the path {path!r}, which rewind never writes ({reason}); "
                "nothing was written: the session is damaged or hostile, so do not use it."
            )


def refuse_nested(paths: dict[bytes, bool], where: str) -> None:
    """Refuses the whole command when a path lies below another of ``paths`` that is written as
    a file or a symlink (``paths`` maps each path to whether it is written as one). Paths are
    compared folded (:func:`folded`): on macOS ``Link`` and ``link/file`` are nested too."""
    written = {_folded_path(path) for path, is_file in paths.items() if is_file}
    for path in paths:
        parent = os.path.dirname(path)
        while parent:
            if _folded_path(parent) in written:
                raise UserError(
                    f"{where} records {os.fsdecode(path)} below {os.fsdecode(parent)}, which it "
                    "records as a file or a symlink; nothing was written: writing both would "
                    "write through it."
                )
            parent = os.path.dirname(parent)


def _folded_path(path: bytes) -> str:
    return "/".join(folded(name) for name in path.split(b"/"))


def unsafe_parent(root: bytes, path: bytes) -> str:
    """Why writing ``path`` below ``root`` would go through something other than a folder ("",
    when every existing parent is a real folder, not a symlink): checked with ``lstat``."""
    parts = path.split(b"/")[:-1]
    here = root
    for name in parts:
        here = os.path.join(here, name)
        try:
            info = os.lstat(here)
        except FileNotFoundError:
            return ""  # what is below it does not exist either: it will be made as folders
        except OSError as error:
            return f"{os.fsdecode(os.path.relpath(here, root))} cannot be read ({error.strerror})"
        shown = os.fsdecode(os.path.relpath(here, root))
        if stat.S_ISLNK(info.st_mode):
            return f"its folder {shown} is a symlink, which rewind never writes through"
        if not stat.S_ISDIR(info.st_mode):
            return f"{shown} is not a folder"
    return ""
