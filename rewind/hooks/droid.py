"""Factory's Droid (read from 0.225.2): Claude Code's events and fields, around Droid's own tool
names, in ``hooks.json``.

``session_id`` is the session (``droid exec -s ID`` continues it under the same id); ``cwd``
and ``FACTORY_PROJECT_DIR`` find the project. ``Create`` and ``Edit`` are tracked by their
``file_path`` (absolute), ``ApplyPatch`` by the files its patch (``input``) names; ``Execute``
gets a quicksave in the project root. Droid sends no tool-call id: an ``Execute``'s PreToolUse
and PostToolUse are paired by the session, the tool's name and its input, oldest first
(HookContext.before_shell). A call that fails (an edit whose text is not in the file, a
command that exits non-zero) gets no PostToolUse: its files' after-states are recorded when
the turn ends.

``droid exec`` sends no UserPromptSubmit: a run's first tool call begins its turn (after an
entry of what changed outside rewind since the last one), named by the last prompt the
session's transcript (``transcript_path``) holds. Stop, which carries no reply, ends the turn
with the agent's last message from the transcript; a run that called no tool gets a turn of its
own there, closed at once, so that every prompt is in the log. Where Droid sends
UserPromptSubmit (its terminal UI), the prompt begins the turn. SessionStart starts the
project's watcher; SessionEnd, which ends every ``droid exec`` run, stops it and closes what is
still open.
"""

from __future__ import annotations

import os

from rewind.history.session import load_head
from rewind.hooks.claude_code import capture_on, start_watcher, stop_watcher
from rewind.hooks.context import HookContext
from rewind.hooks.droid_transcript import Exchange, last_exchange
from rewind.hooks.pending_shell_calls import pairing_key
from rewind.patches import patch_moves, patch_paths

EDIT_TOOLS = frozenset({"Create", "Edit"})
PATCH_TOOLS = frozenset({"ApplyPatch"})
SHELL_TOOLS = frozenset({"Execute"})


def handle(context: HookContext) -> None:
    event = context.text("hook_event_name")
    project = os.environ.get("FACTORY_PROJECT_DIR", "")
    directory = context.text("cwd") or project
    context.open_store(directory, [project], ["session_id"])
    session = context.session_id("session_id")
    if event == "SessionStart":
        start_watcher(context, session)
    elif event == "UserPromptSubmit":
        context.start_turn(session, context.text("prompt"))
        if not capture_on(context):  # a turn's start already keeps the watcher running
            start_watcher(context, session)
    elif event in ("PreToolUse", "PostToolUse"):
        before = event == "PreToolUse"
        if before and not context.has_open_turn(session):
            # The run's first tool call begins its turn: droid exec sends no prompt event.
            context.start_turn(session, _exchange(context).prompt, unless_open=True)
        _tool(context, session, directory, before)
    elif event == "Stop":
        _run_ends(context, session)
    elif event == "SessionEnd":
        stop_watcher(context, session)
        context.end_turn(session)


def _exchange(context: HookContext) -> Exchange:
    """The last prompt and reply of the session's transcript (none when it cannot be read)."""
    path = context.text("transcript_path")
    return last_exchange(path) if path else Exchange()


def _run_ends(context: HookContext, session: str) -> None:
    """Stop: the run of one prompt is over. The open turn is closed with the agent's last
    message; a run that began no turn gets one of its own, closed at once, unless the last turn
    began after the prompt was sent (its copy from a second install of the hooks, run before
    or at the same time, which begins and closes it)."""
    assert context.store is not None
    exchange = _exchange(context)
    entry = load_head(context.store, session).current
    if entry is not None and entry.is_open and not entry.is_outside_agent:
        context.end_turn(session, exchange.reply)
        return
    sent = exchange.sent
    if exchange.prompt and sent is not None and (entry is None or entry.started < sent):
        # Decided again under the store's lock: the other copy may be past this check.
        context.start_turn(session, exchange.prompt, unless_begun_since=sent)
        context.end_turn(session, exchange.reply)


def _tool(context: HookContext, session: str, directory: str, before: bool) -> None:
    tool = context.text("tool_name")
    tool_input = context.mapping("tool_input")
    if tool in EDIT_TOOLS or tool in PATCH_TOOLS:
        if tool in PATCH_TOOLS:
            patch = tool_input.get("input")
            patch = patch if isinstance(patch, str) else ""
            paths, moves = patch_paths(patch), patch_moves(patch)
        else:
            path = tool_input.get("file_path")
            paths, moves = [path] if isinstance(path, str) and path else [], {}
        names = context.stored_names(paths, directory)
        if before:
            context.before_change(
                session, names, moves=context.stored_moves(moves, directory, names)
            )
        elif names:
            context.after_change(session, names)
    elif tool in SHELL_TOOLS:
        pairing = pairing_key(session, tool, tool_input)
        command = tool_input.get("command")
        if before and isinstance(command, str):
            context.before_shell(session, command, directory, "", pairing=pairing)
        elif not before:
            context.after_shell(session, "", pairing)
