"""OpenAI Codex CLI: hooks (UserPromptSubmit, Pre/PostToolUse, Stop, SessionEnd)
and the legacy ``notify`` program, which receives one JSON argument at the end of each turn.

As Codex 0.171.0 sends them: file edits go through ``apply_patch`` (``tool_input: {"command":
PATCH}``), whose raw patch names every file it adds, updates, deletes or moves (both ends of a
move): all are recorded before the patch applies. Every shell tool is reported as ``Bash`` with
``tool_input: {"command": "<command line>"}`` and gets a quicksave of the files the command may
destroy, read in the session's ``cwd`` (the tool's own ``workdir`` is not sent). A patch sent
through the shell (``apply_patch <<'PATCH' ...``, which Codex intercepts and applies itself,
sending only the PreToolUse) is read by the quicksave from its here-document. SessionEnd
(``reason``) closes a turn left open. Older shapes (an argv ``command``, ``workdir``, the
native tool names) are still read.
"""

from __future__ import annotations

from rewind.hooks.context import HookContext
from rewind.patches import patch_moves, patch_paths

PATCH_TOOLS = frozenset({"apply_patch", "Edit", "Write"})
SHELL_TOOLS = frozenset({"shell", "Bash", "local_shell", "exec_command", "container.exec"})
SESSION_KEYS = ("session_id", "thread_id", "conversation_id")


def handle(context: HookContext) -> None:
    if context.text("type") == "agent-turn-complete":
        _notify(context)
        return
    event = context.text("hook_event_name")
    directory = context.text("cwd")
    context.open_store(directory, (), SESSION_KEYS)
    session = context.session_id(*SESSION_KEYS)
    if event == "UserPromptSubmit":
        from rewind.hooks import conversation_cuts  # a prompt's only

        context.start_turn(session, context.text("prompt"), conversation_cuts.codex)
    elif event in ("PreToolUse", "PostToolUse"):
        _tool(context, session, directory, before=event == "PreToolUse")
    elif event == "Stop":
        context.end_turn(session, context.text("last_assistant_message"))
    elif event == "SessionEnd":
        from rewind.watch.capture import SESSION_END_TIMEOUT

        context.end_turn(session, barrier=SESSION_END_TIMEOUT)  # Codex gives it 3 s at most


def _tool(context: HookContext, session: str, directory: str, before: bool) -> None:
    tool = context.text("tool_name")
    tool_input = context.mapping("tool_input")
    call = context.text("tool_use_id", "call_id")
    if tool in PATCH_TOOLS:
        patch = _patch_text(tool_input)
        names = context.stored_names(patch_paths(patch), directory)
        if before:
            moves = context.stored_moves(patch_moves(patch), directory, names)
            context.before_change(session, names, moves=moves)
        elif names:
            context.after_change(session, names)
    elif tool in SHELL_TOOLS:
        command = shell_command(tool_input.get("command", tool_input.get("cmd")))
        workdir = tool_input.get("workdir")
        where = workdir if isinstance(workdir, str) and workdir else directory
        if before and command:
            context.before_shell(session, command, where, call)
        elif not before:
            context.after_shell(session, call)


def _patch_text(tool_input: dict[str, object]) -> str:
    for key in ("command", "input", "patch"):
        value = tool_input.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list):  # ["apply_patch", "<patch>"]
            texts = [part for part in value if isinstance(part, str) and "*** " in part]
            if texts:
                return texts[-1]
    return ""


def shell_command(value: object) -> str:
    """The command line of a shell tool call: a string, or an argv such as
    ``["bash", "-lc", "rm -rf build"]``."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list) or not all(isinstance(part, str) for part in value):
        return ""
    if (
        len(value) == 3
        and value[1] in ("-c", "-lc")
        and value[0].rsplit("/", 1)[-1]
        in (
            "bash",
            "sh",
            "zsh",
            "dash",
        )
    ):
        return str(value[2])
    import shlex

    return shlex.join(str(part) for part in value)


def _notify(context: HookContext) -> None:
    """Legacy notify: a turn ended. Without hooks nothing was tracked, but the turn (its prompt)
    is still recorded, so the session's timeline is complete."""
    context.open_store(context.text("cwd"))
    session = context.session_id("thread-id", "thread_id")
    messages = context.payload.get("input-messages")
    prompt = (
        "\n".join(m for m in messages if isinstance(m, str)) if isinstance(messages, list) else ""
    )
    assert context.store is not None
    if not context.has_open_turn(session):
        context.start_turn(session, prompt)
    context.end_turn(session)
