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

Kilo Code's CLI is built on OpenCode and loads the same plugins: ``rewind install kilo`` writes
this plugin, running ``rewind hook kilo``, to ``.kilo/plugins/rewind.js`` or Kilo's own config
folder (``$XDG_CONFIG_HOME/kilo``), its first line naming Kilo (:class:`KiloPlugin`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
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


# The clients that load the plugin, by the name ``rewind install`` takes.
TITLES = {AGENT: "OpenCode", "kilo": "Kilo Code"}


def first_line(agent: str) -> str:
    """The plugin's first line, naming rewind and the agent it is installed for (the shipped
    one for OpenCode)."""
    if agent == AGENT:
        return shipped_plugin().split("\n", 1)[0]
    title = TITLES[agent]
    return f"// rewind: records {title}'s file edits; 'rewind uninstall {agent}' removes this file."


def plugin(command: str, agent: str = AGENT) -> str:
    """The plugin that runs ``command`` (a shell command line), installed for ``agent``."""
    lines = shipped_plugin().split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith(COMMAND_LINE)), None)
    if at is None:
        raise UserError("rewind's OpenCode plugin has no command line; reinstall rewind.")
    lines[at] = f"{COMMAND_LINE}{json.dumps(command)};"
    lines[0] = first_line(agent)
    return "\n".join(lines)


def command_of(text: str, agent: str = AGENT) -> str | None:
    """The command a plugin file of rewind's for ``agent`` runs (None when the file is not
    rewind's, or its command line cannot be read)."""
    if text.split("\n", 1)[0] != first_line(agent):
        return None
    for line in text.split("\n"):
        if line.startswith(COMMAND_LINE) and line.endswith(";"):
            try:
                command = json.loads(line[len(COMMAND_LINE) : -1])
            except ValueError:
                return None
            return command if isinstance(command, str) else None
    return None


def config_directory(context: Context, app: str = AGENT) -> str:
    """The client's own config folder: ``$XDG_CONFIG_HOME/APP``, else ``~/.config/APP``
    (``opencode``, ``kilo``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(context.home, ".config")
    return os.path.join(base, app)


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
    # The client's config folder's name (in the project, with a dot) and its environment's
    # prefix (PREFIX_DISABLE_PROJECT_CONFIG, PREFIX_PURE).
    app = "opencode"
    environment = "OPENCODE"
    # What the client itself writes into a config folder holding a plugin (said by install).
    installs_its_package = True

    def location(self, scope: str, context: Context) -> str:
        if scope == "user":
            return os.path.join(config_directory(context, self.app), "plugins", PLUGIN)
        return os.path.join(context.project, f".{self.app}", "plugins", PLUGIN)

    def wanted(self, scope: str, context: Context) -> str:
        command = context.hook_command(self.hook_agent, scope in self.shared_scopes)
        return plugin(command, self.name)

    def install(self, scope: str, context: Context) -> Change:
        path = self.location(scope, context)
        change = owned_file.install(path, self.wanted(scope, context))
        if not change.changed:  # a plugin edited by hand, kept: said whatever else is quiet
            change.notes = [f"warning: {note}" for note in change.notes]
            return change
        wanted = self.wanted(scope, context)
        change.notes.append(f"the plugin runs: {command_of(wanted, self.name)}")
        if self.installs_its_package:
            change.notes.append(
                f"{self.title} loads it at its next start, and installs its plugin package with "
                f"npm into {os.path.dirname(os.path.dirname(path))} first (package.json, "
                f"node_modules/: {self.title}'s own files, left there by uninstall)."
            )
        else:
            change.notes.append(f"{self.title} loads it at its next start.")
        other = "user" if scope == "project" else "project"
        if self._is_ours(self.location(other, context)):
            change.notes.append(
                f"rewind's plugin is also in {self.location(other, context)}; {self.title} "
                "loads both, and the plugin records each event once."
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
        command = command_of(text, self.name) if text else None
        # As rewind writes it with the command it runs (another rewind's path, at --user).
        command = command or context.hook_command(self.hook_agent)
        return owned_file.uninstall(path, plugin(command, self.name))

    def inspect(self, scope: str, context: Context) -> Inspection:
        path = self.location(scope, context)
        text = _read(path)
        found = Inspection(path, text is not None)
        command = command_of(text, self.name) if text else None
        title = self.title
        if command is None:
            found.missing.append("plugin")
            if text is not None:
                found.notes.append(("warn", f"{path} is not rewind's: {title} runs no rewind"))
            return found
        found.installed.append("plugin")
        found.commands.append(command)
        if text != plugin(command, self.name):
            found.different.append("plugin")
        disabled = f"{self.environment}_DISABLE_PROJECT_CONFIG"
        if scope == "project" and os.environ.get(disabled):
            found.notes.append(
                (
                    "warn",
                    f"{disabled} is set: {title} reads no .{self.app} folder, and loads no "
                    "plugin of the project's.",
                )
            )
        if os.environ.get(f"{self.environment}_PURE"):
            found.notes.append(
                ("warn", f"{self.environment}_PURE is set: {title} loads no plugin but its own.")
            )
        if scope == "project" and self._is_ours(self.location("user", context)):
            found.notes.append(
                (
                    "info",
                    f"rewind's plugin is in {self.location('user', context)} too: {title} "
                    "loads both, and the plugin records each event once.",
                )
            )
        return found

    def _is_ours(self, path: str) -> bool:
        text = _read(path)
        return bool(text) and command_of(text or "", self.name) is not None

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


def _on_path() -> bool:
    import shutil

    return shutil.which("rewind") is not None


class KiloPlugin(OpenCodePlugin):
    """Kilo Code's CLI: OpenCode's plugins, loaded from Kilo's own config folders."""

    name = "kilo"
    title = TITLES["kilo"]
    hook_agent = "kilo"
    app = "kilo"
    environment = "KILO"
    installs_its_package = False  # Kilo 7.7 writes only a .gitignore there


def config_file(folder: str, app: str = AGENT) -> str:
    """The config file of ``folder`` rewind edits: ``APP.jsonc`` when only that one is there,
    else ``APP.json`` (``opencode``, ``kilo``)."""
    json_file = os.path.join(folder, f"{app}.json")
    jsonc_file = os.path.join(folder, f"{app}.jsonc")
    if os.path.exists(jsonc_file) and not os.path.exists(json_file):
        return jsonc_file
    return json_file


def mcp_files_of(app: str) -> Callable[[str, Context], list[JsonRegistration]]:
    """The server under ``mcp`` (a local server: one ``command`` list) in the user's config or
    the project's ``APP.json``; its read tools allowed under ``permission`` (OpenCode names a
    server's tool ``SERVER_TOOL``; with no rule it allows every tool, and a person's ``"*":
    "ask"`` then asks for all but these). Kilo Code reads the same shape from ``kilo.json``."""

    def mcp_files(scope: str, context: Context) -> list[JsonRegistration]:
        folder = config_directory(context, app) if scope == "user" else context.project
        command = server_command(context, shared=scope == "project")
        entry = {"type": "local", "command": [command, "mcp"], "enabled": True}
        server = JsonEntry(("mcp",), SERVER_NAME, entry)
        allowed = tuple(
            JsonEntry(("permission",), f"{SERVER_NAME}_{tool}", "allow", setting=True)
            for tool in READ_TOOLS
        )
        return [JsonRegistration(config_file(folder, app), (server, *allowed))]

    return mcp_files


mcp_files = mcp_files_of(AGENT)

TARGET = OpenCodePlugin()
TARGET.mcp = JsonMcp(
    mcp_files, advice="start OpenCode again to load the server ('opencode mcp list' lists it)"
)
KILO_TARGET = KiloPlugin()
KILO_TARGET.mcp = JsonMcp(
    mcp_files_of("kilo"), advice="start Kilo again to load the server ('kilo mcp list' lists it)"
)
