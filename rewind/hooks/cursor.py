"""Cursor: beforeSubmitPrompt (a new turn; ``conversation_id`` is the session), preToolUse and
postToolUse/postToolUseFailure of its ``Write`` and ``Delete`` tools, afterFileEdit,
before/afterShellExecution (quicksave), stop.

``preToolUse`` (cursor.com/docs/hooks.md, Cursor versions with tool hooks) comes before the
tool runs: the file is recorded as it is, an exact pre-image, and a file the ``Delete`` tool
removes is recorded too. ``postToolUse`` records the after-state.

``afterFileEdit`` comes after every edit, with or without tool hooks. When the edit's file is
already recorded in the open turn (by ``preToolUse``, or an earlier edit), only its after-state
is taken. Otherwise (a Cursor without tool hooks) the file's state before the edit is rebuilt by
undoing the reported ``edits`` on the current text, last edit first, and kept only if applying
them again gives the current text back. Failing that, the last state rewind recorded for the
file is used; failing that too, the file is recorded as having no pre-image (``rewind log``
says so, and a restore cannot bring its earlier content back). A rebuilt pre-image never
replaces an exact one: the first record of a path in a turn wins (rewind.history.journal).
"""

from __future__ import annotations

import os
import stat

from rewind.history.filestate import (
    ABSENT,
    FILE,
    UNKNOWN,
    FileState,
    absent_before_creation,
    from_content,
)
from rewind.hooks.context import HookContext
from rewind.store.digest import sha1_hex
from rewind.store.fastjson import load_object


def handle(context: HookContext) -> None:
    event = context.text("hook_event_name")
    roots = context.payload.get("workspace_roots")
    workspaces = (
        [root for root in roots if isinstance(root, str)] if isinstance(roots, list) else []
    )
    directory = context.text("cwd") or (workspaces[0] if workspaces else "")
    context.open_store(directory, workspaces, ["conversation_id"])
    session = context.session_id("conversation_id")
    if event == "beforeSubmitPrompt":
        context.start_turn(session, context.text("prompt"))
    elif event == "preToolUse":
        names = _tool_paths(context, directory)
        if names:
            context.before_change(session, names)
    elif event in ("postToolUse", "postToolUseFailure"):
        names = _tool_paths(context, directory)
        if names:
            context.after_change(session, names)
    elif event == "afterFileEdit":
        _after_file_edit(context, session, directory)
    elif event in ("beforeShellExecution", "afterShellExecution"):
        command = context.text("command")
        # Cursor gives no call id: the command and its directory pair the two events.
        call = "cursor-" + sha1_hex((command + "\0" + directory).encode("utf-8", "replace"))
        if event == "beforeShellExecution":
            context.before_shell(session, command, directory, call)
        else:
            context.after_shell(session, call)
    elif event == "stop":
        context.end_turn(session)


# Cursor's tools that write or delete files (the matcher rewind installs), and the keys of
# ``tool_input`` that may name the file: the documented ``file_path`` first, then the spellings
# public integrations have met for ``Delete``. Shell commands come through
# before/afterShellExecution, which Cursor sends with or without tool hooks.
FILE_TOOLS = frozenset({"Write", "Delete"})
PATH_KEYS = ("file_path", "path", "target_file", "target_path")


def _tool_paths(context: HookContext, directory: str) -> list[bytes]:
    """The recorded name of the file a Write or Delete tool call is about (none for others)."""
    if context.text("tool_name") not in FILE_TOOLS:
        return []
    tool_input = _tool_input(context.payload.get("tool_input"))
    for key in PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return context.stored_names([value], directory)
    context.log(f"{context.text('tool_name')}: no file path in the tool's input; not recorded")
    return []


def _tool_input(value: object) -> dict[str, object]:
    """``tool_input`` as an object (Cursor sends some tools' input as a JSON string)."""
    if isinstance(value, str):
        try:
            value = load_object(value)
        except (ValueError, RecursionError):
            return {}
    return value if isinstance(value, dict) else {}


def _after_file_edit(context: HookContext, session: str, directory: str) -> None:
    path = context.text("file_path")
    names = context.stored_names([path] if path else [], directory)
    if not names:
        return
    name = names[0]
    if not context.is_tracked(session, name):
        context.before_change(session, [name], known={name: _state_before(context, session, name)})
    context.after_change(session, [name])


def _state_before(context: HookContext, session: str, name: bytes) -> FileState:
    assert context.store is not None
    absolute = context.store.root.absolute(name)
    edits = _edits(context.payload.get("edits"))
    try:
        current, mode = _regular_text(absolute)
    except (OSError, UnicodeDecodeError):
        current, mode = None, 0o644
    if current is not None and edits:
        rebuilt = undo_edits(current, edits)
        if rebuilt is not None:
            if rebuilt == "" and edits[0][0] == "":  # the edit created the file
                return absent_before_creation(absolute, context.store.root.path)
            return from_content(rebuilt.encode("utf-8"), mode, context.store.writer)
    last = context.last_recorded(session, name)
    if last is not None and last.kind in (FILE, ABSENT):
        return last
    context.log(f"{context.store.root.display(name)}: no state from before the edit could be had")
    return FileState(UNKNOWN)


def _regular_text(path: bytes) -> tuple[str | None, int]:
    """The text of ``path`` and its mode; no text unless it is a regular file. Opened without
    blocking and checked before reading: a FIFO would hang the hook, a device never end."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, 0o644
        return handle.read().decode("utf-8"), info.st_mode & 0o7777


def _edits(value: object) -> list[tuple[str, str]]:
    edits = []
    if isinstance(value, list):
        for edit in value:
            if isinstance(edit, dict):
                old, new = edit.get("old_string"), edit.get("new_string")
                if isinstance(old, str) and isinstance(new, str):
                    edits.append((old, new))
    return edits


def undo_edits(current: str, edits: list[tuple[str, str]]) -> str | None:
    """The text before ``edits`` (each replaced ``old`` by ``new`` once; an empty ``old`` wrote a
    new file), or None when that cannot be known for sure: a replacement text found other than
    exactly once, or a result that does not give ``current`` back when the edits are redone."""
    text = current
    for old, new in reversed(edits):
        if not new or text.count(new) != 1:
            return None
        text = text.replace(new, old, 1)
    redone = text
    for old, new in edits:
        if not old:
            if redone:
                return None
            redone = new
        elif old in redone:
            redone = redone.replace(old, new, 1)
        else:
            return None
    return text if redone == current else None
