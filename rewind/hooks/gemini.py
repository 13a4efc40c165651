"""Gemini CLI: BeforeAgent (a prompt: a new turn), BeforeTool/AfterTool for ``write_file`` and
``replace`` (tracked by ``file_path``) and ``run_shell_command`` (quicksave), AfterAgent and
SessionEnd (the turn ends). Gemini wants JSON or nothing on standard output: nothing."""

from __future__ import annotations

import os

from rewind.hooks.context import HookContext

EDIT_TOOLS = frozenset({"write_file", "replace"})
SHELL_TOOLS = frozenset({"run_shell_command"})


def handle(context: HookContext) -> None:
    event = context.text("hook_event_name")
    project = os.environ.get("GEMINI_PROJECT_DIR", "")
    directory = context.text("cwd") or project
    context.open_store(directory, [project], ["session_id"])
    session = context.session_id("session_id")
    if event == "BeforeAgent":
        context.start_turn(session, context.text("prompt", "user_prompt"))
    elif event in ("BeforeTool", "AfterTool"):
        _tool(context, session, directory, before=event == "BeforeTool")
    elif event in ("AfterAgent", "SessionEnd"):
        context.end_turn(session)


def _tool(context: HookContext, session: str, directory: str, before: bool) -> None:
    tool = context.text("tool_name")
    tool_input = context.mapping("tool_input")
    call = context.text("tool_call_id", "call_id", "tool_use_id")
    if tool in EDIT_TOOLS:
        path = tool_input.get("file_path", tool_input.get("absolute_path"))
        names = context.stored_names([path] if isinstance(path, str) and path else [], directory)
        if before:
            context.before_change(session, names)
        elif names:
            context.after_change(session, names)
    elif tool in SHELL_TOOLS:
        command = tool_input.get("command")
        where = tool_input.get("directory")
        workdir = os.path.join(directory, where) if isinstance(where, str) and where else directory
        if before and isinstance(command, str):
            context.before_shell(session, command, workdir, call)
        elif not before:
            context.after_shell(session, call)
