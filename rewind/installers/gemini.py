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
from rewind.installers import Change, Context, Probe, ProbeStep, owned_file
from rewind.installers.json_settings import JsonHooksTarget, command_groups
from rewind.installers.mcp_registration import JsonMcp, McpFound, servers_file
from rewind.installers.settings_file import JsonObject, SettingsFile
from rewind.mcp.names import READ_TOOLS, SERVER_NAME

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


# The read tools allowed by a rule of the user's policy tier (Gemini 0.61 reads no project's
# policy files). Not ``trust`` nor ``mcp.allowed``: each allows every tool of the server. In
# -p, a tool no rule allows is not even offered to the model.
POLICY = f"""\
# rewind's MCP server: its read tools run without asking (rewind install gemini --mcp --user).
# The tools that change files are not here: Gemini CLI asks for each call of them.
[[rule]]
mcpName = "{SERVER_NAME}"
toolName = [{", ".join(f'"{tool}"' for tool in READ_TOOLS)}]
decision = "allow"
priority = 100
"""


def policy_path(context: Context) -> str:
    return os.path.join(context.home, ".gemini", "policies", "rewind.toml")


class GeminiMcp(JsonMcp):
    """The server in the scope's settings.json; at the user's scope, the read tools allowed in
    a policy file of rewind's own. A project's folder must be trusted for Gemini to start any
    server, the user's included (doctor's trust line says whether it is)."""

    def check(self, scope: str, context: Context) -> None:
        super().check(scope, context)
        if scope == "user":
            owned_file.refuse_foreign(policy_path(context), POLICY)

    def install(self, scope: str, context: Context) -> list[Change]:
        changes = super().install(scope, context)
        if scope == "user":
            changes.append(owned_file.install(policy_path(context), POLICY))
        return changes

    def uninstall(self, scope: str, context: Context, recorded_only: bool = False) -> list[Change]:
        changes = []
        if scope == "user":
            changes.append(owned_file.uninstall(policy_path(context), POLICY))
        return changes + super().uninstall(scope, context, recorded_only)

    def inspect(self, scope: str, context: Context) -> McpFound:
        found = super().inspect(scope, context)
        if (
            found.registered
            and scope == "user"
            and not owned_file.present(policy_path(context), POLICY)
        ):
            found.notes.append(("info", f"{policy_path(context)}: missing; read tools ask"))
        return found


TARGET = Gemini("gemini", "Gemini CLI", PATHS, document, probe)
TARGET.mcp = GeminiMcp(
    servers_file(PATHS),
    advice="start Gemini CLI again in a trusted folder ('/mcp' lists the server)",
)
