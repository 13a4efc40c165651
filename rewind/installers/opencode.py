"""OpenCode: rewind's plugin, one JavaScript file OpenCode loads from a config folder's
``plugins/`` (read from 1.18.33): ``--project`` writes ``.opencode/plugins/rewind.js`` (found
from any folder of the work tree, meant to be committed), ``--user`` writes
``plugins/rewind.js`` in OpenCode's own config folder (``$XDG_CONFIG_HOME/opencode``, else
``~/.config/opencode``).

The file is ``hooks/opencode/rewind.js`` as shipped, byte for byte at ``--project`` (it runs
``rewind`` from PATH); at ``--user`` its one ``const COMMAND`` line runs this machine's rewind.
Its first line names rewind: a file of that name that is not rewind's is never overwritten or
deleted (:mod:`rewind.installers.owned_file`), and uninstall removes the file and the folders
install made for it, when nothing else is in them.

At its start OpenCode itself writes ``package.json``, ``package-lock.json``, ``.gitignore`` and
``node_modules/`` (its plugin package, from npm) into every config folder that holds a plugin:
those are OpenCode's, and uninstall leaves them (with them, the folder ``.opencode`` it made).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from rewind.errors import UserError
from rewind.installers import (
    Change,
    Context,
    Inspection,
    Probe,
    ProbeStep,
    Target,
    owned_file,
    path_advice,
)
from rewind.installers.mcp_json import JsonEntry, JsonRegistration
from rewind.installers.mcp_registration import JsonMcp, server_command
from rewind.mcp.names import READ_TOOLS, SERVER_NAME

AGENT = "opencode"
PLUGIN = "rewind.js"
# The plugin's one line that differs between scopes: the command it runs.
COMMAND_LINE = "const COMMAND = "
PACKAGE = Path(__file__).resolve().parent.parent


def shipped_plugin() -> str:
    """The plugin as shipped: in the installed package (``rewind/agent_configs``), else in the
    checkout rewind runs from (``hooks/``)."""
    for folder in (PACKAGE / "agent_configs", PACKAGE.parent / "hooks"):
        path = folder / AGENT / PLUGIN
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise UserError(
        "this rewind was installed without its agents' files (agent_configs); reinstall it from "
        "a wheel or a checkout, then run the command again."
    )


def plugin(command: str) -> str:
    """The plugin that runs ``command`` (a shell command line)."""
    lines = shipped_plugin().split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith(COMMAND_LINE)), None)
    if at is None:
        raise UserError("rewind's OpenCode plugin has no command line; reinstall rewind.")
    lines[at] = f"{COMMAND_LINE}{json.dumps(command)};"
    return "\n".join(lines)


def command_of(text: str) -> str | None:
    """The command a plugin file of rewind's runs (None when the file is not rewind's, or its
    command line cannot be read)."""
    if text.split("\n", 1)[0] != shipped_plugin().split("\n", 1)[0]:
        return None
    for line in text.split("\n"):
        if line.startswith(COMMAND_LINE) and line.endswith(";"):
            try:
                command = json.loads(line[len(COMMAND_LINE) : -1])
            except ValueError:
                return None
            return command if isinstance(command, str) else None
    return None


def config_directory(context: Context) -> str:
    """OpenCode's own config folder: ``$XDG_CONFIG_HOME/opencode``, else
    ``~/.config/opencode``."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(context.home, ".config")
    return os.path.join(base, "opencode")


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return ""


class OpenCodePlugin(Target):
    name = AGENT
    title = "OpenCode"
    scopes = ("user", "project")
    default_scope = "project"
    shared_scopes = ("project",)
    hook_agent = AGENT
    once_per_event = True  # the plugin serves each OpenCode instance once, however loaded

    def location(self, scope: str, context: Context) -> str:
        if scope == "user":
            return os.path.join(config_directory(context), "plugins", PLUGIN)
        return os.path.join(context.project, ".opencode", "plugins", PLUGIN)

    def wanted(self, scope: str, context: Context) -> str:
        return plugin(context.hook_command(AGENT, scope in self.shared_scopes))

    def install(self, scope: str, context: Context) -> Change:
        path = self.location(scope, context)
        change = owned_file.install(path, self.wanted(scope, context))
        if not change.changed:  # a plugin edited by hand, kept: said whatever else is quiet
            change.notes = [f"warning: {note}" for note in change.notes]
            return change
        change.notes.append(f"the plugin runs: {command_of(self.wanted(scope, context))}")
        change.notes.append(
            "OpenCode loads it at its next start, and installs its plugin package with npm into "
            f"{os.path.dirname(os.path.dirname(path))} first (package.json, node_modules/: "
            "OpenCode's own files, left there by uninstall)."
        )
        other = "user" if scope == "project" else "project"
        if _is_ours(self.location(other, context)):
            change.notes.append(
                f"rewind's plugin is also in {self.location(other, context)}; OpenCode loads "
                "both, and the plugin records each event once."
            )
        if scope in self.shared_scopes and not _on_path():
            change.notes.append(
                "warning: rewind is not on PATH here, and this plugin, meant to be committed, "
                f"runs 'rewind' from PATH: {path_advice(self)}."
            )
        return change

    def uninstall(self, scope: str, context: Context) -> Change:
        path = self.location(scope, context)
        text = _read(path)
        command = command_of(text) if text else None
        # As rewind writes it with the command it runs (another rewind's path, at --user).
        return owned_file.uninstall(path, plugin(command or context.hook_command(AGENT)))

    def inspect(self, scope: str, context: Context) -> Inspection:
        path = self.location(scope, context)
        text = _read(path)
        found = Inspection(path, text is not None)
        command = command_of(text) if text else None
        if command is None:
            found.missing.append("plugin")
            if text is not None:
                found.notes.append(("warn", f"{path} is not rewind's: OpenCode runs no rewind"))
            return found
        found.installed.append("plugin")
        found.commands.append(command)
        if text != plugin(command):
            found.different.append("plugin")
        if scope == "project" and os.environ.get("OPENCODE_DISABLE_PROJECT_CONFIG"):
            found.notes.append(
                (
                    "warn",
                    "OPENCODE_DISABLE_PROJECT_CONFIG is set: OpenCode reads no .opencode folder, "
                    "and loads no plugin of the project's.",
                )
            )
        if os.environ.get("OPENCODE_PURE"):
            found.notes.append(
                ("warn", "OPENCODE_PURE is set: OpenCode loads no plugin but its own.")
            )
        if scope == "project" and _is_ours(self.location("user", context)):
            found.notes.append(
                (
                    "info",
                    f"rewind's plugin is in {self.location('user', context)} too: OpenCode "
                    "loads both, and the plugin records each event once.",
                )
            )
        return found

    def probe(self, project: str, path: str) -> Probe:
        """A prompt, an edit of ``path`` (before and after) and the run's end, as the plugin
        sends them."""
        common: dict[str, object] = {
            "session_id": "ses_rewind_doctor",
            "cwd": project,
            "worktree": project,
        }
        call = {
            "tool_name": "edit",
            "tool_call_id": "toolu_doctor",
            "tool_input": {"filePath": path, "oldString": "before", "newString": "after"},
        }
        prompt = {"prompt": "doctor", "message_id": "msg_rewind_doctor"}
        return Probe(
            [
                ProbeStep({"event": "chat.message", **common, **prompt}, event="chat.message"),
                ProbeStep(
                    {"event": "tool.execute.before", **common, **call},
                    event="tool.execute.before",
                ),
                ProbeStep(
                    {"event": "tool.execute.after", **common, **call},
                    write="after\n",
                    event="tool.execute.after",
                ),
                ProbeStep({"event": "session.idle", **common}, event="session.idle"),
            ]
        )


def _is_ours(path: str) -> bool:
    text = _read(path)
    return bool(text) and command_of(text or "") is not None


def _on_path() -> bool:
    import shutil

    return shutil.which("rewind") is not None


def config_file(folder: str) -> str:
    """The config file of ``folder`` rewind edits: ``opencode.jsonc`` when only that one is
    there, else ``opencode.json``."""
    json_file = os.path.join(folder, "opencode.json")
    jsonc_file = os.path.join(folder, "opencode.jsonc")
    if os.path.exists(jsonc_file) and not os.path.exists(json_file):
        return jsonc_file
    return json_file


def mcp_files(scope: str, context: Context) -> list[JsonRegistration]:
    """The server under ``mcp`` (a local server: one ``command`` list) in the user's config or
    the project's ``opencode.json``; its read tools allowed under ``permission`` (OpenCode
    names a server's tool ``SERVER_TOOL``; with no rule it allows every tool, and a person's
    ``"*": "ask"`` then asks for all but these)."""
    folder = config_directory(context) if scope == "user" else context.project
    command = server_command(context, shared=scope == "project")
    entry = {"type": "local", "command": [command, "mcp"], "enabled": True}
    server = JsonEntry(("mcp",), SERVER_NAME, entry)
    allowed = tuple(
        JsonEntry(("permission",), f"{SERVER_NAME}_{tool}", "allow", setting=True)
        for tool in READ_TOOLS
    )
    return [JsonRegistration(config_file(folder), (server, *allowed))]


TARGET = OpenCodePlugin()
TARGET.mcp = JsonMcp(
    mcp_files, advice="start OpenCode again to load the server ('opencode mcp list' lists it)"
)
