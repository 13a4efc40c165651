"""Cursor: hooks in ``hooks.json``, one ``{"command": ...}`` per event; the tool hooks with a
``matcher`` of the tools that write or delete files.

A Cursor without tool hooks ignores ``preToolUse``/``postToolUse``/``postToolUseFailure`` and
still sends ``afterFileEdit``, from which rewind rebuilds pre-images (rewind.hooks.cursor).
"""

from __future__ import annotations

from rewind.installers import Probe, ProbeStep
from rewind.installers.json_settings import JsonHooksTarget
from rewind.installers.mcp_registration import JsonMcp, servers_file
from rewind.installers.settings_file import JsonObject

# Cursor's tool names of the Write and Delete tools (cursor.com/docs/hooks.md: matchers are
# matched against the tool's name); shell commands have their own events.
FILE_TOOLS_MATCHER = "Write|Delete"
EVENTS = (
    "beforeSubmitPrompt",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "afterFileEdit",
    "beforeShellExecution",
    "afterShellExecution",
    "stop",
)
TOOL_EVENTS = frozenset({"preToolUse", "postToolUse", "postToolUseFailure"})
PATHS = {"user": ".cursor/hooks.json", "project": ".cursor/hooks.json"}


def document(command: str) -> JsonObject:
    hooks: JsonObject = {}
    for event in EVENTS:
        hook: JsonObject = {"command": command}
        if event in TOOL_EVENTS:
            hook["matcher"] = FILE_TOOLS_MATCHER
        hooks[event] = [hook]
    return {"version": 1, "hooks": hooks}


def probe(project: str, path: str) -> Probe:
    """A prompt, then a Write of ``path`` as a Cursor with tool hooks reports it: preToolUse,
    the edit, postToolUse, and the afterFileEdit that follows it."""
    common: JsonObject = {
        "conversation_id": "rewind-doctor",
        "generation_id": "rewind-doctor-1",
        "workspace_roots": [project],
    }
    tool: JsonObject = {
        "tool_name": "Write",
        "tool_input": {"file_path": path, "contents": "after\n"},
        "tool_use_id": "rewind-doctor-write",
        "cwd": project,
    }
    return Probe(
        [
            ProbeStep({**common, "hook_event_name": "beforeSubmitPrompt", "prompt": "doctor"}),
            ProbeStep({**common, "hook_event_name": "preToolUse", **tool}),
            ProbeStep(
                {**common, "hook_event_name": "postToolUse", **tool, "tool_output": "{}"},
                write="after\n",
            ),
            ProbeStep(
                {
                    **common,
                    "hook_event_name": "afterFileEdit",
                    "file_path": path,
                    "edits": [{"old_string": "before", "new_string": "after"}],
                },
            ),
            ProbeStep({**common, "hook_event_name": "stop", "status": "completed"}),
        ],
    )


TARGET = JsonHooksTarget("cursor", "Cursor", PATHS, document, probe)
# cursor.com/docs/context/mcp: ~/.cursor/mcp.json and the project's .cursor/mcp.json. Whether
# a tool runs without asking is the person's choice in Cursor's settings (auto-run), not a file's.
TARGET.mcp = JsonMcp(
    servers_file({"user": ".cursor/mcp.json", "project": ".cursor/mcp.json"}),
    advice="turn the server on in Cursor's settings (Tools & MCP)",
)
