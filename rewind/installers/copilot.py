"""GitHub Copilot CLI (and the Copilot coding agent): a hooks file of rewind's own,
``.github/hooks/rewind.json`` in the repository or ``~/.copilot/hooks/rewind.json`` for the user
(``$COPILOT_HOME/hooks/`` when that is set); the client loads every ``*.json`` file there.

The events are camelCase: their payloads carry Copilot's own tool names and arguments
(PascalCase names would select Claude-compatible payloads with renamed tools). Those payloads do
not name their event, so each hook names it in its environment (``REWIND_COPILOT_EVENT``). A
preToolUse hook that fails denies the tool call in this client, so the ``bash`` command ends
with ``|| true`` and the ``powershell`` one with ``; exit 0``: a machine without rewind (a
teammate's, the coding agent's before its setup steps) keeps working.
"""

from __future__ import annotations

import json
import os

from rewind.installers import Change, Context, Inspection, Probe, ProbeStep
from rewind.installers.json_settings import JsonHooksTarget
from rewind.installers.mcp_json import JsonEntry, JsonRegistration
from rewind.installers.mcp_registration import JsonMcp, server_entry
from rewind.installers.settings_file import JsonObject, SettingsFile
from rewind.mcp.names import SERVER_NAME

EVENT_VARIABLE = "REWIND_COPILOT_EVENT"
# Copilot matches a tool hook's regex against the whole tool name.
TOOLS = (
    *("create", "edit", "str_replace", "str_replace_editor", "apply_patch"),
    *("bash", "powershell", "write_bash", "write_powershell"),
)
MATCHER = f"^({'|'.join(TOOLS)})$"
TIMEOUT_SECONDS = 30
EVENTS = (
    ("userPromptSubmitted", None),
    ("preToolUse", MATCHER),
    ("postToolUse", MATCHER),
    ("postToolUseFailure", MATCHER),
    ("agentStop", None),
    ("sessionEnd", None),
    ("errorOccurred", None),
)
# Where Copilot keeps the folders a person trusted (its own state, not the settings).
TRUST_FILE = "config.json"
PATHS = {"user": ".copilot/hooks/rewind.json", "project": ".github/hooks/rewind.json"}
# Copilot's settings files that can turn every hook off (disableAllHooks), by scope.
SETTINGS = {
    "user": ("settings.json", "config.json"),
    "project": (".github/copilot/settings.json", ".github/copilot/settings.local.json"),
}


def document(command: str) -> JsonObject:
    """The hooks file for ``command`` (``rewind hook copilot``, or with this machine's path)."""
    powershell = f"& {command}" if command[:1] in "'\"" else command
    hooks: JsonObject = {}
    for event, matcher in EVENTS:
        hook: JsonObject = {"type": "command"}
        if matcher:
            hook["matcher"] = matcher
        hook["bash"] = f"{command} || true"
        hook["powershell"] = f"{powershell}; exit 0"
        hook["env"] = {EVENT_VARIABLE: event}
        hook["timeoutSec"] = TIMEOUT_SECONDS
        hooks[event] = [hook]
    return {"version": 1, "hooks": hooks}


def probe(project: str, path: str) -> Probe:
    """A prompt, then a ``create``-like ``edit`` of ``path`` (before and after, its arguments
    as the JSON string the client may send), then the end of the turn."""
    common: JsonObject = {"sessionId": "rewind-doctor", "timestamp": 1767225600000, "cwd": project}
    tool: JsonObject = {
        "toolName": "edit",
        "toolArgs": json.dumps({"path": path, "old_str": "before", "new_str": "after"}),
    }
    result: JsonObject = {"resultType": "success", "textResultForLlm": "File edited."}

    def step(event: str, payload: JsonObject, write: str | None = None) -> ProbeStep:
        return ProbeStep({**common, **payload}, write, {EVENT_VARIABLE: event}, event)

    return Probe(
        [
            step("userPromptSubmitted", {"prompt": "doctor"}),
            step("preToolUse", tool),
            step("postToolUse", {**tool, "toolResult": result}, write="after\n"),
            step("agentStop", {"transcriptPath": "", "stopReason": "end_turn"}),
        ],
        {"COPILOT_PROJECT_DIR": project},
    )


def copilot_home(context: Context) -> str:
    """Copilot's own directory: ``$COPILOT_HOME``, else ``~/.copilot``."""
    return os.environ.get("COPILOT_HOME") or os.path.join(context.home, ".copilot")


class Copilot(JsonHooksTarget):
    def location(self, scope: str, context: Context) -> str:
        if scope == "user":
            return os.path.join(copilot_home(context), "hooks", "rewind.json")
        return super().location(scope, context)

    def install(self, scope: str, context: Context) -> Change:
        change = super().install(scope, context)
        if scope == "project" and change.changed:
            change.notes.append(
                "Copilot loads a repository's hooks only once you trust the folder; "
                "commit .github/hooks/rewind.json for the Copilot coding agent too."
            )
        return change

    def _disabled_warnings(self, context: Context) -> list[str]:
        warnings = []
        for path in self.settings_files(context):
            try:
                settings = SettingsFile.read(path)
            except Exception:
                continue
            if settings.data.get("disableAllHooks") is True:
                warnings.append(
                    f"warning: {path}: disableAllHooks is true, so Copilot runs no hook"
                )
        return warnings

    def settings_files(self, context: Context) -> list[str]:
        home = copilot_home(context)
        return [
            *(os.path.join(home, name) for name in SETTINGS["user"]),
            *(os.path.join(context.project, name) for name in SETTINGS["project"]),
        ]

    def inspect(self, scope: str, context: Context) -> Inspection:
        found = super().inspect(scope, context)
        for warning in self._disabled_warnings(context):
            level = "fail" if found.installed else "warn"
            found.notes.append((level, warning.removeprefix("warning: ") + "; remove it."))
        if scope == "project" and found.installed:
            found.notes.append(_trust_note(context))
        return found


def _trust_note(context: Context) -> tuple[str, str]:
    """Whether Copilot trusts the project (or a folder above it): repository hooks load only in
    a trusted folder. Copilot (1.0.102) keeps the folders a person trusted in its own state,
    ``config.json`` ("managed automatically"), and reads them only there: a ``trustedFolders``
    list in ``settings.json`` looks the same and is ignored, so it never counts as trust."""
    home = copilot_home(context)
    config = os.path.join(home, TRUST_FILE)
    ignored = os.path.join(home, "settings.json")
    listed = _trusting(_trusted_folders(ignored), context.project)
    mistaken = (
        f" ({ignored} lists {listed}, but Copilot reads trustedFolders only from {TRUST_FILE})"
        if listed
        else ""
    )
    folders = _trusted_folders(config)
    if folders is None and not listed:
        return (
            "info",
            "Copilot loads repository hooks only in a folder you trusted; no trustedFolders "
            f"list was found in {config} to check this one against.",
        )
    trusted = _trusting(folders, context.project)
    if trusted:
        return ("ok", f"{config}: Copilot trusts {trusted}, so it loads these hooks")
    return (
        "warn",
        f"{config}: {context.project} is not among Copilot's trustedFolders{mistaken}; "
        "repository hooks load only once you trust the folder (start copilot there and "
        "accept).",
    )


def _trusted_folders(path: str) -> list[object] | None:
    """The ``trustedFolders`` list of a Copilot file, or None (no file, no list, unreadable)."""
    try:
        folders = SettingsFile.read(path).data.get("trustedFolders")
    except Exception:
        return None
    return folders if isinstance(folders, list) else None


def _trusting(folders: list[object] | None, project: str) -> str:
    """The first of ``folders`` that is ``project`` or a folder above it, else ``""``. Copilot
    follows symbolic links and ``..`` in them, but takes ``~`` literally."""
    real = os.path.realpath(project)
    for folder in folders or []:
        if isinstance(folder, str) and os.path.isabs(folder):
            trusted = os.path.realpath(folder)
            if real == trusted or real.startswith(trusted.rstrip(os.sep) + os.sep):
                return folder
    return ""


def mcp_files(scope: str, context: Context) -> list[JsonRegistration]:
    """Copilot CLI 1.0.102 reads the user's servers from ``mcp-config.json`` in its directory,
    in the shape ``copilot mcp add`` writes. It lets a tool marked read-only run without
    asking and asks for the others, so nothing is pre-approved in a file. (Its workspace
    files, ``.mcp.json`` first, are Claude Code's: ``rewind install claude-code --mcp``.)"""
    entry = server_entry(context, shared=False, type="local", tools=["*"])
    server = JsonEntry(("mcpServers",), SERVER_NAME, entry)
    return [JsonRegistration(os.path.join(copilot_home(context), "mcp-config.json"), (server,))]


TARGET = Copilot("copilot", "GitHub Copilot CLI", PATHS, document, probe)
TARGET.mcp = JsonMcp(
    mcp_files,
    scopes=("user",),
    shared_scopes=(),
    advice="start Copilot CLI again ('/mcp show' lists the server)",
)
