"""A file rewind's install writes whole and uninstall deletes (Gemini CLI's policy file of
rewind's MCP tools): its first line names rewind, so a file of that name someone else wrote is
never overwritten or deleted. What install created (the directories above it) is on record
(:mod:`rewind.installers.record`, part ``owned``) for uninstall."""

from __future__ import annotations

import os

from rewind.errors import UserError
from rewind.installers import Change, record
from rewind.installers.settings_file import delete_created, missing_directories
from rewind.store.atomic import replace_file

PART = "owned"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise UserError(f"{path} could not be read ({reason}); fix it and run again.") from None


def _ours(text: str, wanted: str) -> bool:
    return text.split("\n", 1)[0] == wanted.split("\n", 1)[0]


def refuse_foreign(path: str, wanted: str) -> None:
    """Raises the user error install would: a file of that name that is not rewind's."""
    found = _read(path)
    if found is not None and not _ours(found, wanted):
        raise UserError(f"{path} is not rewind's; rename it, then run the command again.")


def _written(path: str) -> str | None:
    """What install last wrote to the file, as recorded."""
    made = record.load_part(path, PART) or {}
    written = made.get("written")
    return written if isinstance(written, str) else None


def install(path: str, wanted: str) -> Change:
    """Writes ``wanted`` (whose first line names rewind) to ``path``; a file someone edited
    since rewind wrote it is kept as it is."""
    refuse_foreign(path, wanted)
    found = _read(path)
    if found == wanted:
        return Change(path)
    made = record.load_part(path, PART) or {}
    if found is not None and found != _written(path):
        return Change(path, notes=[f"kept {path} as it is: it was edited since rewind wrote it"])
    created = missing_directories(os.path.dirname(os.path.abspath(path)))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    replace_file(os.fsencode(path), wanted.encode("utf-8"), 0o644)
    directories = made.get("created_directories") if found is not None else created
    record.save_part(path, PART, {"created_directories": directories, "written": wanted})
    if found is None:
        return Change(path, created=True, items=[("added", os.path.basename(path))])
    return Change(path, items=[("updated", os.path.basename(path))])


def uninstall(path: str, wanted: str) -> Change:
    """Deletes the file when it is as rewind wrote it, and the directories install created
    for it; one edited since is left, and said so."""
    found = _read(path)
    written = _written(path)
    if found is None or not _ours(found, wanted):
        record.forget_part(path, PART)
        return Change(path)
    if found not in (written, wanted):
        return Change(path, notes=[f"left {path}: it was edited since rewind wrote it"])
    made = record.load_part(path, PART) or {}
    delete_created(path, made.get("created_directories"))
    record.forget_part(path, PART)
    return Change(path, items=[("deleted", path)])


def present(path: str, wanted: str) -> bool:
    """Whether the file is there as install writes it."""
    try:
        return _read(path) == wanted
    except UserError:
        return False
