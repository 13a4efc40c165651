"""Gemini CLI: hooks in ``settings.json``; timeouts in milliseconds.

Read from Gemini CLI 0.61.0: in a folder that is not trusted Gemini runs none of the hooks of
its settings files, the user's included; ``hooksConfig.enabled: false`` turns them all off.
Doctor reports both (trust: ``GEMINI_CLI_TRUST_WORKSPACE``, ``security.folderTrust.enabled``,
then the longest matching rule of ``~/.gemini/trustedFolders.json``).

SessionStart records nothing, so it is not subscribed (each hook is a process Gemini waits for;
earlier versions subscribed to it, and installing again takes that hook out).
"""

from __future__ import annotations

import os

from rewind.errors import UserError
from rewind.installers import Context, Probe, ProbeStep, register
from rewind.installers.json_settings import JsonHooksTarget, command_groups
from rewind.installers.settings_file import JsonObject, SettingsFile

MATCHER = "write_file|replace|run_shell_command"
TIMEOUT_MS = 30_000
EVENTS = (
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


class Gemini(JsonHooksTarget):
    def hooks_disabled(self, settings: SettingsFile) -> str:
        config = settings.data.get("hooksConfig")
        if isinstance(config, dict) and config.get("enabled") is False:
            return "hooksConfig.enabled is false, so Gemini CLI runs no hook; remove it."
        return ""

    def trust(self, context: Context) -> list[tuple[str, str]]:
        trusted, why = folder_trust(context)
        if trusted:
            return [("ok", f"Gemini CLI trusts {context.project} ({why})")]
        return [
            (
                "warn",
                f"Gemini CLI does not trust {context.project} ({why}), so it runs no hook "
                "there, not even the user's; start gemini there and trust the folder (or set "
                "GEMINI_CLI_TRUST_WORKSPACE=true).",
            )
        ]


TRUST_FOLDER, TRUST_PARENT, DO_NOT_TRUST = "TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"


def folder_trust(context: Context) -> tuple[bool, str]:
    """Whether Gemini CLI trusts the project, and why, in the order Gemini decides."""
    if os.environ.get("GEMINI_RESTRICTED_MODE", "").lower() == "true":
        return False, "GEMINI_RESTRICTED_MODE is true"
    workspace = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE", "").lower()
    if workspace in ("true", "false"):
        return workspace == "true", f"GEMINI_CLI_TRUST_WORKSPACE is {workspace}"
    for scope in ("user", "project"):
        path = TARGET.location(scope, context)
        try:
            security = SettingsFile.read(path).data.get("security")
        except UserError:
            continue
        folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
        if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
            return True, f"security.folderTrust.enabled is false in {path}"
    path = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.join(
        context.home, ".gemini", "trustedFolders.json"
    )
    try:
        rules = SettingsFile.read(path).data
    except UserError:
        rules = {}
    project = os.path.realpath(context.project)
    best: tuple[int, str, str] | None = None
    for rule_path, rule in rules.items():
        if rule not in (TRUST_FOLDER, TRUST_PARENT, DO_NOT_TRUST):
            continue
        real = os.path.realpath(os.path.expanduser(rule_path))
        effective = os.path.dirname(real) if rule == TRUST_PARENT else real
        inside = project == effective or project.startswith(effective.rstrip("/") + "/")
        if inside and (best is None or len(effective) > best[0]):
            best = (len(effective), rule_path, str(rule))
    if best is None:
        return False, f"no rule for it in {path}"
    return best[2] != DO_NOT_TRUST, f"{best[1]}: {best[2]} in {path}"


TARGET = Gemini("gemini", "Gemini CLI", PATHS, document, probe)
register(TARGET)
