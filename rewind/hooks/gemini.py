"""Gemini CLI (read from 0.61.0): BeforeAgent (a prompt: a new turn), BeforeTool/AfterTool for
``write_file`` and ``replace`` (tracked by ``file_path``, relative to the project root ``cwd``)
and ``run_shell_command`` (quicksave, in ``dir_path``: relative to ``cwd``, or absolute),
AfterAgent and SessionEnd (the turn ends).

Gemini sends no tool-call id, and runs shell calls in parallel: a BeforeTool and its AfterTool
are paired by the session, the tool's name and its input, oldest first
(HookContext.before_shell). Gemini reads
standard output, and standard error when that is empty, as the hook's answer: the hook prints
nothing on either."""

from __future__ import annotations

import os

from rewind.hooks.context import HookContext
from rewind.hooks.pending_shell_calls import pairing_key

EDIT_TOOLS = frozenset({"write_file", "replace"})
SHELL_TOOLS = frozenset({"run_shell_command"})


def handle(context: HookContext) -> None:
    event = context.text("hook_event_name")
    project = os.environ.get("GEMINI_PROJECT_DIR", "")
    directory = context.text("cwd") or project
    context.open_store(directory, [project], ["session_id"])
    session = context.session_id("session_id")
    if event == "BeforeAgent":
        from rewind.hooks import conversation_cuts  # a prompt's only

        context.start_turn(session, context.text("prompt", "user_prompt"), conversation_cuts.gemini)
    elif event in ("BeforeTool", "AfterTool"):
        _tool(context, session, directory, before=event == "BeforeTool")
    elif event == "AfterAgent":
        context.end_turn(session, context.text("prompt_response"))
    elif event == "SessionEnd":
        context.end_turn(session)


def _tool(context: HookContext, session: str, directory: str, before: bool) -> None:
    tool = context.text("tool_name")
    tool_input = context.mapping("tool_input")
    if tool in EDIT_TOOLS:
        path = tool_input.get("file_path", tool_input.get("absolute_path"))
        names = context.stored_names([path] if isinstance(path, str) and path else [], directory)
        if before:
            context.before_change(session, names)
        elif names:
            context.after_change(session, names)
    elif tool in SHELL_TOOLS:
        call = context.text("tool_call_id", "call_id", "tool_use_id")  # none in 0.61.0
        pairing = "" if call else pairing_key(session, tool, tool_input)
        command = tool_input.get("command")
        if before and isinstance(command, str):
            workdir = _shell_directory(tool_input, directory)
            context.before_shell(session, command, workdir, call, pairing=pairing)
        elif not before:
            context.after_shell(session, call, pairing)


def _shell_directory(tool_input: dict[str, object], directory: str) -> str:
    """Where the command runs: ``dir_path`` against the project root (``directory`` older
    versions sent), else the project root."""
    for key in ("dir_path", "directory"):
        where = tool_input.get(key)
        if isinstance(where, str) and where:
            return os.path.join(directory, where)
    return directory
