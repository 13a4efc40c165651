"""Windsurf (Cascade hooks): ``hooks.json``, one ``{"command": ..., "show_output": false}``
per event. Windsurf also reads a system file (``/etc/windsurf/hooks.json``, an administrator's)
that rewind leaves alone, and merges all three. The shapes are Windsurf's documentation's
(docs.windsurf.com/windsurf/cascade/hooks): there is no client to read them from."""

from __future__ import annotations

from rewind.installers import Probe, ProbeStep
from rewind.installers.json_settings import JsonHooksTarget
from rewind.installers.mcp_registration import JsonMcp, servers_file
from rewind.installers.settings_file import JsonObject

EVENTS = (
    "pre_user_prompt",
    "pre_write_code",
    "post_write_code",
    "pre_run_command",
    "post_run_command",
    "post_cascade_response",
)
PATHS = {"user": ".codeium/windsurf/hooks.json", "project": ".windsurf/hooks.json"}


def document(command: str) -> JsonObject:
    hooks: JsonObject = {event: [{"command": command, "show_output": False}] for event in EVENTS}
    return {"hooks": hooks}


def probe(project: str, path: str) -> Probe:
    """A prompt, then pre/post_write_code of ``path``, then the end of the response. Windsurf
    names no directory but for commands: the hook runs in the workspace (the probe's project)."""

    def event(name: str, tool_info: JsonObject) -> JsonObject:
        return {
            "agent_action_name": name,
            "trajectory_id": "rewind-doctor",
            "execution_id": "rewind-doctor-1",
            "timestamp": "2026-01-01T00:00:00.000000Z",
            "tool_info": tool_info,
        }

    edit: JsonObject = {
        "file_path": path,
        "edits": [{"old_string": "before", "new_string": "after"}],
    }
    return Probe(
        [
            ProbeStep(event("pre_user_prompt", {"user_prompt": "doctor"})),
            ProbeStep(event("pre_write_code", edit)),
            ProbeStep(event("post_write_code", edit), write="after\n"),
            ProbeStep(event("post_cascade_response", {"response": "Done."})),
        ],
    )


TARGET = JsonHooksTarget("windsurf", "Windsurf", PATHS, document, probe)
# docs.windsurf.com/windsurf/cascade/mcp: the user's ~/.codeium/windsurf/mcp_config.json only.
TARGET.mcp = JsonMcp(
    servers_file({"user": ".codeium/windsurf/mcp_config.json"}),
    scopes=("user",),
    shared_scopes=(),
    advice="press refresh in Cascade's MCP panel",
)
