"""GitHub Copilot CLI and the Copilot coding agent: camelCase hooks (read from client 1.0.102).

- ``userPromptSubmitted`` starts a turn with its ``prompt``;
- ``preToolUse`` records what a tool is about to change: ``create``, ``edit`` and
  ``str_replace`` by their ``path``, ``str_replace_editor`` by its ``path`` unless its
  ``command`` is ``view``, ``apply_patch`` by every path of its patch (the raw patch text, or
  its ``input``/``patch`` argument), and for ``bash``/``powershell`` (``command``) and
  ``write_bash``/``write_powershell`` (``input``, text sent to a running shell) a quicksave of
  the files the command may destroy;
- ``postToolUse`` and ``postToolUseFailure`` record the after-states;
- ``agentStop`` and ``sessionEnd`` close the turn (in ``-p`` mode sessionEnd comes once per
  turn); ``errorOccurred`` is written to the log; ``sessionStart`` only opens the store.

A camelCase payload does not name its event: rewind's hooks file names it in the hook's
environment (``REWIND_COPILOT_EVENT``); without it the event is told from the fields the payload
has (``toolResult``: postToolUse, ``error`` with a ``toolName``: postToolUseFailure, ...).
``toolArgs`` is an object or a JSON string (a freeform tool's raw text when it is not JSON).
The session is ``sessionId``; a payload without one gets ``copilot-`` and 12 hex digits of the
SHA-1 of the project root's path, the same for every event of that project. The camelCase
payloads carry no tool-call id either: a shell command's pre- and post-events are paired by
the session, the tool and its arguments. Copilot denies a tool call when a preToolUse hook
fails, so everything here ends in the log, never in an exit status or on standard output.
"""

from __future__ import annotations

import os

from rewind.history.entry import valid_text
from rewind.hooks.context import HookContext
from rewind.patches import patch_moves, patch_paths
from rewind.store.digest import sha1_hex
from rewind.store.fastjson import dumps, load_list, load_object

EVENT_VARIABLE = "REWIND_COPILOT_EVENT"
EDIT_TOOLS = frozenset({"create", "edit", "str_replace"})
EDITOR_TOOL = "str_replace_editor"
PATCH_TOOL = "apply_patch"
# Each shell tool and the argument holding the text its shell runs.
SHELL_TOOLS = {
    "bash": "command",
    "powershell": "command",
    "write_bash": "input",
    "write_powershell": "input",
}
AFTER_TOOL = frozenset({"postToolUse", "postToolUseFailure"})
TURN_ENDS = frozenset({"agentStop", "sessionEnd"})
# How much of Copilot's error message the log keeps.
LOGGED_ERROR_LENGTH = 300


def handle(context: HookContext) -> None:
    event = os.environ.get(EVENT_VARIABLE, "") or event_of(context.payload)
    if not event and context.text("hook_event_name"):
        context.log(
            "a PascalCase (Claude-format) event was sent to 'rewind hook copilot', which reads "
            "camelCase events; run 'rewind install copilot' to write them"
        )
        return
    # The stats and the log name the event (a camelCase payload does not carry it).
    context.payload.setdefault("hook_event_name", event or "?")
    project = os.environ.get("COPILOT_PROJECT_DIR", "")
    directory = context.text("cwd", "workingDirectory") or project
    context.open_store(directory, [project], ["sessionId"])
    session = _session(context)
    if event == "userPromptSubmitted":
        from rewind.hooks import conversation_cuts  # a prompt's only

        context.start_turn(session, context.text("prompt"), conversation_cuts.copilot)
    elif event == "preToolUse" or event in AFTER_TOOL:
        _tool(context, session, directory, before=event == "preToolUse")
    elif event in TURN_ENDS:
        context.end_turn(session)
    elif event == "errorOccurred":
        _log_error(context)
    elif event not in ("sessionStart", "userPromptTransformed", "subagentStop", "subagentStart"):
        context.log(f"copilot: event {event!r} is not one rewind handles; ignored")


def event_of(payload: dict[str, object]) -> str:
    """The camelCase event a payload is, told from its fields (for hooks that do not name it)."""
    if "toolName" in payload:
        if "toolResult" in payload:
            return "postToolUse"
        return "postToolUseFailure" if "error" in payload else "preToolUse"
    if "errorContext" in payload or isinstance(payload.get("error"), dict):
        return "errorOccurred"
    if "prompt" in payload:
        return "userPromptTransformed" if "transformedPrompt" in payload else "userPromptSubmitted"
    if "agentName" in payload:
        return "subagentStop" if "stopReason" in payload else "subagentStart"
    if "stopReason" in payload:
        return "agentStop"
    if "reason" in payload:
        return "sessionEnd"
    if "source" in payload:
        return "sessionStart"
    return ""


def _session(context: HookContext) -> str:
    """``sessionId``; without one, an id derived from the project root (stable across events)."""
    found = valid_text(context.text("sessionId"))
    if found:
        return found
    assert context.store is not None
    return "copilot-" + sha1_hex(context.store.root.path)[:12]


def _tool(context: HookContext, session: str, directory: str, before: bool) -> None:
    tool = context.text("toolName")
    arguments, raw = tool_arguments(context.payload.get("toolArgs"))
    if tool in EDIT_TOOLS or (tool == EDITOR_TOOL and arguments.get("command") != "view"):
        path = arguments.get("path")
        names = context.stored_names([path] if isinstance(path, str) and path else [], directory)
        _change(context, session, names, before)
    elif tool == PATCH_TOOL:
        patch = raw or _text(arguments, "input") or _text(arguments, "patch")
        names = context.stored_names(patch_paths(patch), directory)
        moves = context.stored_moves(patch_moves(patch), directory, names) if before else None
        _change(context, session, names, before, moves)
    elif tool in SHELL_TOOLS:
        call = _call_key(session, tool, context.payload.get("toolArgs"))
        command = _text(arguments, SHELL_TOOLS[tool]) or raw
        if before and command:
            context.before_shell(session, command, directory, call)
        elif not before:
            context.after_shell(session, call)


def _change(
    context: HookContext,
    session: str,
    names: list[bytes],
    before: bool,
    moves: dict[bytes, bytes] | None = None,
) -> None:
    if before:
        context.before_change(session, names, moves=moves)
    elif names:
        context.after_change(session, names)


def tool_arguments(value: object) -> tuple[dict[str, object], str]:
    """``toolArgs`` as an object, and as raw text when it is a string that is not a JSON
    object (a freeform tool's input, such as an ``apply_patch`` patch)."""
    if isinstance(value, dict):
        return value, ""
    if not isinstance(value, str):
        return {}, ""
    start = value.lstrip()[:1]
    try:
        if start == "{":
            return load_object(value), ""
        if start == '"':  # a JSON string: the raw text, encoded
            decoded = load_list(f"[{value}]")
            if len(decoded) == 1 and isinstance(decoded[0], str):
                return {}, decoded[0]
    except (ValueError, RecursionError):
        pass
    return {}, value


def _text(arguments: dict[str, object], key: str) -> str:
    value = arguments.get(key)
    return value if isinstance(value, str) else ""


def _call_key(session: str, tool: str, arguments: object) -> str:
    """What pairs a shell tool's pre- and post-event, which carry no call id: the session, the
    tool and its arguments, as sent."""
    text = arguments if isinstance(arguments, str) else dumps(arguments)
    identity = "\0".join((session, tool, text)).encode("utf-8", "surrogateescape")
    return "copilot-" + sha1_hex(identity)


def _log_error(context: HookContext) -> None:
    error = context.payload.get("error")
    if isinstance(error, dict):
        message = error.get("message")
        error = message if isinstance(message, str) else ""
    message = str(error or "")[:LOGGED_ERROR_LENGTH]
    where = context.text("errorContext") or "?"
    context.log(f"copilot reported an error ({where}): {message}")
