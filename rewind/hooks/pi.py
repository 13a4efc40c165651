"""Pi (read from 0.73.1): rewind's extension (``hooks/pi/rewind.js``, installed by ``rewind
install pi``) sends rewind's own small events, each with Pi's ``session_id``, its
``session_file`` and ``cwd``: ``session_start`` (the project's watcher starts), ``prompt``
(``before_agent_start``: a new turn, with ``leaf_id``, the entry of Pi's session tree the
prompt follows), ``tool_call``/``tool_result`` for ``write`` and ``edit`` (tracked by ``path``,
relative to ``cwd``; Pi strips a leading ``@`` and expands ``~``) and ``bash`` (quicksave, in
``cwd``), and ``agent_end``/``session_shutdown`` (the turn ends). Pi waits for every one of
them, and runs the tools of one message only once each call's ``tool_call`` is done."""

from __future__ import annotations

import os

from rewind.hooks.context import HookContext

EDIT_TOOLS = frozenset({"write", "edit"})
SHELL_TOOLS = frozenset({"bash"})


def handle(context: HookContext) -> None:
    event = context.text("event")
    directory = context.text("cwd")
    context.open_store(directory, [directory] if directory else [], ["session_id"])
    session = context.session_id("session_id")
    if event == "session_start":
        context.session_starts()
    elif event == "prompt":
        from rewind.hooks import conversation_cuts  # a prompt's only

        context.start_turn(session, context.text("prompt"), conversation_cuts.pi)
    elif event in ("tool_call", "tool_result"):
        _tool(context, session, directory, before=event == "tool_call")
    elif event in ("agent_end", "session_shutdown"):
        context.end_turn(session)


def _tool(context: HookContext, session: str, directory: str, before: bool) -> None:
    tool = context.text("tool_name")
    tool_input = context.mapping("tool_input")
    if tool in EDIT_TOOLS:
        path = tool_input.get("path", tool_input.get("file_path"))
        paths = [pi_path(path)] if isinstance(path, str) and path else []
        names = context.stored_names(paths, directory)
        if before:
            context.before_change(session, names)
        elif names:
            context.after_change(session, names)
    elif tool in SHELL_TOOLS:
        call = context.text("tool_call_id")
        command = tool_input.get("command")
        if before and isinstance(command, str):
            context.before_shell(session, command, directory, call)
        elif not before:
            context.after_shell(session, call)


# The spaces Pi's tools read as a plain space in a path (path-utils.js, UNICODE_SPACES).
UNICODE_SPACES = dict.fromkeys([0xA0, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000], " ")


def pi_path(path: str) -> str:
    """The path as Pi's tools resolve it (``expandPath``): a leading ``@`` dropped, Unicode
    spaces made plain ones, ``~`` expanded; a relative one is the caller's to join with
    ``cwd``."""
    path = path.removeprefix("@").translate(UNICODE_SPACES)
    if path == "~" or path.startswith("~/"):
        path = os.path.expanduser("~") + path[1:]
    return path
