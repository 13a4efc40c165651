"""Windsurf (Cascade hooks): pre_user_prompt (a new turn), pre/post_write_code (the file in
``tool_info.file_path``), pre/post_run_command (quicksave of ``tool_info.command_line``, run in
``tool_info.cwd``), post_cascade_response (the turn ends). ``trajectory_id`` is the session.

The shapes are those of Windsurf's documentation (docs.windsurf.com/windsurf/cascade/hooks):
there is no client package to read them from. The events name no project directory but for
commands: the hook runs in the workspace root (Windsurf's default ``working_directory``), which
is where the project is looked for. A post_write_code with no pre_write_code before it (hooks
installed in the middle of a conversation) rebuilds the file's earlier text from the reported
``edits``, as for Cursor. Windsurf shows a hook's output only with ``show_output``; a pre-hook
that exits 2 blocks the action: this one always exits 0 and prints nothing.
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

TURN_START = "pre_user_prompt"
TURN_END = "post_cascade_response"
WRITES = frozenset({"pre_write_code", "post_write_code"})
COMMANDS = frozenset({"pre_run_command", "post_run_command"})


def handle(context: HookContext) -> None:
    event = context.text("agent_action_name")
    if event not in WRITES | COMMANDS | {TURN_START, TURN_END}:
        return
    info = context.mapping("tool_info")
    here = os.getcwd()
    path = _text(info.get("file_path"))
    directory = _text(info.get("cwd")) or (os.path.dirname(path) if os.path.isabs(path) else here)
    if not os.path.isdir(directory):
        directory = here
    context.open_store(directory, [here], ["trajectory_id"])
    session = context.session_id("trajectory_id")
    if event == TURN_START:
        context.start_turn(session, _text(info.get("user_prompt")))
    elif event in WRITES:
        names = context.stored_names([path] if path else [], here)
        if event == "pre_write_code":
            context.before_change(session, names)
        elif names:
            _after_write(context, session, names[0], info.get("edits"))
    elif event in COMMANDS:
        command = _text(info.get("command_line"))
        # Windsurf gives no call id (execution_id names the whole turn): the command and its
        # directory pair the two events.
        call = "windsurf-" + sha1_hex((command + "\0" + directory).encode("utf-8", "replace"))
        if event == "pre_run_command" and command:
            context.before_shell(session, command, directory, call)
        elif event == "post_run_command":
            context.after_shell(session, call)
    else:
        context.end_turn(session)


def _after_write(context: HookContext, session: str, name: bytes, edits: object) -> None:
    """The after-state; for a file no pre_write_code recorded, first its state before the edit,
    rebuilt from ``edits`` (Cursor's afterFileEdit has the same shape)."""
    if not context.is_tracked(session, name):
        known = {name: _state_before(context, session, name, edits)}
        context.before_change(session, [name], known=known)
    context.after_change(session, [name])


def _state_before(context: HookContext, session: str, name: bytes, edits: object) -> FileState:
    """The text before ``edits`` when undoing them on the current text is certain (Cursor's
    rule), else the last state this session recorded, else no pre-image."""
    from rewind.hooks.cursor import undo_edits

    assert context.store is not None
    absolute = context.store.root.absolute(name)
    pairs = [
        (edit["old_string"], edit["new_string"])
        for edit in (edits if isinstance(edits, list) else [])
        if isinstance(edit, dict)
        and isinstance(edit.get("old_string"), str)
        and isinstance(edit.get("new_string"), str)
    ]
    try:
        fd = os.open(absolute, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with open(fd, "rb") as handle:
            info = os.fstat(fd)
            current = handle.read().decode("utf-8") if stat.S_ISREG(info.st_mode) else None
    except (OSError, UnicodeDecodeError):
        current = None
    if current is not None and pairs:
        rebuilt = undo_edits(current, pairs)
        if rebuilt == "" and pairs[0][0] == "":  # the edit created the file
            return absent_before_creation(absolute, context.store.root.path)
        if rebuilt is not None:
            mode = stat.S_IMODE(info.st_mode)
            return from_content(rebuilt.encode("utf-8"), mode, context.store.writer)
    last = context.last_recorded(session, name)
    if last is not None and last.kind in (FILE, ABSENT):
        return last
    context.log(f"{context.store.root.display(name)}: no state from before the edit could be had")
    return FileState(UNKNOWN)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
