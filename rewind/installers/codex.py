"""OpenAI Codex CLI: hooks in ``hooks.json``, in Claude Code's shape (read from Codex 0.171.0:
only ``description`` and ``hooks`` at the top level, so nothing else is added).

Codex runs a hook only once someone has trusted it, and reads a project's ``.codex/`` only in
a trusted project (rewind.installers.codex_trust): install says what to accept, doctor says
what is accepted. Trust is recorded by the hook's position, so install appends rewind's groups
after the others (hook_blocks), never before them.

SessionStart records nothing, so it is not subscribed (each hook is a process Codex waits for;
earlier versions subscribed to it, and installing again takes that hook out).
"""

from __future__ import annotations

import os

from rewind.installers import Change, Context, Inspection, Probe, ProbeStep, codex_trust
from rewind.installers.codex_mcp import CodexMcp
from rewind.installers.json_settings import JsonHooksTarget, command_groups
from rewind.installers.rewind_hooks import is_rewind_hook
from rewind.installers.settings_file import JsonObject, SettingsFile
from rewind.store.input_limits import load_toml

MATCHER = "^(apply_patch|Edit|Write|shell|Bash|local_shell|exec_command)$"
EVENTS = (
    ("UserPromptSubmit", None, 10),
    ("PreToolUse", MATCHER, 30),
    ("PostToolUse", MATCHER, 30),
    ("Stop", None, 30),
    # Codex gives SessionEnd hooks 1 s unless told, 3 s at most.
    ("SessionEnd", None, codex_trust.SHORT_MAX_TIMEOUT),
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
    def install(self, scope: str, context: Context) -> Change:
        change = super().install(scope, context)
        if change.changed:
            change.notes.extend(trust_advice(scope, context))
        return change

    def trust(self, context: Context) -> list[tuple[str, str]]:
        """Per file holding rewind's hooks: whether Codex trusts them (and, for the project's
        file, the project)."""
        config = codex_trust.read_config(context.home)
        config_path = os.path.join(codex_trust.codex_home(context.home), "config.toml")
        findings: list[tuple[str, str]] = []
        for scope in self.scopes:
            path = self.location(scope, context)
            hooks = codex_trust.hook_trust(path, config)
            if not hooks:
                continue
            if scope == "project":
                findings.append(_project_finding(context.project, config, config_path))
            findings.extend(_hook_findings(path, hooks, config_path))
        return findings

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
    try:
        notify = load_toml(path).get("notify")
    except (OSError, ValueError):  # not UTF-8 or TOML, or past the limits
        return ""
    if not isinstance(notify, list) or not all(isinstance(word, str) for word in notify):
        return ""
    return " ".join(notify)


def trust_advice(scope: str, context: Context) -> list[str]:
    """What the person must accept before Codex runs the hooks just installed."""
    notes = [
        "Codex runs new or changed hooks only once you trust them: start codex and choose "
        "'Trust all and continue' when it says 'Hooks need review' (or review them in /hooks); "
        "'codex exec' runs untrusted hooks only with --dangerously-bypass-hook-trust."
    ]
    if scope == "project":
        found = codex_trust.project_trust(context.project, codex_trust.read_config(context.home))
        if found is None or found[0] != "trusted":
            notes.append(
                "Codex reads .codex/ only in a trusted project: trust this one when codex asks "
                "(or run 'codex exec --trust' once)."
            )
    notes.append("'rewind doctor' tells whether Codex trusts them.")
    return notes


def _project_finding(project: str, config: dict[str, object], config_path: str) -> tuple[str, str]:
    found = codex_trust.project_trust(project, config)
    if found is not None and found[0] == "trusted":
        return ("ok", f"Codex trusts the project ({found[1]} in {config_path})")
    if found is not None:
        state = f"is marked {found[0]!r} ({found[1]} in {config_path})"
        advice = 'change trust_level to "trusted" there'
    else:
        state = f"is not trusted (no projects entry in {config_path})"
        advice = "trust it when codex asks, or run 'codex exec --trust' once"
    return (
        "warn",
        f"the project {state}, so Codex ignores its .codex/hooks.json; {advice}.",
    )


def _hook_findings(
    path: str, hooks: list[codex_trust.HookTrust], config_path: str
) -> list[tuple[str, str]]:
    by_status: dict[str, list[str]] = {}
    for hook in hooks:
        by_status.setdefault(hook.status, []).append(hook.event)
    if set(by_status) == {codex_trust.TRUSTED}:
        return [("ok", f"{path}: Codex trusts rewind's {len(hooks)} hooks ({config_path})")]
    findings = []
    review = (
        "start codex and choose 'Trust all and continue' at 'Hooks need review' (or use "
        "/hooks); 'codex exec' needs --dangerously-bypass-hook-trust"
    )
    for status in (codex_trust.NOT_REVIEWED, codex_trust.CHANGED):
        if status in by_status:
            events = ", ".join(by_status[status])
            findings.append(
                ("warn", f"{path}: {events} {status}; Codex runs no untrusted hook: {review}.")
            )
    if codex_trust.TURNED_OFF in by_status:
        events = ", ".join(by_status[codex_trust.TURNED_OFF])
        findings.append(
            (
                "warn",
                f"{path}: {events} turned off in Codex (enabled = false in {config_path}); "
                "turn them on in /hooks.",
            )
        )
    return findings


TARGET = Codex("codex", "Codex", PATHS, document, probe)
TARGET.mcp = CodexMcp()
