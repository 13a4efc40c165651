"""OpenAI Codex CLI: hooks in ``hooks.json``, in Claude Code's shape."""

from __future__ import annotations

import os

from rewind.installers import Inspection, Probe, ProbeStep, register
from rewind.installers.json_settings import (
    JsonHooksTarget,
    JsonObject,
    SettingsFile,
    command_groups,
    is_rewind_hook,
)

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
        ],
    )


class Codex(JsonHooksTarget):
    def inspect_more(self, scope: str, settings: SettingsFile, found: Inspection) -> None:
        """``notify`` in config.toml, next to hooks.json: turns without files."""
        config = os.path.join(os.path.dirname(settings.path), "config.toml")
        notify = _notify_command(config)
        if not is_rewind_hook({"command": notify}, "codex"):
            return
        found.active_otherwise = True
        if found.installed:
            found.notes.append(("info", f"{config}: notify also runs rewind ({notify})"))
        else:
            found.notes.append(
                (
                    "warn",
                    f"{config}: notify runs rewind, which records turns but no files; "
                    f"run 'rewind install codex --{scope}' to record files too.",
                )
            )


def _notify_command(path: str) -> str:
    """Codex's ``notify`` program and arguments, as one line ("" when there is none)."""
    import tomllib

    try:
        with open(path, "rb") as handle:
            notify = tomllib.load(handle).get("notify")
    except (OSError, tomllib.TOMLDecodeError):
        return ""
    if not isinstance(notify, list) or not all(isinstance(word, str) for word in notify):
        return ""
    return " ".join(notify)


TARGET = Codex("codex", "Codex", PATHS, document, probe)
register(TARGET)
