"""Claude Code: hooks in ``settings.json`` (user, project) or ``settings.local.json`` (local).

Read from Claude Code 2.1.332: PostToolUseFailure (a failed tool call) gets the same matcher as
PostToolUse, so a failed edit's after-state is recorded at once; the PowerShell tool is matched
like Bash. Interactive sessions run no hook in a folder whose trust dialog was not accepted
(``projects[DIR].hasTrustDialogAccepted`` in ``~/.claude.json``, for the folder or one above
it): doctor reports it.

Every command hook is a process Claude Code starts and waits for, once per event: rewind
subscribes to the events that record something, and no more, and makes a process only of those
whose record could be lost for good (the prompt, the state before a tool call): the
after-events are HTTP hooks to rewind's resident recorder (rewind.resident), which those two
keep listening. SessionStart records nothing (the watcher of ``watch_on_session_start`` starts
at the first prompt instead), so it is not subscribed. No command hook runs ``async``:
measured with the real client (tests/bench/real_clients.py), an async SessionEnd made
``claude -p`` slower than waiting for it, and an async Stop is dropped when it exits.
"""

from __future__ import annotations

import os

from rewind.installers import Change, Context, Inspection, Probe, ProbeStep
from rewind.installers.json_settings import JsonHooksTarget
from rewind.installers.mcp_json import JsonEntry, JsonRegistration
from rewind.installers.mcp_registration import JsonMcp, server_entry
from rewind.installers.resident_hooks import resident_events, resident_groups
from rewind.installers.settings_file import JsonObject, SettingsFile
from rewind.mcp.names import READ_TOOLS, SERVER_NAME
from rewind.store.git_program import GitFailed, run_git

# Anchored, so that old versions (unanchored regex) and new ones (exact lists) match the same.
MATCHER = "^(Edit|Write|MultiEdit|NotebookEdit|Bash|PowerShell)$"
AGENT = "claude-code"
EVENTS = resident_events(MATCHER)
PLUGIN_COMMAND = "rewind hook claude-code"  # hooks/claude-code/hooks/hooks.json
PATHS = {
    "user": ".claude/settings.json",
    "project": ".claude/settings.json",
    "local": ".claude/settings.local.json",
}


def document(command: str) -> JsonObject:
    return {"hooks": resident_groups(command, EVENTS, AGENT)}


def probe(project: str, path: str) -> Probe:
    """A prompt, then a Write of ``path`` (before and after), then the end of the turn."""
    common: JsonObject = {
        "session_id": "rewind-doctor",
        "transcript_path": "",
        "cwd": project,
        "permission_mode": "default",
    }
    tool: JsonObject = {
        "tool_name": "Write",
        "tool_input": {"file_path": path, "content": "after\n"},
        "tool_use_id": "toolu_rewind_doctor",
    }
    return Probe(
        [
            ProbeStep({**common, "hook_event_name": "UserPromptSubmit", "prompt": "doctor"}),
            ProbeStep({**common, "hook_event_name": "PreToolUse", **tool}),
            ProbeStep(
                {
                    **common,
                    "hook_event_name": "PostToolUse",
                    **tool,
                    "tool_response": {"filePath": path, "success": True},
                },
                write="after\n",
            ),
            ProbeStep({**common, "hook_event_name": "Stop", "stop_hook_active": False}),
        ],
        {"CLAUDE_PROJECT_DIR": project},
    )


class ClaudeCode(JsonHooksTarget):
    def install(self, scope: str, context: Context) -> Change:
        change = super().install(scope, context)
        if scope == "local":
            note = _unignored(context.project, PATHS["local"])
            if note:
                change.notes.append(note)
        return change

    def trust(self, context: Context) -> list[tuple[str, str]]:
        """Whether the project (or a folder above it) had its trust dialog accepted."""
        if os.environ.get("CLAUDE_CODE_SANDBOXED"):
            return [("ok", "CLAUDE_CODE_SANDBOXED is set: Claude Code trusts every folder")]
        path = user_config(context)
        trusted = _trusted_folder(path, context.project)
        if trusted:
            return [("ok", f"Claude Code trusts {trusted} ({path})")]
        return [
            (
                "warn",
                f"Claude Code has not been trusted in {context.project} (no "
                f"hasTrustDialogAccepted for it or a folder above it in {path}), so interactive "
                "sessions run no hook there; start claude there and accept the trust dialog "
                "('claude -p' runs hooks regardless).",
            )
        ]

    def hooks_disabled(self, settings: SettingsFile) -> str:
        if settings.data.get("disableAllHooks") is True:
            return "disableAllHooks is true, so Claude Code runs no hook; remove it."
        return ""

    def inspect_more(self, scope: str, settings: SettingsFile, found: Inspection) -> None:
        """The rewind plugin, when these settings enable it; hooks turned off altogether."""
        plugins = settings.data.get("enabledPlugins")
        enabled = [
            name
            for name, on in (plugins.items() if isinstance(plugins, dict) else ())
            if name.split("@")[0] == "rewind" and on is True
        ]
        for name in enabled:
            found.active_otherwise = True
            if PLUGIN_COMMAND not in found.commands:
                found.commands.append(PLUGIN_COMMAND)
            found.notes.append(
                ("ok", f"{settings.path}: the plugin {name} is enabled; it runs 'rewind' from PATH")
            )
            if found.installed:
                found.notes.append(
                    (
                        "warn",
                        f"{settings.path}: the plugin and these settings both run rewind's hooks; "
                        f"run 'rewind uninstall claude-code --{scope}' or disable the plugin.",
                    )
                )
        if settings.data.get("disableAllHooks") is True:
            found.notes.append(
                (
                    "fail" if found.installed or enabled else "warn",
                    f"{settings.path}: disableAllHooks is true, so no hook runs; remove it.",
                )
            )


def _trusted_folder(config_path: str, project: str) -> str:
    """The project, or the nearest folder above it, that ``~/.claude.json`` says is trusted
    ("" when none is)."""
    from rewind.store.fastjson import loads
    from rewind.store.input_limits import SETTINGS_BYTES, read_at_most

    try:
        config = loads(read_at_most(config_path, SETTINGS_BYTES, "a settings file").decode())
    except (OSError, ValueError):  # not UTF-8 or JSON, or past the limits: trusts nothing
        return ""
    projects = config.get("projects") if isinstance(config, dict) else None
    if not isinstance(projects, dict):
        return ""
    for start in dict.fromkeys((os.path.abspath(project), os.path.realpath(project))):
        directory = start
        while True:
            entry = projects.get(directory)
            if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True:
                return directory
            parent = os.path.dirname(directory)
            if parent == directory:
                break
            directory = parent
    return ""


def user_config(context: Context) -> str:
    """``~/.claude.json`` (in ``$CLAUDE_CONFIG_DIR`` when set): the user's and each project's
    private MCP servers, and the folders trusted."""
    return os.path.join(os.environ.get("CLAUDE_CONFIG_DIR") or context.home, ".claude.json")


def mcp_files(scope: str, context: Context) -> list[JsonRegistration]:
    """The server in ``.mcp.json`` (project; approved in the project's settings by
    ``enabledMcpjsonServers``), in ``~/.claude.json`` under the project (local) or at its top
    (user); the read tools allowed in the scope's settings file (``mcp__rewind__TOOL``)."""
    allow = JsonEntry(
        ("permissions", "allow"), items=tuple(f"mcp__{SERVER_NAME}__{t}" for t in READ_TOOLS)
    )
    settings = os.path.join(context.home if scope == "user" else context.project, PATHS[scope])
    if scope == "project":
        server = JsonEntry(("mcpServers",), SERVER_NAME, server_entry(context, shared=True))
        approve = JsonEntry(("enabledMcpjsonServers",), items=(SERVER_NAME,))
        return [
            JsonRegistration(os.path.join(context.project, ".mcp.json"), (server,)),
            JsonRegistration(settings, (approve, allow)),
        ]
    under = ("projects", context.project) if scope == "local" else ()
    entry = server_entry(context, shared=False, type="stdio")
    server = JsonEntry((*under, "mcpServers"), SERVER_NAME, entry)
    return [
        JsonRegistration(user_config(context), (server,)),
        JsonRegistration(settings, (allow,)),
    ]


TARGET = ClaudeCode(AGENT, "Claude Code", PATHS, document, probe)
TARGET.mcp = JsonMcp(
    mcp_files,
    scopes=("user", "project", "local"),
    advice="start Claude Code again to load the server ('/mcp' lists it)",
)


def _unignored(project: str, name: str) -> str:
    """A warning when git neither tracks nor ignores the private settings file ``name`` of the
    project (it holds this machine's paths, and 'git add .' would commit it); '' otherwise,
    and outside a git work tree. rewind never edits the user's git files: it says so."""

    def git(*arguments: str) -> int:
        try:
            done = run_git(
                None,
                *arguments,
                what="git",
                cwd=project,
                timeout=30,
                check=False,
                repository_from_environment=True,
            )
        except GitFailed:
            return 128
        return done.returncode

    ignored = git("check-ignore", "-q", "--", name)
    if ignored != 1:  # 0: ignored; 128: no work tree here, or git failed
        return ""
    if git("ls-files", "--error-unmatch", "--", name) == 0:
        return ""
    return (
        f"warning: git neither tracks nor ignores {name}, so 'git add .' would commit this "
        "machine's paths; add it to .gitignore."
    )
