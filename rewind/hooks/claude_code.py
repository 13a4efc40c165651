"""Claude Code: SessionStart, UserPromptSubmit, Pre/PostToolUse, Stop, SessionEnd.

``session_id`` is the session; ``cwd`` and ``CLAUDE_PROJECT_DIR`` find the project.
Write, Edit, MultiEdit and NotebookEdit are tracked by their ``file_path``/``notebook_path``;
Bash and PowerShell commands get a quicksave of the files they may destroy (PowerShell read as
rewind.quicksave.powershell says). A failed tool call (PostToolUseFailure: ``error``, no
``tool_response``) gets its after-state at once, like a successful one. When a PostToolUse
reports the text from before the edit (``tool_response.originalFile``, ``type``) for a file no
PreToolUse recorded, what it says for certain becomes its pre-image. SessionStart and each
prompt start the project's watcher when none runs (rewind.watch.capture). The after-events
come posted to rewind's resident recorder (rewind.resident), which each event handled in a
process of its own starts when it does not run (rewind.hooks.answer_event). With
``capture_programs = false`` and ``watch_on_session_start`` in rewind.toml, the session's first
prompt starts ``rewind watch`` for the session alone, and SessionEnd stops it.
"""

from __future__ import annotations

import os

from rewind.history.filestate import UNKNOWN, FileState, absent_before_creation, from_content
from rewind.hooks.context import HookContext

EDIT_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
SHELL_TOOLS = frozenset({"Bash", "PowerShell"})
# Seconds SessionEnd waits for the watcher to record its last changes before closing the turn.
WATCH_STOP_WAIT = 5.0


def handle(context: HookContext) -> None:
    event = context.text("hook_event_name")
    project = os.environ.get("CLAUDE_PROJECT_DIR", "")
    directory = context.text("cwd") or project
    context.open_store(directory, [project], ["session_id"])
    session = context.session_id("session_id")
    if event == "SessionStart":
        start_watcher(context, session)
    elif event == "UserPromptSubmit":
        from rewind.hooks import conversation_cuts  # a prompt's only

        context.start_turn(session, context.text("prompt"), conversation_cuts.claude_code)
        if not capture_on(context):  # a turn's start already keeps the watcher running
            start_watcher(context, session)
    elif event == "PreToolUse":
        _before_tool(context, session, directory)
    elif event in ("PostToolUse", "PostToolUseFailure"):
        _after_tool(context, session, directory)
    elif event == "Stop":
        context.end_turn(session, context.text("last_assistant_message"))
    elif event == "SessionEnd":
        stop_watcher(context, session)
        context.end_turn(session)


def capture_on(context: HookContext) -> bool:
    from rewind.watch import capture

    assert context.store is not None
    return capture.enabled(context.store)


def start_watcher(context: HookContext, session: str) -> None:
    """The project's watcher (rewind.watch.capture); with capture off but
    ``watch_on_session_start = true`` in rewind.toml, ``rewind watch`` for this session alone
    (spawned, not waited for; one watcher per project)."""
    assert context.store is not None
    from rewind.watch import capture

    if capture.enabled(context.store):
        context.session_starts()
        return
    if not context.store.config.watch_on_session_start:
        return
    from rewind.watch.pidfile import is_running, spawn

    if not is_running(context.store):
        spawn(context.store, session)


def stop_watcher(context: HookContext, session: str) -> None:
    """Stops the watcher this session started (its last changes are recorded first)."""
    assert context.store is not None
    from rewind.watch.pidfile import running_info, stop

    info = running_info(context.store)
    if info is not None and info.get("session") == session:
        stop(context.store, wait=WATCH_STOP_WAIT)


def _before_tool(context: HookContext, session: str, directory: str) -> None:
    tool = context.text("tool_name")
    tool_input = context.mapping("tool_input")
    if tool in EDIT_TOOLS:
        names = context.stored_names(_paths(tool_input, EDIT_TOOLS[tool]), directory)
        context.before_change(session, names)
    elif tool in SHELL_TOOLS:
        command = tool_input.get("command")
        if isinstance(command, str):
            call = context.text("tool_use_id")
            powershell = tool == "PowerShell"
            context.before_shell(session, command, directory, call, powershell=powershell)


def _after_tool(context: HookContext, session: str, directory: str) -> None:
    tool = context.text("tool_name")
    if tool in SHELL_TOOLS:
        context.after_shell(session, context.text("tool_use_id"))
        return
    if tool not in EDIT_TOOLS:
        return
    names = context.stored_names(_paths(context.mapping("tool_input"), EDIT_TOOLS[tool]), directory)
    candidates = {name: _reported_original(context, tool, name) for name in names}
    context.after_change(session, names, candidates)


def _reported_original(context: HookContext, tool: str, name: bytes) -> FileState:
    """The state before the edit as the tool's response tells it, for a file no PreToolUse
    recorded (a PreToolUse record, when there is one, wins). Only what is certain is used:

    - Write says ``type: "create"`` for a new file, ``"update"`` with ``originalFile`` for an
      overwrite; its ``originalFile`` is null too when the old text was too large to send, so a
      null alone never means "the file did not exist".
    - Edit has no ``type``; a non-empty ``originalFile`` is the old text, but ``""`` is sent both
      for an empty file and for a file the edit created, so it tells nothing.
    Anything else is "no pre-image", which ``rewind log`` shows: never a guessed absence.
    """
    assert context.store is not None
    response = context.mapping("tool_response")
    kind, original = response.get("type"), response.get("originalFile")
    absolute = context.store.root.absolute(name)
    if tool == "Write" and kind == "create":
        return absent_before_creation(absolute, context.store.root.path)
    certain_text = isinstance(original, str) and (
        (tool == "Write" and kind == "update") or (tool != "Write" and original != "")
    )
    if certain_text:
        assert isinstance(original, str)
        mode = os.lstat(absolute).st_mode & 0o7777 if os.path.lexists(absolute) else 0o644
        return from_content(original.encode("utf-8", "surrogateescape"), mode, context.store.writer)
    return FileState(UNKNOWN)


def _paths(tool_input: dict[str, object], key: str) -> list[str]:
    value = tool_input.get(key)
    return [value] if isinstance(value, str) and value else []
