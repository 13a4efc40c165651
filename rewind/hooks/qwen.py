"""Qwen Code (read from 0.24.4): Claude Code's events, with Gemini CLI's tool names.

``session_id`` is the session; ``cwd`` and ``QWEN_PROJECT_DIR`` find the project. ``write_file``
and ``edit`` are tracked by their ``file_path`` (absolute), ``notebook_edit`` by its
``notebook_path``; ``run_shell_command`` gets a quicksave in its ``directory`` (else the project
root), its PreToolUse and its PostToolUse (or PostToolUseFailure: a command that exits non-zero
is a failed call) paired by ``tool_use_id``. Stop ends the turn with the agent's last message;
SessionEnd, which an interactive session sends when it ends, ends it too.

UserPromptSubmit comes before every request to the model, not only the person's: after a
tool's results it comes again, with the same ``prompt_id`` and an empty ``prompt``. The person's
prompt is the one that carries ``submitted_prompt`` (a prompt typed in the terminal, or the
first of a ``-p`` run), or, when Qwen leaves that field out (it does for input it cannot vouch
for, such as text typed in its Vim mode), the first one with a prompt while the session has no
open turn.
"""

from __future__ import annotations

import os

from rewind.hooks.claude_code import capture_on, start_watcher, stop_watcher
from rewind.hooks.context import HookContext

EDIT_TOOLS = {"write_file": "file_path", "edit": "file_path", "notebook_edit": "notebook_path"}
SHELL_TOOLS = frozenset({"run_shell_command"})


def handle(context: HookContext) -> None:
    event = context.text("hook_event_name")
    project = os.environ.get("QWEN_PROJECT_DIR", "")
    directory = context.text("cwd") or project
    context.open_store(directory, [project], ["session_id"])
    session = context.session_id("session_id")
    if event == "SessionStart":
        start_watcher(context, session)
    elif event == "UserPromptSubmit":
        _prompt(context, session)
    elif event == "PreToolUse":
        _tool(context, session, directory, before=True)
    elif event in ("PostToolUse", "PostToolUseFailure"):
        _tool(context, session, directory, before=False)
    elif event == "Stop":
        context.end_turn(session, context.text("last_assistant_message"))
    elif event == "SessionEnd":
        stop_watcher(context, session)
        context.end_turn(session)


def _prompt(context: HookContext, session: str) -> None:
    """A turn begins with the person's prompt; a request that sends a tool's results back
    continues the open turn."""
    if "submitted_prompt" in context.payload:
        context.start_turn(session, context.text("submitted_prompt", "prompt"))
    elif context.text("prompt") and not context.has_open_turn(session):
        context.start_turn(session, context.text("prompt"), unless_open=True)
    else:
        return
    if not capture_on(context):  # a turn's start already keeps the watcher running
        start_watcher(context, session)


def _tool(context: HookContext, session: str, directory: str, before: bool) -> None:
    tool = context.text("tool_name")
    tool_input = context.mapping("tool_input")
    if tool in EDIT_TOOLS:
        path = tool_input.get(EDIT_TOOLS[tool])
        names = context.stored_names([path] if isinstance(path, str) and path else [], directory)
        if before:
            context.before_change(session, names)
        elif names:
            context.after_change(session, names)
    elif tool in SHELL_TOOLS:
        call = context.text("tool_use_id", "tool_call_id")
        command = tool_input.get("command")
        if before and isinstance(command, str):
            where = tool_input.get("directory")
            workdir = os.path.join(directory, where) if isinstance(where, str) else directory
            context.before_shell(session, command, workdir, call)
        elif not before:
            context.after_shell(session, call)
