"""Qwen Code: hooks in ``settings.json``, in Claude Code's shape; timeouts in seconds.

Read from Qwen Code 0.24.4: a command hook is a process Qwen starts and waits for (PreToolUse
before the tool runs), an HTTP hook a POST it waits for (the after-events go to rewind's
resident recorder); ``disableAllHooks: true`` turns them all off. With folder trust turned on
(``security.folderTrust.enabled``, off by default) a project's ``.qwen/settings.json`` is read
only in a trusted folder; the user's hooks run everywhere. SessionStart records nothing, so it
is not subscribed. MCP servers are read from ``mcpServers`` in the same files.
"""

from __future__ import annotations

from rewind.installers import Probe, ProbeStep
from rewind.installers.json_settings import JsonHooksTarget
from rewind.installers.mcp_registration import JsonMcp, servers_file
from rewind.installers.resident_hooks import resident_events, resident_groups
from rewind.installers.settings_file import JsonObject, SettingsFile

# A list of exact names (Qwen compares each entry first); ``edit`` as a regular expression
# would match ``notebook_edit`` too, which is also wanted.
MATCHER = "write_file|edit|notebook_edit|run_shell_command"
# A process for the prompt and the state before a tool call; the after-events posted to rewind's
# resident recorder (rewind.resident), as Claude Code's are: Qwen runs HTTP hooks to 127.0.0.1,
# and one that finds nobody is reported and passed over.
EVENTS = resident_events(MATCHER)
PATHS = {"user": ".qwen/settings.json", "project": ".qwen/settings.json"}


def document(command: str) -> JsonObject:
    return {"hooks": resident_groups(command, EVENTS, "qwen")}


def probe(project: str, path: str) -> Probe:
    """A prompt, then a write_file of ``path`` (before and after), then the end of the turn."""
    common: JsonObject = {
        "session_id": "rewind-doctor",
        "transcript_path": "",
        "cwd": project,
        "permission_mode": "default",
    }
    tool: JsonObject = {
        "tool_name": "write_file",
        "tool_input": {"file_path": path, "content": "after\n"},
        "tool_use_id": "toolu_rewind_doctor",
    }
    return Probe(
        [
            ProbeStep(
                {
                    **common,
                    "hook_event_name": "UserPromptSubmit",
                    "prompt": "doctor",
                    "submitted_prompt": "doctor",
                }
            ),
            ProbeStep({**common, "hook_event_name": "PreToolUse", **tool}),
            ProbeStep(
                {
                    **common,
                    "hook_event_name": "PostToolUse",
                    **tool,
                    "tool_response": {"llmContent": "Successfully wrote the file."},
                },
                write="after\n",
            ),
            ProbeStep({**common, "hook_event_name": "Stop", "last_assistant_message": "Done."}),
        ],
        {"QWEN_PROJECT_DIR": project},
    )


class Qwen(JsonHooksTarget):
    def hooks_disabled(self, settings: SettingsFile) -> str:
        if settings.data.get("disableAllHooks") is True:
            return "disableAllHooks is true, so Qwen Code runs no hook; remove it."
        return ""


TARGET = Qwen("qwen", "Qwen Code", PATHS, document, probe)
TARGET.mcp = JsonMcp(
    servers_file(PATHS),
    advice="start Qwen Code again ('/mcp' lists the server)",
)
