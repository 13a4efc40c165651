"""OpenAI Codex CLI: hooks in ``hooks.json``, in Claude Code's shape."""

from __future__ import annotations

import os

from rewind.installers import Probe, ProbeStep, register
from rewind.installers.json_settings import JsonHooksTarget, JsonObject, command_groups

MATCHER = "^(apply_patch|Edit|Write|shell|Bash|local_shell|exec_command)$"
EVENTS = (
    ("SessionStart", None, 30),
    ("UserPromptSubmit", None, 10),
    ("PreToolUse", MATCHER, 30),
    ("PostToolUse", MATCHER, 30),
    ("Stop", None, 30),
)
PATHS = {"user": ".codex/hooks.json", "project": ".codex/hooks.json"}

PATCH = """\
*** Begin Patch
*** Update File: {name}
@@
-before
+after
*** End Patch
"""


def document(command: str) -> JsonObject:
    return {"hooks": command_groups(command, EVENTS)}


def probe(project: str, path: str) -> Probe:
    """A prompt, then an apply_patch of ``path`` (by its relative name), then the turn's end."""
    name = os.path.relpath(path, project)
    common: JsonObject = {
        "session_id": "rewind-doctor",
        "turn_id": "rewind-doctor-1",
        "transcript_path": None,
        "cwd": project,
        "model": "doctor",
    }
    tool: JsonObject = {
        "tool_name": "apply_patch",
        "tool_input": {"command": PATCH.format(name=name)},
        "tool_use_id": "call_rewind_doctor",
    }
    return Probe(
        [
            ProbeStep({**common, "hook_event_name": "SessionStart", "source": "startup"}),
            ProbeStep({**common, "hook_event_name": "UserPromptSubmit", "prompt": "doctor"}),
            ProbeStep({**common, "hook_event_name": "PreToolUse", **tool}),
            ProbeStep(
                {**common, "hook_event_name": "PostToolUse", **tool, "tool_response": "Success"},
                write="after\n",
            ),
            ProbeStep({**common, "hook_event_name": "Stop", "stop_hook_active": False}),
        ]
    )


TARGET = JsonHooksTarget("codex", "Codex", PATHS, document, probe)
register(TARGET)
