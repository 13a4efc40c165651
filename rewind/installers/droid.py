"""Factory's Droid: hooks in ``hooks.json``, in Claude Code's shape but with the events at the
file's top level (a ``{"hooks": ...}`` wrapper is read as no hook at all); timeouts in seconds.

Read from Droid 0.225.2: it runs the hooks of the user's ``~/.factory/hooks.json`` and of the
project's ``.factory/hooks.json``, both (not those of its ``settings.json``), each a process it
waits for (PreToolUse before the tool runs); ``"hooksDisabled": true`` in either turns them
off. A matcher is a regular expression searched in the tool's name, hence the anchors.
SessionStart starts the project's watcher (a ``droid exec`` run sends no prompt event before
its tools). MCP servers are read from ``mcp.json`` beside it.
"""

from __future__ import annotations

from rewind.installers import Probe, ProbeStep
from rewind.installers.json_settings import JsonHooksTarget, command_groups
from rewind.installers.mcp_registration import JsonMcp, servers_file
from rewind.installers.settings_file import JsonObject, SettingsFile

MATCHER = "^(Create|Edit|ApplyPatch|Execute)$"
EVENTS = (
    ("SessionStart", None, 10),
    ("UserPromptSubmit", None, 10),
    ("PreToolUse", MATCHER, 30),
    ("PostToolUse", MATCHER, 30),
    ("Stop", None, 30),
    ("SessionEnd", None, 30),
)
PATHS = {"user": ".factory/hooks.json", "project": ".factory/hooks.json"}
MCP_PATHS = {"user": ".factory/mcp.json", "project": ".factory/mcp.json"}


def document(command: str) -> JsonObject:
    return {"hooks": command_groups(command, EVENTS)}


def probe(project: str, path: str) -> Probe:
    """A ``droid exec`` run: a Create of ``path`` (before and after), then the run's end; the
    tool call begins the turn, as no prompt event comes."""
    common: JsonObject = {
        "session_id": "rewind-doctor",
        "transcript_path": "",
        "cwd": project,
        "permission_mode": "auto-high",
    }
    tool: JsonObject = {
        "tool_name": "Create",
        "tool_input": {"file_path": path, "content": "after\n"},
    }
    return Probe(
        [
            ProbeStep({**common, "hook_event_name": "PreToolUse", **tool}),
            ProbeStep(
                {**common, "hook_event_name": "PostToolUse", **tool, "tool_response": "{}"},
                write="after\n",
            ),
            ProbeStep({**common, "hook_event_name": "Stop", "stop_hook_active": False}),
        ],
        {"FACTORY_PROJECT_DIR": project},
    )


class Droid(JsonHooksTarget):
    hooks_key = None

    def hooks_disabled(self, settings: SettingsFile) -> str:
        if settings.data.get("hooksDisabled") is True:
            return "hooksDisabled is true, so Droid runs no hook; remove it."
        return ""


TARGET = Droid("droid", "Droid", PATHS, document, probe)
TARGET.mcp = JsonMcp(
    servers_file(MCP_PATHS, type="stdio"),
    advice="start Droid again ('/mcp' lists the server)",
)
