"""Cline (the CLI, from @cline/core, and the VS Code extension): one hook file per event, each
running ``rewind hook cline`` with the event's JSON on standard input.

The two send the same fields under different names: the CLI 3.0.65 (core 0.0.86) names the
event by its internal name in ``hookName`` (``prompt_submit``, ``tool_call``, ``tool_result``,
``agent_start``, ``agent_end``, ...) and adds ``tool_call``/``tool_result`` ``{id, name,
input}``; the extension names it by its file (``UserPromptSubmit``, ``PreToolUse``, ...) and
sends only ``preToolUse``/``postToolUse`` ``{toolName, parameters}`` with every parameter value
a string. ``taskId`` is the session.

A prompt starts a turn (the extension's TaskStart carries the first one as ``initialTask``; the
UserPromptSubmit of that same prompt then adds no second turn); TaskComplete, TaskCancel,
TaskError and SessionShutdown end it. File tools (the CLI's ``editor`` and ``apply_patch``, the
extension's ``write_to_file``, ``replace_in_file`` and ``apply_patch``) are recorded before
they run; shell tools (``bash``, ``run_commands``, ``execute_command``) get a quicksave. Cline
reads a hook's standard output as control JSON: this adapter prints nothing.
"""

from __future__ import annotations

from rewind.history.session import load_head
from rewind.hooks.context import HookContext
from rewind.patches import patch_moves, patch_paths
from rewind.store.digest import sha1_hex
from rewind.store.fastjson import load_object

# hookName as the CLI sends it (internal names) and as the extension does (file names).
EVENTS = {
    "prompt_submit": "UserPromptSubmit",
    "agent_start": "TaskStart",
    "agent_resume": "TaskResume",
    "tool_call": "PreToolUse",
    "tool_result": "PostToolUse",
    "agent_end": "TaskComplete",
    "agent_abort": "TaskCancel",
    "agent_error": "TaskError",
    "session_shutdown": "SessionShutdown",
}
TURN_ENDS = frozenset({"TaskComplete", "TaskCancel", "TaskError", "SessionShutdown"})
# File tools and the parameter naming their file.
EDIT_TOOLS = {"editor": "path", "write_to_file": "path", "replace_in_file": "path"}
PATCH_TOOLS = frozenset({"apply_patch"})
SHELL_TOOLS = frozenset({"bash", "run_commands", "execute_command"})


def event_name(payload: dict[str, object]) -> str:
    """The event as its hook file is named ("" when the payload names none Cline has)."""
    name = payload.get("hookName")
    if not isinstance(name, str):
        return ""
    return EVENTS.get(name, name if name in EVENTS.values() or name == "PreCompact" else "")


def handle(context: HookContext) -> None:
    event = event_name(context.payload)
    if not event or event in ("TaskResume", "PreCompact"):
        return  # nothing to record: a resumed task's next tool call starts a turn if needed
    roots = context.payload.get("workspaceRoots")
    workspaces = [r for r in roots if isinstance(r, str) and r] if isinstance(roots, list) else []
    directory = workspaces[0] if workspaces else ""
    context.open_store(directory, workspaces, ["taskId"])
    session = context.session_id("taskId")
    if event == "UserPromptSubmit":
        _prompt(context, session, _text(context.mapping("userPromptSubmit").get("prompt")))
    elif event == "TaskStart":
        metadata = context.mapping("taskStart").get("taskMetadata")
        prompt = _text(metadata.get("initialTask")) if isinstance(metadata, dict) else ""
        if prompt:  # the CLI sends none: its UserPromptSubmit starts the turn
            _prompt(context, session, prompt)
    elif event in ("PreToolUse", "PostToolUse"):
        _tool(context, session, directory, before=event == "PreToolUse")
    elif event in TURN_ENDS:
        context.end_turn(session)


def _prompt(context: HookContext, session: str, prompt: str) -> None:
    """Starts a turn, unless the open turn is this very prompt with nothing recorded yet (the
    extension's TaskStart and UserPromptSubmit of a task's first prompt)."""
    assert context.store is not None
    entry = load_head(context.store, session).current
    if entry is not None and entry.is_open and not entry.files and entry.prompt == prompt:
        return
    context.start_turn(session, prompt)


def _tool(context: HookContext, session: str, directory: str, before: bool) -> None:
    call, tool, tool_input = _call(context, before)
    if tool in EDIT_TOOLS or tool in PATCH_TOOLS:
        patch = _text(tool_input.get("input", tool_input.get("patch")))
        if tool in PATCH_TOOLS:
            paths, moves = patch_paths(patch), patch_moves(patch)
        else:
            path = _text(tool_input.get(EDIT_TOOLS[tool]))
            paths, moves = [path] if path else [], {}
        names = context.stored_names(paths, directory)
        if before:
            context.before_change(
                session, names, moves=context.stored_moves(moves, directory, names)
            )
        elif names:
            context.after_change(session, names)
    elif tool in SHELL_TOOLS:
        commands = _commands(tool, tool_input)
        if not call:  # the extension gives no call id: the commands pair the two events
            call = "cline-" + sha1_hex("\0".join([directory, *commands]).encode("utf-8", "replace"))
        for index, command in enumerate(commands):
            part = f"{call}-{index}" if len(commands) > 1 else call
            if before:
                context.before_shell(session, command, directory, part)
            else:
                context.after_shell(session, part)


def _call(context: HookContext, before: bool) -> tuple[str, str, dict[str, object]]:
    """The call id, tool name and input: the CLI's ``tool_call``/``tool_result`` (input as
    given), else the extension's ``preToolUse``/``postToolUse`` (values as strings)."""
    call = context.mapping("tool_call" if before else "tool_result")
    name, tool_input = call.get("name"), call.get("input")
    if isinstance(name, str) and name:
        return _text(call.get("id")), name, tool_input if isinstance(tool_input, dict) else {}
    summary = context.mapping("preToolUse" if before else "postToolUse")
    parameters = summary.get("parameters")
    return "", _text(summary.get("toolName")), parameters if isinstance(parameters, dict) else {}


def _commands(tool: str, tool_input: dict[str, object]) -> list[str]:
    """The command lines of a shell tool call. ``run_commands`` takes ``commands`` (strings or
    ``{command, args}``), or one ``command``/``cmd``; the extension sends lists as JSON text."""
    value = tool_input.get("commands") if tool == "run_commands" else None
    if value is None:
        value = tool_input.get("command", tool_input.get("cmd"))
    if isinstance(value, str) and tool == "run_commands" and value.lstrip().startswith("["):
        try:
            value = load_object('{"v": ' + value + "}").get("v")
        except ValueError:
            pass
    items = value if isinstance(value, list) else [value]
    commands = []
    for item in items:
        if isinstance(item, dict):
            program, arguments = item.get("command", item.get("cmd")), item.get("args")
            words = [program, *arguments] if isinstance(arguments, list) else [program]
            if all(isinstance(word, str) for word in words) and program:
                commands.append(" ".join(_quoted(str(word)) for word in words))
        elif isinstance(item, str) and item.strip():
            commands.append(item)
    return commands


SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")


def _quoted(word: str) -> str:
    """``word`` as one shell word (shlex.quote without importing shlex, which loads re)."""
    if word and all(c in SAFE for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
