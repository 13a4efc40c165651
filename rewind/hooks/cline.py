"""Cline (the CLI, from @cline/core, and the VS Code extension): one hook file per event, each
running ``rewind hook cline`` with the event's JSON on standard input.

The two send the same fields under different names: the CLI 3.0.65 (core 0.0.86) names the
event by its internal name in ``hookName`` (``prompt_submit``, ``tool_call``, ``tool_result``,
``agent_start``, ``agent_end``, ...) and adds ``tool_call``/``tool_result`` ``{id, name,
input}``; the extension names it by its file (``UserPromptSubmit``, ``PreToolUse``, ...) and
sends only ``preToolUse``/``postToolUse`` ``{toolName, parameters}`` with every parameter value
a string.

The session is the CLI's ``sessionContext.rootSessionId``: its session's id, which stays the
same when the session is resumed in a new process (an editor's ACP ``session/load``), while
``taskId`` (the agent's conversation, ``conv_...``) is new in every process. Without it
(the extension, whose ``taskId`` is the task's own, or a payload that carries none),
``taskId``. A subagent (``parent_agent_id``) shares its parent's session: its edits go into the
parent's turn; its task is no prompt of the person's, and its run's end closes nothing (the
parent's does).

A prompt starts a turn (the extension's TaskStart carries the first one as ``initialTask``; the
UserPromptSubmit of that same prompt then adds no second turn); TaskComplete, TaskCancel,
TaskError and SessionShutdown end it. The CLI 3.0.65 runs no UserPromptSubmit for a prompt the
person sends, and its TaskStart carries none: its turns begin at a run's first tool call, and
the prompt is read at the turn's end from Cline's own session file. File tools (the CLI's
``editor`` and ``apply_patch``, the extension's ``write_to_file``, ``replace_in_file`` and
``apply_patch``) are recorded before they run; shell tools (``bash``, ``run_commands``,
``execute_command``) get a quicksave. Cline reads a hook's standard output as control JSON: this
adapter prints nothing.
"""

from __future__ import annotations

import os

from rewind.history.session import load_head
from rewind.hooks.context import HookContext
from rewind.patches import patch_moves, patch_paths
from rewind.store.digest import sha1_hex
from rewind.store.fastjson import load_object
from rewind.store.input_limits import SESSION_FILE_BYTES, read_at_most

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
    from_cli = context.payload.get("hookName") in EVENTS  # the CLI sends internal names
    if not event or event in ("TaskResume", "PreCompact"):
        return  # nothing to record: a resumed task's next tool call starts a turn if needed
    if _subagent(context.payload) and event not in ("PreToolUse", "PostToolUse"):
        return  # its start, its task (a prompt of the agent's) and its end: the parent's turn
    roots = context.payload.get("workspaceRoots")
    workspaces = [r for r in roots if isinstance(r, str) and r] if isinstance(roots, list) else []
    directory = workspaces[0] if workspaces else ""
    found = session_of(context.payload)
    context.open_store(directory, workspaces, session=found)
    session = context.session_id(given=found)
    if event == "UserPromptSubmit":
        _prompt(context, session, _text(context.mapping("userPromptSubmit").get("prompt")))
    elif event == "TaskStart":
        metadata = context.mapping("taskStart").get("taskMetadata")
        prompt = _text(metadata.get("initialTask")) if isinstance(metadata, dict) else ""
        if prompt:  # the CLI sends none: its run's first tool call begins the turn
            _prompt(context, session, prompt)
    elif event in ("PreToolUse", "PostToolUse"):
        if from_cli and event == "PreToolUse" and not context.has_open_turn(session):
            # The run's first tool call begins its turn, after an entry of what changed
            # outside rewind since the last one (the CLI sends no prompt to begin it).
            context.start_turn(session, "", unless_open=True)
        _tool(context, session, directory, before=event == "PreToolUse")
    elif event in TURN_ENDS and from_cli:
        _run_ends(context, session)
    elif event in TURN_ENDS:
        context.end_turn(session)


def session_of(payload: dict[str, object]) -> str:
    """The session an event belongs to: ``sessionContext.rootSessionId``, which survives a
    resume in a new process, else ``taskId`` ("" when there is neither)."""
    context = payload.get("sessionContext")
    root = context.get("rootSessionId") if isinstance(context, dict) else None
    if isinstance(root, str) and root:
        return root
    task = payload.get("taskId")
    return task if isinstance(task, str) else ""


def _subagent(payload: dict[str, object]) -> bool:
    """Whether the event is a subagent's (one an agent of the session started)."""
    parent = payload.get("parent_agent_id")
    return isinstance(parent, str) and bool(parent)


def _prompt(context: HookContext, session: str, prompt: str) -> None:
    """Starts a turn, unless the open turn is this very prompt with nothing recorded yet (the
    extension's TaskStart and UserPromptSubmit of a task's first prompt), or a turn with no
    prompt and nothing recorded yet, which it names."""
    assert context.store is not None
    entry = load_head(context.store, session).current
    if entry is not None and entry.is_open and not entry.files:
        if entry.prompt == prompt:
            return
        if not entry.prompt:
            context.name_turn(session, entry.id, prompt)
            return
    context.start_turn(session, prompt)


def _run_ends(context: HookContext, session: str) -> None:
    """The CLI's TaskComplete, TaskError, TaskCancel or SessionShutdown: the run of one prompt
    is over. The open turn (begun by the run's first tool call) is named with the prompt
    sent last before it began, and closed; a run that began no turn gets one of its own,
    closed at once, so that every prompt is in the log. Cline runs this hook without waiting
    for it, but the next prompt's tools only after the person sends it: the open turn is this
    run's.

    Without Cline's session file (another data directory than the hook can find), the turn is
    closed without a name."""
    assert context.store is not None
    prompts = sent_prompts(context.payload)
    if not prompts:
        context.end_turn(session)
        return
    entry = load_head(context.store, session).current
    if entry is not None and entry.is_open and not entry.is_outside_agent:
        if not entry.prompt:
            began = _last_sent(prompts, entry.started) or prompts[-1]
            context.name_turn(session, entry.id, began[1])
        context.end_turn(session)
        return
    ours = _last_sent(prompts, _sent_at(context.payload))
    if ours is not None and (entry is None or entry.started < ours[0]):
        context.start_turn(session, ours[1])
        context.end_turn(session)


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


# Cline's own record of a session: the messages of ``<sessions>/<id>/<id>.messages.json``.
SESSION_ID_CHARACTERS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."
)
PROMPT_OPEN, PROMPT_CLOSE = "<user_input", "</user_input>"


def sent_prompts(payload: dict[str, object]) -> list[tuple[float, str]]:
    """The prompts the person sent in the CLI's session, oldest first, each with the time
    (seconds) Cline stamped on it, as its session file holds them ([] when it cannot be read).

    The session is the payload's ``sessionContext.rootSessionId``; its directory
    ``$CLINE_SESSION_DATA_DIR``, else ``$CLINE_DATA_DIR/sessions``, else
    ``${CLINE_DIR:-~/.cline}/data/sessions`` (the hook runs with Cline's environment). Cline
    wraps a prompt as ``<user_input mode="act">TEXT</user_input>``; user messages without it
    (tool results, notices) are not prompts. A file over SESSION_FILE_BYTES
    (rewind.store.input_limits) is not read (the turn keeps no name): memory stays bounded
    whatever the session's length; Cline does not wait for the hook that reads it."""
    context = payload.get("sessionContext")
    root = context.get("rootSessionId") if isinstance(context, dict) else None
    if not isinstance(root, str) or not _plain_name(root):
        return []
    path = os.path.join(_sessions_directory(), root, f"{root}.messages.json")
    try:
        data = read_at_most(path, SESSION_FILE_BYTES, "a session file")
        messages = load_object(data.decode("utf-8")).get("messages")
    except (OSError, ValueError):
        return []
    found = []
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        stamp, prompt = message.get("ts"), _prompt_of(message.get("content"))
        if isinstance(stamp, (int, float)) and prompt:
            found.append((stamp / 1000, prompt))
    return found


def _sessions_directory() -> str:
    configured = os.environ.get("CLINE_SESSION_DATA_DIR", "").strip()
    if configured:
        return configured
    data = os.environ.get("CLINE_DATA_DIR", "").strip()
    if not data:
        home = os.environ.get("CLINE_DIR", "").strip() or os.path.expanduser("~/.cline")
        data = os.path.join(home, "data")
    return os.path.join(data, "sessions")


def _plain_name(name: str) -> bool:
    """Whether ``name`` is one file name that leads nowhere else (no separator, not ``..``)."""
    return bool(name) and not name.startswith(".") and set(name) <= SESSION_ID_CHARACTERS


def _prompt_of(content: object) -> str:
    """The person's words in a user message's content (a string, or a list of parts)."""
    parts = [content] if isinstance(content, str) else content
    for part in parts if isinstance(parts, list) else []:
        text = part.get("text") if isinstance(part, dict) else part
        if not isinstance(text, str):
            continue
        start = text.find(PROMPT_OPEN)
        opened, end = text.find(">", start) if start >= 0 else -1, text.rfind(PROMPT_CLOSE)
        if 0 <= opened < end:
            return text[opened + 1 : end].strip()
    return ""


def _last_sent(prompts: list[tuple[float, str]], when: float | None) -> tuple[float, str] | None:
    """The last of ``prompts`` sent at or before ``when`` (any time: None)."""
    found = None
    for prompt in prompts:
        if when is None or prompt[0] <= when:
            found = prompt
    return found


def _sent_at(payload: dict[str, object]) -> float | None:
    """When Cline sent the event (its ``timestamp``, ISO 8601), in seconds."""
    stamp = payload.get("timestamp")
    if not isinstance(stamp, str) or not stamp:
        return None
    from datetime import datetime

    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return when.timestamp() if when.tzinfo is not None else None
