"""Where an agent reads MCP servers, per scope, and what ``rewind install AGENT --mcp`` writes
there: rewind's server (``rewind mcp``) and, where the agent allows it, its read tools
pre-approved; the tools that change files never are (docs/mcp.md).

An agent's target carries its :class:`McpRegistration` as ``target.mcp`` (None: the agent has
none rewind knows). :class:`JsonMcp` serves the agents whose settings are JSON, through
:mod:`rewind.installers.mcp_json`; Codex's TOML has its own (rewind.installers.codex_mcp).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from rewind.errors import UserError
from rewind.installers import Change, Context, Target, mcp_json
from rewind.installers.mcp_json import JsonEntry, JsonRegistration
from rewind.mcp.names import SERVER_NAME, missing_sdk


def server_command(context: Context, shared: bool) -> str:
    """The program the agent starts: ``rewind`` from PATH in a file meant to be committed, else
    the path of the ``rewind`` being run."""
    if shared:
        return "rewind"
    words = shlex.split(context.rewind)
    return words[0] if words else "rewind"


def server_entry(context: Context, shared: bool, **extra: object) -> dict[str, object]:
    """The server's entry, in the shape most agents share (``extra``: an agent's own keys)."""
    return {"command": server_command(context, shared), "args": ["mcp"], **extra}


@dataclass
class McpFound:
    """What ``rewind doctor`` found at one scope: the files, whether rewind's server is in
    them, the command it runs, and findings such as read tools not pre-approved."""

    paths: list[str]
    registered: bool
    command: list[str] = field(default_factory=list)
    problem: str = ""
    notes: list[tuple[str, str]] = field(default_factory=list)


class McpRegistration:
    """An agent's MCP settings; see the module's documentation."""

    scopes: tuple[str, ...] = ("user", "project")
    shared_scopes: tuple[str, ...] = ("project",)
    # What the person still has to do once the files are written (a restart, an approval).
    advice = ""

    def check(self, scope: str, context: Context) -> None:
        """Raises the user error install would, before anything is written (the hooks are
        installed first)."""
        raise NotImplementedError

    def install(self, scope: str, context: Context) -> list[Change]:
        raise NotImplementedError

    def uninstall(self, scope: str, context: Context, recorded_only: bool = False) -> list[Change]:
        """Takes the server out; ``recorded_only``: only what an install on this machine is on
        record for (the hooks' uninstall takes the server out on its way, never a server
        someone registered by hand)."""
        raise NotImplementedError

    def inspect(self, scope: str, context: Context) -> McpFound:
        raise NotImplementedError


class JsonMcp(McpRegistration):
    """An agent whose MCP settings are JSON: ``files(scope, context)`` gives the
    registrations, the server's first."""

    def __init__(
        self,
        files: Callable[[str, Context], list[JsonRegistration]],
        scopes: tuple[str, ...] = ("user", "project"),
        shared_scopes: tuple[str, ...] = ("project",),
        advice: str = "",
    ) -> None:
        self.files = files
        self.scopes = scopes
        self.shared_scopes = shared_scopes
        self.advice = advice

    def check(self, scope: str, context: Context) -> None:
        for one in self.files(scope, context):
            mcp_json.refuse_conflicts(one)

    def install(self, scope: str, context: Context) -> list[Change]:
        return [mcp_json.install(one) for one in self.files(scope, context)]

    def uninstall(self, scope: str, context: Context, recorded_only: bool = False) -> list[Change]:
        files = reversed(self.files(scope, context))
        return [mcp_json.uninstall(one, recorded_only) for one in files]

    def inspect(self, scope: str, context: Context) -> McpFound:
        registrations = self.files(scope, context)
        found = McpFound([one.path for one in registrations], registered=False)
        for one in registrations:
            try:
                server, missing = mcp_json.inspect(one)
            except UserError as error:
                found.problem = str(error)
                return found
            if isinstance(server, dict):
                found.registered = True
                command, arguments = server.get("command"), server.get("args")
                words = command if isinstance(command, list) else [command, *(arguments or [])]
                found.command = [str(word) for word in words]
            if missing and found.registered:
                found.notes.append(("info", f"{one.path}: not pre-approved: {', '.join(missing)}"))
        return found


def servers_file(
    paths: dict[str, str], approved: JsonEntry | None = None, **extra: object
) -> Callable[[str, Context], list[JsonRegistration]]:
    """The registration of an agent that reads ``{"mcpServers": {NAME: ENTRY}}`` from one file
    per scope (``paths``: relative to the home directory for ``user``, else to the project),
    ``extra`` in the entry; ``approved``: an entry of the server's that pre-approves tools."""

    def files(scope: str, context: Context) -> list[JsonRegistration]:
        base = context.home if scope == "user" else context.project
        entry = server_entry(context, scope == "project", **extra)
        server = JsonEntry(("mcpServers",), SERVER_NAME, entry)
        entries = (server,) if approved is None else (server, approved)
        return [JsonRegistration(os.path.join(base, paths[scope]), entries)]

    return files


def registration_of(target: Target, scope: str | None) -> tuple[McpRegistration, str]:
    """The target's MCP registration and the scope to use; a user error when the agent has
    none, or not at that scope, or when the server could not start (no ``mcp`` package)."""
    registration = target.mcp
    if registration is None:
        raise UserError(f"rewind does not register its MCP server for {target.name} yet.")
    chosen = scope or target.default_scope
    if chosen not in registration.scopes:
        accepted = " or ".join(f"--{name}" for name in registration.scopes)
        raise UserError(f"{target.name} reads no MCP server at --{chosen}; use {accepted}.")
    return registration, chosen


def require_server_package() -> None:
    """Refuses to register a server that could not start here."""
    try:
        found = importlib.util.find_spec("mcp") is not None
    except (ImportError, ValueError):  # a broken or half-installed package
        found = False
    if not found:
        raise UserError(missing_sdk("run this again"))
