"""Cline: a hook is an executable file named after its event in a hooks directory; rewind's is
a three-line shell script that runs ``rewind hook cline`` (standard input passes through).

Directories (Cline 3.0.65's ``resolveHooksConfigSearchPaths``, and the VS Code extension's
``getAllHooksDirs``): ``--user`` writes ``~/Documents/Cline/Hooks``, which both the CLI and the
extension read (the CLI also reads ``~/.cline/hooks``); ``--project`` writes the workspace's
``.clinerules/hooks``, meant to be committed. Cline runs every hook file it finds in all of
them: installing in both runs rewind twice per event.

A file is rewind's when it is exactly what install writes, whichever ``rewind`` it runs.
Install never touches a file of the same name that is not (a person's own hook: that event is
left out, and said so); uninstall removes only rewind's files, then the directories install
created, when nothing else is in them.
"""

from __future__ import annotations

import os
import stat

from rewind.errors import UserError
from rewind.installers import (
    Change,
    Context,
    Inspection,
    Probe,
    ProbeStep,
    Target,
    path_advice,
    record,
)
from rewind.installers.mcp_json import JsonEntry, JsonRegistration
from rewind.installers.mcp_registration import JsonMcp, server_entry
from rewind.installers.rewind_hooks import is_rewind_hook
from rewind.installers.settings_file import missing_directories
from rewind.mcp.names import SERVER_NAME
from rewind.store.atomic import replace_file

AGENT = "cline"
# The events rewind needs, in the order Cline sends them (TaskError and SessionShutdown exist
# in the CLI only; the extension ignores their files).
EVENTS = (
    "TaskStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "TaskComplete",
    "TaskCancel",
    "TaskError",
    "SessionShutdown",
)
DIRECTORIES = {"user": os.path.join("Documents", "Cline", "Hooks"), "project": ".clinerules/hooks"}
SHEBANG = "#!/bin/sh"
MARK = "# rewind: records Cline's file edits; 'rewind uninstall cline' removes this file."
MODE = 0o755
ENABLE_NOTE = (
    "the VS Code extension runs hooks only with 'Enable Hooks' checked "
    "(Cline > Settings > Features); the CLI runs them always."
)


def script(command: str) -> str:
    return f"{SHEBANG}\n{MARK}\nexec {command}\n"


def command_of(text: str) -> str | None:
    """The command of a hook file install wrote, or None when the file is not rewind's."""
    lines = text.split("\n")
    if len(lines) != 4 or lines[:2] != [SHEBANG, MARK] or lines[3] != "":
        return None
    command = lines[2].removeprefix("exec ")
    if command == lines[2] or not is_rewind_hook({"command": command}, AGENT):
        return None
    return command


def _read(path: str) -> str | None:
    """The text of a regular file at ``path``; None when there is none (or not text)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return ""  # a link or a directory: someone's, never rewind's
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return ""


class ClineHooks(Target):
    name = AGENT
    title = "Cline"
    scopes = ("user", "project")
    default_scope = "project"
    shared_scopes = ("project",)
    hook_agent = AGENT

    def location(self, scope: str, context: Context) -> str:
        base = context.home if scope == "user" else context.project
        return os.path.join(base, DIRECTORIES[scope])

    def install(self, scope: str, context: Context) -> Change:
        directory = self.location(scope, context)
        shared = scope in self.shared_scopes
        command = context.hook_command(AGENT, shared)
        wanted = script(command)
        plan: list[tuple[str, str]] = []  # (event, "added" or "updated")
        skipped = []
        for event in EVENTS:
            text = _read(os.path.join(directory, event))
            if text is None:
                plan.append((event, "added"))
            elif command_of(text) is None:
                skipped.append(event)
            elif text != wanted or not _executable(os.path.join(directory, event)):
                plan.append((event, "updated"))
        if os.path.exists(directory) and not os.path.isdir(directory):
            raise UserError(f"{directory} is not a directory; move it away and run again.")
        created = missing_directories(directory)
        change = Change(directory, created=bool(created))
        if plan:
            os.makedirs(directory, exist_ok=True)
            for event, action in plan:
                path = os.path.join(directory, event)
                replace_file(os.fsencode(path), wanted.encode("utf-8"), MODE)
                change.items.append((action, path))
            made = [event for event, action in plan if action == "added"]
            record.save(directory, record.InstallRecord(False, created, events=made))
            change.notes.append(f"the hooks run: {command}")
            change.notes.append(ENABLE_NOTE)
        for event in skipped:
            change.notes.append(
                f"warning: left {os.path.join(directory, event)} alone: it is not rewind's, and "
                f"Cline runs one {event} file per directory; rewind records nothing on {event} "
                f"unless it is installed in the other scope (rewind install cline --"
                f"{'user' if scope == 'project' else 'project'})."
            )
        other = self.location("user" if scope == "project" else "project", context)
        if plan and any(_is_ours(os.path.join(other, event)) for event in EVENTS):
            change.notes.append(
                f"warning: rewind's Cline hooks are also in {other}; Cline runs both, so every "
                "event is recorded twice: uninstall one of them."
            )
        if shared and not _on_path():
            change.notes.append(
                "warning: rewind is not on PATH here, and these hooks, meant to be committed, "
                f"run 'rewind' from PATH: {path_advice(self)}."
            )
        return change

    def uninstall(self, scope: str, context: Context) -> Change:
        directory = self.location(scope, context)
        made = record.load(directory)
        change = Change(directory)
        for event in EVENTS:
            path = os.path.join(directory, event)
            if _is_ours(path):
                os.unlink(path)
                change.items.append(("removed", path))
            elif _read(path) is not None:
                change.notes.append(f"left {path}: it is not rewind's")
        if made is not None:
            for created in reversed(made.created_directories):
                try:
                    os.rmdir(created)
                except OSError:
                    break  # something else is in it
                change.items.append(("deleted", created))
            record.forget(directory)
        return change

    def inspect(self, scope: str, context: Context) -> Inspection:
        directory = self.location(scope, context)
        found = Inspection(directory, os.path.isdir(directory))
        commands: dict[str, None] = {}
        for event in EVENTS:
            path = os.path.join(directory, event)
            text = _read(path)
            command = command_of(text) if text else None
            if command is None:
                found.missing.append(event)
                if text is not None:
                    found.notes.append(("warn", f"{path} is not rewind's: {event} not recorded"))
                continue
            found.installed.append(event)
            commands[command] = None
            if not _executable(path):
                found.different.append(event)
        found.commands = list(commands)
        if found.installed:
            found.notes.append(("info", ENABLE_NOTE))
            if scope == "project":
                user = self.location("user", context)
                if any(_is_ours(os.path.join(user, event)) for event in EVENTS):
                    found.notes.append(
                        (
                            "warn",
                            f"rewind's hooks are in {user} too: Cline runs both, every event "
                            "is recorded twice; uninstall one.",
                        )
                    )
        return found

    def probe(self, project: str, path: str) -> Probe:
        """A prompt, the editor tool on ``path`` (before and after), then the task's end, as
        the CLI 3.0.65 sends them."""

        def event(name: str, **fields: object) -> dict[str, object]:
            return {
                "clineVersion": "",
                "hookName": name,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "taskId": "rewind-doctor",
                "workspaceRoots": [project],
                "userId": "doctor",
                **fields,
            }

        arguments = {"path": path, "old_text": "before", "new_text": "after"}
        call = {"id": "doctor-1", "name": "editor", "input": arguments}
        return Probe(
            [
                ProbeStep(event("prompt_submit", userPromptSubmit={"prompt": "doctor"})),
                ProbeStep(event("tool_call", tool_call=call)),
                ProbeStep(
                    event("tool_result", tool_result={**call, "output": "ok"}), write="after\n"
                ),
                ProbeStep(event("agent_end", turn={"outputText": "", "status": "completed"})),
            ]
        )


def _is_ours(path: str) -> bool:
    text = _read(path)
    return bool(text) and command_of(text or "") is not None


def _executable(path: str) -> bool:
    return os.access(path, os.X_OK)


def _on_path() -> bool:
    import shutil

    return shutil.which("rewind") is not None


def mcp_settings(context: Context) -> str:
    """The Cline CLI's MCP settings (3.0.65): ``$CLINE_MCP_SETTINGS_PATH``, else
    ``settings/cline_mcp_settings.json`` in ``$CLINE_DATA_DIR``, else in ``data`` of
    ``$CLINE_DIR`` (else ``~/.cline``). No project has one: a repository cannot start servers."""
    named = os.environ.get("CLINE_MCP_SETTINGS_PATH", "").strip()
    if named:
        return named
    data = os.environ.get("CLINE_DATA_DIR", "").strip()
    if not data:
        cline = os.environ.get("CLINE_DIR", "").strip() or os.path.join(context.home, ".cline")
        data = os.path.join(cline, "data")
    return os.path.join(data, "settings", "cline_mcp_settings.json")


def mcp_files(scope: str, context: Context) -> list[JsonRegistration]:
    """The server, flat, as Cline reads it. Nothing is pre-approved: Cline drops
    ``autoApprove`` and approves every tool unless started with ``--auto-approve false``,
    when it asks for every one (docs/mcp.md)."""
    entry = server_entry(context, shared=False, type="stdio")
    server = JsonEntry(("mcpServers",), SERVER_NAME, entry)
    return [JsonRegistration(mcp_settings(context), (server,))]


TARGET = ClineHooks()
TARGET.mcp = JsonMcp(
    mcp_files, scopes=("user",), shared_scopes=(), advice="start Cline again to load the server"
)
