"""Cursor: hooks in ``hooks.json``, one ``{"command": ...}`` per event, no matchers."""

from __future__ import annotations

from rewind.installers import Probe, ProbeStep, register
from rewind.installers.json_settings import JsonHooksTarget, JsonObject

EVENTS = (
    "beforeSubmitPrompt",
    "afterFileEdit",
    "beforeShellExecution",
    "afterShellExecution",
    "stop",
)
PATHS = {"user": ".cursor/hooks.json", "project": ".cursor/hooks.json"}


def document(command: str) -> JsonObject:
    hooks: JsonObject = {event: [{"command": command}] for event in EVENTS}
    return {"version": 1, "hooks": hooks}


def probe(project: str, path: str) -> Probe:
    """A prompt, then the afterFileEdit of ``path`` (sent after the edit, as Cursor does)."""
    common: JsonObject = {
        "conversation_id": "rewind-doctor",
        "generation_id": "rewind-doctor-1",
        "workspace_roots": [project],
    }
    return Probe(
        [
            ProbeStep({**common, "hook_event_name": "beforeSubmitPrompt", "prompt": "doctor"}),
            ProbeStep(
                {
                    **common,
                    "hook_event_name": "afterFileEdit",
                    "file_path": path,
                    "edits": [{"old_string": "before", "new_string": "after"}],
                },
                write="after\n",
            ),
            ProbeStep({**common, "hook_event_name": "stop", "status": "completed"}),
        ],
    )


TARGET = JsonHooksTarget("cursor", "Cursor", PATHS, document, probe)
register(TARGET)
