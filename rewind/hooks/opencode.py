"""OpenCode (read from 1.18.33): rewind's plugin (hooks/opencode/rewind.js, installed by
``rewind install opencode``) runs ``rewind hook opencode`` with an event of its own making,
``{"event", "session_id", "cwd", "worktree", ...}``:

- ``chat.message``: a prompt (``prompt``, its text; ``message_id``, OpenCode's id of the user
  message, where a resume forks): a new turn. ``opencode run "a b"`` sends an argument holding a
  space in double quotes (``"a b"``); the turn is named without them.
- ``tool.execute.before`` and ``tool.execute.after`` (``tool_name``, ``tool_call_id``,
  ``tool_input``: the call's arguments): ``write`` and ``edit`` are recorded by ``filePath``,
  ``apply_patch`` by the files its ``patchText`` names, both relative to the session's
  directory ``cwd``; ``bash`` gets a quicksave, in its ``workdir`` when it names one, its
  before- and after-event paired by the call's id. OpenCode runs the calls of one model message
  at once, each awaiting its own before-event; a call that fails or that its permissions refuse
  has a before-event and no after-event (the turn's end records its files as they are).
- ``session.idle``: the run is over: the turn ends. OpenCode does not wait for this one when it
  exits: the plugin passes it as the command's argument to a child of its own, which may come
  after the next prompt's event; it names the user message of the prompt whose run ended
  (``message_id``), and ends no turn another prompt began.

A subagent's (the ``task`` tool's) calls come under the session of the person's prompt; its
task is no prompt of theirs and its end ends nothing (the plugin sends neither).

Kilo Code's CLI (built on OpenCode, read from 7.7.9) loads the same plugin, installed by
``rewind install kilo`` to run ``rewind hook kilo``: the same events, its turns the agent
``kilo``'s, with no cut point (its conversation is not resumed).
"""

from __future__ import annotations

import os

from rewind.history.session import load_head
from rewind.hooks.context import HookContext
from rewind.patches import patch_moves, patch_paths

FILE_TOOLS = frozenset({"write", "edit", "multiedit"})
PATCH_TOOLS = frozenset({"apply_patch", "patch"})
SHELL_TOOLS = frozenset({"bash"})


def handle(context: HookContext) -> None:
    event = context.text("event")
    directory = context.text("cwd")
    worktree = context.text("worktree")
    # Outside git, OpenCode's worktree is "/": no project's.
    projects = [worktree] if worktree and os.path.dirname(worktree) != worktree else []
    context.open_store(directory, projects, ["session_id"])
    session = context.session_id("session_id")
    if event == "chat.message":
        prompt = unquoted(context.text("prompt"))
        # Kilo Code (``rewind hook kilo``) runs this plugin too; its conversation is not cut.
        from rewind.hooks import conversation_cuts  # a prompt's only

        cut = conversation_cuts.opencode if context.agent == "opencode" else None
        context.start_turn(session, prompt, cut)
    elif event in ("tool.execute.before", "tool.execute.after"):
        _tool(context, session, directory, before=event == "tool.execute.before")
    elif event == "session.idle" and _ends_the_open_turn(context, session):
        context.end_turn(session)


def _ends_the_open_turn(context: HookContext, session: str) -> bool:
    """Whether the run that ended is the open turn's: not when the turn began at another user
    message than the one the end names (the next prompt's, which came first)."""
    assert context.store is not None
    message = context.text("message_id")
    entry = load_head(context.store, session).current
    if not message or entry is None or not entry.is_open:
        return True
    cut = entry.conversation
    began = cut.get("turn") if isinstance(cut, dict) else None
    return not isinstance(began, str) or not began or began == message


def unquoted(prompt: str) -> str:
    """The prompt as the person typed it: ``opencode run`` wraps each argument that holds a
    space in double quotes (its own quotes escaped), and joins the arguments with spaces; one
    such argument alone is given back without them."""
    if len(prompt) < 2 or prompt[0] != '"' or prompt[-1] != '"' or " " not in prompt:
        return prompt
    inner = prompt[1:-1]
    if inner.replace('\\"', "").count('"'):
        return prompt  # several arguments, or quotes of the person's own
    return inner.replace('\\"', '"')


def _tool(context: HookContext, session: str, directory: str, before: bool) -> None:
    tool = context.text("tool_name")
    tool_input = context.mapping("tool_input")
    if tool in FILE_TOOLS or tool in PATCH_TOOLS:
        if tool in PATCH_TOOLS:
            patch = _text(tool_input.get("patchText", tool_input.get("patch")))
            paths, moves = patch_paths(patch), patch_moves(patch)
        else:
            path = _text(tool_input.get("filePath"))
            paths, moves = [path] if path else [], {}
        names = context.stored_names(paths, directory)
        if before:
            context.before_change(
                session, names, moves=context.stored_moves(moves, directory, names)
            )
        elif names:
            context.after_change(session, names)
    elif tool in SHELL_TOOLS:
        call = context.text("tool_call_id")
        command = tool_input.get("command")
        if before and isinstance(command, str) and command:
            workdir = _text(tool_input.get("workdir"))
            where = os.path.join(directory, workdir) if workdir else directory
            context.before_shell(session, command, where, call)
        elif not before:
            context.after_shell(session, call)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
