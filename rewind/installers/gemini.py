"""Gemini CLI: hooks in ``settings.json``; timeouts in milliseconds."""

from __future__ import annotations

from rewind.installers import Probe, ProbeStep, register
from rewind.installers.json_settings import JsonHooksTarget, JsonObject, command_groups

MATCHER = "write_file|replace|run_shell_command"
TIMEOUT_MS = 30_000
EVENTS = (
    ("SessionStart", None, TIMEOUT_MS),
    ("BeforeAgent", None, TIMEOUT_MS),
    ("BeforeTool", MATCHER, TIMEOUT_MS),
    ("AfterTool", MATCHER, TIMEOUT_MS),
    ("AfterAgent", None, TIMEOUT_MS),
    ("SessionEnd", None, TIMEOUT_MS),
)
PATHS = {"user": ".gemini/settings.json", "project": ".gemini/settings.json"}


def document(command: str) -> JsonObject:
    return {"hooks": command_groups(command, EVENTS)}


def probe(project: str, path: str) -> Probe:
    """A prompt, then a write_file of ``path`` (before and after), then the end of the turn."""
    common: JsonObject = {
        "session_id": "rewind-doctor",
        "transcript_path": "",
        "cwd": project,
        "timestamp": "2026-01-01T00:00:00.000Z",
    }
    tool: JsonObject = {
        "tool_name": "write_file",
        "tool_input": {"file_path": path, "content": "after\n"},
    }
    return Probe(
        [
            ProbeStep({**common, "hook_event_name": "SessionStart", "source": "startup"}),
            ProbeStep({**common, "hook_event_name": "BeforeAgent", "prompt": "doctor"}),
            ProbeStep({**common, "hook_event_name": "BeforeTool", **tool}),
            ProbeStep(
                {
                    **common,
                    "hook_event_name": "AfterTool",
                    **tool,
                    "tool_response": {"llmContent": "Successfully wrote the file."},
                },
                write="after\n",
            ),
            ProbeStep({**common, "hook_event_name": "AfterAgent", "prompt": "doctor"}),
        ],
        {"GEMINI_PROJECT_DIR": project},
    )


TARGET = JsonHooksTarget("gemini", "Gemini CLI", PATHS, document, probe)
register(TARGET)
