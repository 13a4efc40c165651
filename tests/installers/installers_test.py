"""``rewind install`` / ``rewind uninstall``: real settings files in temporary directories,
edited through the real command line; the ready-made hooks under hooks/."""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

import rewind
from rewind._version import __version__
from rewind.installers import Change, Context, Target, hook_runner
from rewind.installers.registry import _registry as registry
from rewind.installers.registry import get_target, register, targets
from rewind.installers.rewind_hooks import is_rewind_hook
from tests.conftest import error_line, ok, run_rewind
from tests.support.paths import HOOKS, ROOT

AGENTS = ("claude-code", "codex", "gemini", "cursor")
PROJECT_FILES = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "cursor": ".cursor/hooks.json",
    "qwen": ".qwen/settings.json",
    "droid": ".factory/hooks.json",
}
READY_MADE = {
    "claude-code": "claude-code/hooks/hooks.json",
    "codex": "codex/hooks.json",
    "gemini": "gemini/settings.json",
    "cursor": "cursor/hooks.json",
    "qwen": "qwen/settings.json",
    "droid": "droid/hooks.json",
}
CLAUDE_EVENTS = ["UserPromptSubmit", "PreToolUse", "PostToolUse"]
CLAUDE_EVENTS += ["PostToolUseFailure", "Stop", "SessionEnd"]
# The events Claude Code posts to rewind's resident recorder (rewind.resident).
CLAUDE_HTTP_EVENTS = ["PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"]

# A Claude Code settings file with a life of its own: keys rewind has no business with, hooks of
# other tools (one in an event rewind also uses), in an order that is not alphabetical.
UNRELATED: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]},
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
    "env": {"FOO": "bär"},
    "cleanupPeriodDays": 30,
}


def expected_command(agent: str, scope: str = "project") -> str:
    """A file meant to be committed (--project) runs 'rewind' from PATH; the others this
    machine's rewind."""
    if scope == "project":
        return f"rewind hook {agent}"
    return f"{hook_runner()} hook {agent}"


def write_json(path: Path, data: object) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()
    path.write_bytes(text)
    return text


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def commands_in(data: Any) -> list[str]:
    """Every hook command of a settings document, in order (the events under ``hooks``, else
    at the top level, as Droid keeps them)."""
    found = []
    for items in data.get("hooks", data).values():
        for item in items if isinstance(items, list) else []:
            for hook in item.get("hooks", [item]):
                if hook.get("type") != "http":
                    found.append(hook["command"])
    return found


def resident_hook(timeout: int) -> dict[str, Any]:
    """Claude Code's HTTP hook to the resident recorder on this test's port."""
    return {
        "type": "http",
        "url": f"http://127.0.0.1:{os.environ['REWIND_RESIDENT_PORT']}/rewind/hook/claude-code",
        "timeout": timeout,
        "headers": {
            "X-Rewind-Home": "${REWIND_HOME}",
            "X-Rewind-Xdg-Data-Home": "${XDG_DATA_HOME}",
            "X-Rewind-User-Home": "${HOME}",
        },
        "allowedEnvVars": ["REWIND_HOME", "XDG_DATA_HOME", "HOME"],
    }


def as_commands(data: Any, command: str) -> Any:
    """``data`` with each HTTP hook to the resident replaced by a command hook running
    ``command`` (what the Claude Code plugin, which runs every event as a process, has)."""
    if isinstance(data, dict):
        if data.get("type") == "http":
            return {"type": "command", "command": command, "timeout": data["timeout"]}
        return {key: as_commands(value, command) for key, value in data.items()}
    if isinstance(data, list):
        return [as_commands(item, command) for item in data]
    return data


def with_command(data: Any, old: str, new: str) -> Any:
    return json.loads(json.dumps(data).replace(json.dumps(old), json.dumps(new)))


# installing ------------------------------------------------------------------------------------


def test_install_creates_the_file_with_the_whole_block(project: Path) -> None:
    result = ok("install", "claude-code")
    settings = project / ".claude" / "settings.json"
    data = read_json(settings)
    command = expected_command("claude-code")
    assert list(data) == ["hooks"]
    assert list(data["hooks"]) == CLAUDE_EVENTS
    matcher = "^(Edit|Write|MultiEdit|NotebookEdit|Bash|PowerShell)$"
    for event, groups in data["hooks"].items():
        timeout = 10 if event == "UserPromptSubmit" else 30
        hook = {"type": "command", "command": command, "timeout": timeout}
        if event in CLAUDE_HTTP_EVENTS:
            hook = resident_hook(timeout)
        tool_event = event.startswith(("PreToolUse", "PostToolUse"))
        group = {"matcher": matcher, "hooks": [hook]} if tool_event else {}
        group.setdefault("hooks", [hook])
        assert groups == [group], event
    lines = result.stdout.splitlines()
    assert lines[0] == f"claude-code: created {settings}"
    assert lines[1:7] == [f"  added    {event}" for event in CLAUDE_EVENTS]
    assert lines[7:] == [f"  the hooks run: {command}"]


def test_the_user_scope_runs_the_rewind_being_run(project: Path, isolated_home: Path) -> None:
    ok("install", "codex", "--user")
    commands = commands_in(read_json(isolated_home / ".codex" / "hooks.json"))
    # This interpreter without its site processing, on this package's __main__.py.
    assert set(commands) == {f"{hook_runner()} hook codex"}
    python, flag, script, *rest = shlex.split(commands[0])
    assert (python, flag, rest) == (sys.executable, "-S", ["hook", "codex"])
    assert script == os.path.join(os.path.dirname(rewind.__file__), "__main__.py")


def test_without_a_runner_the_hooks_run_the_rewind_being_run(tmp_path: Path) -> None:
    context = Context(str(tmp_path), str(tmp_path), "/opt/bin/rewind")
    assert context.hook_command("codex") == "/opt/bin/rewind hook codex"
    assert context.hook_command("codex", shared=True) == "rewind hook codex"
    runner = Context(str(tmp_path), str(tmp_path), "/opt/bin/rewind", "/py -S /r/__main__.py")
    assert runner.hook_command("codex") == "/py -S /r/__main__.py hook codex"
    assert runner.hook_command("codex", shared=True) == "rewind hook codex"


def test_install_keeps_every_other_key_and_hook_in_order(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    write_json(settings, UNRELATED)
    result = ok("install", "claude-code")
    data = read_json(settings)
    assert list(data) == list(UNRELATED)
    for key in UNRELATED:
        if key != "hooks":
            assert data[key] == UNRELATED[key]
    hooks = data["hooks"]
    # The events that were there keep their place; the new ones follow, in rewind's order.
    assert list(hooks) == ["PreToolUse", "Notification"] + [
        event for event in CLAUDE_EVENTS if event != "PreToolUse"
    ]
    assert hooks["Notification"] == UNRELATED["hooks"]["Notification"]
    assert hooks["PreToolUse"][0] == UNRELATED["hooks"]["PreToolUse"][0]
    assert len(hooks["PreToolUse"]) == 2
    assert hooks["PreToolUse"][1]["hooks"][0]["command"] == expected_command("claude-code")
    assert f"claude-code: updated {settings}" in result.stdout


def test_install_twice_changes_nothing(project: Path) -> None:
    for agent in AGENTS:
        ok("install", agent)
        path = project / PROJECT_FILES[agent]
        before = path.read_bytes()
        result = ok("install", agent)
        assert result.stdout == f"{agent}: already installed in {path}; nothing changed.\n"
        assert path.read_bytes() == before


def test_install_keeps_the_files_indentation_and_permissions(project: Path) -> None:
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n    "theme": "dark"\n}')
    settings.chmod(0o600)
    ok("install", "gemini")
    text = settings.read_text()
    assert text.startswith('{\n    "theme": "dark",\n    "hooks": {\n        "BeforeAgent"')
    assert not text.endswith("\n")  # it had no final newline
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def test_install_writes_through_a_symlink(project: Path, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    write_json(real, {"model": "sonnet"})
    link = project / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    ok("install", "claude-code")
    assert link.is_symlink()
    assert list(read_json(real)) == ["model", "hooks"]


def test_install_updates_an_older_rewind_entry_in_place(project: Path) -> None:
    old = "/old/venv/bin/rewind hook claude-code"
    settings = project / ".claude" / "settings.json"
    write_json(
        settings,
        {
            "hooks": {
                "Stop": [
                    {"hooks": [{"type": "command", "command": "./before.sh"}]},
                    {"hooks": [{"type": "command", "command": old, "timeout": 30}]},
                    {"hooks": [{"type": "command", "command": "./after.sh"}]},
                ]
            }
        },
    )
    result = ok("install", "claude-code")
    assert "  updated  Stop" in result.stdout.splitlines()
    stop = read_json(settings)["hooks"]["Stop"]
    assert [group["hooks"][0].get("command") for group in stop] == [
        "./before.sh",
        None,
        "./after.sh",
    ]
    assert stop[1]["hooks"] == [resident_hook(30)]  # posted to the resident now


def test_installing_again_retires_the_events_an_earlier_version_subscribed_to(
    project: Path,
) -> None:
    """Earlier versions also ran the Claude Code hook at SessionStart (it recorded nothing
    there): installing again takes that hook out; uninstalling leaves the lists the file had."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    command = expected_command("claude-code")
    older = {"type": "command", "command": command, "timeout": 30}
    theirs = {"type": "command", "command": "echo hello", "timeout": 5}
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "SessionStart": [{"hooks": [older]}, {"hooks": [theirs]}],
                    "Stop": [{"hooks": [older]}],
                }
            }
        )
    )
    result = ok("install", "claude-code")
    assert "  removed  SessionStart" in result.stdout.splitlines()
    hooks = read_json(settings)["hooks"]
    assert hooks["SessionStart"] == [{"hooks": [theirs]}]  # theirs stays
    assert sorted(hooks) == sorted(["SessionStart", *CLAUDE_EVENTS])
    ok("uninstall", "claude-code")
    assert read_json(settings) == {"hooks": {"SessionStart": [{"hooks": [theirs]}], "Stop": []}}


def test_gemini_timeouts_are_milliseconds_and_cursor_has_a_version(project: Path) -> None:
    ok("install", "gemini")
    ok("install", "cursor")
    gemini = read_json(project / ".gemini" / "settings.json")["hooks"]
    assert list(gemini) == [
        "BeforeAgent",
        "BeforeTool",
        "AfterTool",
        "AfterAgent",
        "SessionEnd",
    ]
    assert {group["hooks"][0]["timeout"] for groups in gemini.values() for group in groups} == {
        30000
    }
    assert gemini["BeforeTool"][0]["matcher"] == "write_file|replace|run_shell_command"
    cursor = read_json(project / ".cursor" / "hooks.json")
    assert cursor["version"] == 1
    assert list(cursor["hooks"]) == [
        "beforeSubmitPrompt",
        "preToolUse",
        "postToolUse",
        "postToolUseFailure",
        "afterFileEdit",
        "beforeShellExecution",
        "afterShellExecution",
        "stop",
    ]
    assert cursor["hooks"]["stop"] == [{"command": expected_command("cursor")}]
    assert cursor["hooks"]["preToolUse"] == [
        {"command": expected_command("cursor"), "matcher": "Write|Delete"}
    ]


def test_codex_hooks_match_its_edit_and_shell_tools(project: Path) -> None:
    ok("install", "codex")
    hooks = read_json(project / ".codex" / "hooks.json")["hooks"]
    events = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]
    assert list(hooks) == [*events, "SessionEnd"]
    matcher = "^(apply_patch|Edit|Write|shell|Bash|local_shell|exec_command)$"
    assert hooks["PreToolUse"][0]["matcher"] == hooks["PostToolUse"][0]["matcher"] == matcher
    # Codex clamps a SessionEnd hook's timeout to 3 s (with a warning above it).
    assert hooks["SessionEnd"][0]["hooks"][0]["timeout"] == 3
    assert set(read_json(project / ".codex" / "hooks.json")) == {"hooks"}  # all Codex allows


def test_claude_code_records_failed_tool_calls_and_powershell(project: Path) -> None:
    ok("install", "claude-code")
    hooks = read_json(project / ".claude" / "settings.json")["hooks"]
    matcher = "^(Edit|Write|MultiEdit|NotebookEdit|Bash|PowerShell)$"
    for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        assert hooks[event][0]["matcher"] == matcher


def test_gemini_keeps_a_hooks_switch_that_is_not_an_event(project: Path) -> None:
    settings = project / ".gemini" / "settings.json"
    original = write_json(settings, {"hooks": {"enabled": True, "disabled": []}})
    ok("install", "gemini")
    data = read_json(settings)
    assert list(data["hooks"])[:2] == ["enabled", "disabled"]
    assert data["hooks"]["enabled"] is True and data["hooks"]["disabled"] == []
    ok("uninstall", "gemini")
    assert settings.read_bytes() == original


def test_droid_events_are_top_level_keys_and_its_switch_is_heeded(project: Path) -> None:
    """Droid reads its events at the top of hooks.json (a "hooks" wrapper would run nothing),
    beside ``hooksDisabled``, which turns them all off."""
    path = project / ".factory" / "hooks.json"
    notify = {"hooks": [{"type": "command", "command": "notify-send droid"}]}
    original = write_json(path, {"hooksDisabled": True, "Notification": [notify]})
    result = ok("install", "droid")
    data = read_json(path)
    assert "hooks" not in data
    assert list(data)[:2] == ["hooksDisabled", "Notification"] and data["Notification"] == [notify]
    assert data["PreToolUse"][0]["matcher"] == "^(Create|Edit|ApplyPatch|Execute)$"
    assert "hooksDisabled is true, so Droid runs no hook; remove it." in result.stdout
    ok("uninstall", "droid")
    assert path.read_bytes() == original


# scopes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agent", "option", "relative"),
    [
        ("claude-code", "--user", "HOME/.claude/settings.json"),
        ("claude-code", "--project", "PROJECT/.claude/settings.json"),
        ("claude-code", "--local", "PROJECT/.claude/settings.local.json"),
        ("codex", "--user", "HOME/.codex/hooks.json"),
        ("codex", "--project", "PROJECT/.codex/hooks.json"),
        ("gemini", "--user", "HOME/.gemini/settings.json"),
        ("gemini", "--project", "PROJECT/.gemini/settings.json"),
        ("cursor", "--user", "HOME/.cursor/hooks.json"),
        ("cursor", "--project", "PROJECT/.cursor/hooks.json"),
        ("droid", "--user", "HOME/.factory/hooks.json"),
        ("droid", "--project", "PROJECT/.factory/hooks.json"),
    ],
)
def test_each_scope_has_its_file(
    project: Path, isolated_home: Path, agent: str, option: str, relative: str
) -> None:
    base, _, rest = relative.partition("/")
    path = (isolated_home if base == "HOME" else project) / rest
    subdirectory = project / "src" / "deep"
    subdirectory.mkdir(parents=True)
    result = ok("install", agent, option, cwd=subdirectory)  # the project root, not the cwd
    assert result.stdout.splitlines()[0] == f"{agent}: created {path}"
    assert commands_in(read_json(path)) and not (subdirectory / rest).exists()
    rewind_home = isolated_home / "rewind-home"
    others = [
        p
        for p in (isolated_home, project)
        for p in p.rglob("*.json")
        if p != path and rewind_home not in p.parents
    ]
    assert others == []
    result = ok("uninstall", agent, option, cwd=subdirectory)
    assert result.stdout.splitlines()[0] == f"{agent}: updated {path}"
    assert result.stdout.splitlines()[-1] == f"  deleted  {path}"
    assert not path.exists() and not path.parent.exists()


def test_the_default_scope_is_the_project(project: Path) -> None:
    ok("install", "cursor")
    assert (project / ".cursor" / "hooks.json").exists()


@pytest.mark.parametrize("agent", ["codex", "gemini", "cursor"])
def test_local_is_only_for_claude_code(project: Path, agent: str) -> None:
    line = error_line(run_rewind("install", agent, "--local"))
    assert line == f"rewind: {agent} has no --local settings; use --user or --project."
    assert list(project.iterdir()) == [project / ".git"]


def test_scopes_are_exclusive_and_agents_known(project: Path) -> None:
    line = error_line(run_rewind("install", "claude-code", "--user", "--project"))
    assert "not allowed with argument" in line
    line = error_line(run_rewind("install", "vim"))
    assert line.startswith("rewind: unknown target 'vim' (one of claude-code, codex"), line
    assert list(project.iterdir()) == [project / ".git"]


# refusing --------------------------------------------------------------------------------------


@pytest.mark.parametrize("verb", ["install", "uninstall"])
@pytest.mark.parametrize(
    "content",
    ['{"hooks": {', "[1, 2]", '{"hooks": []}', '{"hooks": {"Stop": {"x": 1}}}'],
    ids=["truncated", "not-an-object", "hooks-not-an-object", "event-not-a-list"],
)
def test_a_file_rewind_cannot_edit_is_refused(project: Path, verb: str, content: str) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(content)
    result = run_rewind(verb, "claude-code")
    if verb == "uninstall" and content == '{"hooks": {"Stop": {"x": 1}}}':
        # Nothing of rewind's to remove: the odd event is left alone.
        assert result.returncode == 0, result
    else:
        line = error_line(result)
        assert str(settings) in line
        assert "fix it" in line
    assert settings.read_text() == content
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def test_an_empty_file_is_an_empty_object(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("\n")
    ok("install", "claude-code")
    assert list(read_json(settings)["hooks"]) == CLAUDE_EVENTS


# uninstalling ----------------------------------------------------------------------------------


@pytest.mark.parametrize("agent", AGENTS)
def test_uninstall_gives_back_the_file_as_it_was(project: Path, agent: str) -> None:
    path = project / PROJECT_FILES[agent]
    original_data = dict(UNRELATED)
    if agent == "cursor":
        original_data = {
            "version": 1,
            "hooks": {"afterFileEdit": [{"command": "prettier --write"}]},
            "x": [1],
        }
    original = write_json(path, original_data)
    ok("install", agent)
    assert path.read_bytes() != original
    result = ok("uninstall", agent)
    assert path.read_bytes() == original
    assert result.stdout.splitlines()[0] == f"{agent}: updated {path}"
    assert all(line.startswith("  removed  ") for line in result.stdout.splitlines()[1:])
    result = ok("uninstall", agent)
    assert result.stdout == f"{agent}: no rewind hooks in {path}; nothing changed.\n"
    assert path.read_bytes() == original


def test_uninstall_after_a_fresh_install_leaves_an_empty_file_empty(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{}\n")
    ok("install", "claude-code")
    ok("uninstall", "claude-code")
    assert settings.read_bytes() == b"{}\n"


def test_uninstall_of_a_missing_file_writes_nothing(project: Path) -> None:
    result = ok("uninstall", "codex")
    path = project / ".codex" / "hooks.json"
    assert result.stdout == f"codex: no rewind hooks in {path}; nothing changed.\n"
    assert not path.parent.exists()


def test_uninstall_removes_only_rewind_hooks_of_that_agent(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    mine = {"type": "command", "command": "./format.sh"}
    write_json(
        settings,
        {
            "hooks": {
                "PostToolUse": [
                    {
                        "matcher": "Edit",
                        "hooks": [
                            mine,
                            {
                                "type": "command",
                                "command": "'/opt/my tools/rewind' hook claude-code",
                            },
                        ],
                    },
                    {"hooks": [{"type": "command", "command": "rewind hook codex"}]},
                    {"hooks": [{"type": "command", "command": "rewind-notes hook claude-code"}]},
                ],
                "Stop": [{"hooks": [{"type": "command", "command": "rewind hook claude-code"}]}],
            }
        },
    )
    result = ok("uninstall", "claude-code")
    assert result.stdout.splitlines()[1:] == ["  removed  PostToolUse", "  removed  Stop"]
    assert read_json(settings) == {
        "hooks": {
            "PostToolUse": [
                {"matcher": "Edit", "hooks": [mine]},
                {"hooks": [{"type": "command", "command": "rewind hook codex"}]},
                {"hooks": [{"type": "command", "command": "rewind-notes hook claude-code"}]},
            ]
        }
    }


@pytest.mark.parametrize(
    ("command", "ours"),
    [
        ("rewind hook claude-code", True),
        ("/home/u/.local/bin/rewind hook claude-code", True),
        ("'/opt/my tools/rewind' hook claude-code", True),
        ("python -m rewind hook claude-code", True),
        ("rewind hook claude-code  ", True),
        ("rewind hook codex", False),
        ("rewind hook claude-code-extra", False),
        ("myrewind hook claude-code", False),
        ("rewind hook claude-code && echo", False),
    ],
)
@pytest.mark.unit
def test_which_commands_are_rewinds(command: str, ours: bool) -> None:
    assert is_rewind_hook({"command": command}, "claude-code") is ours


# the ready-made configurations -----------------------------------------------------------------


@pytest.mark.parametrize("agent", READY_MADE)
def test_ready_made_files_are_what_install_writes(project: Path, agent: str) -> None:
    """hooks/ must not drift from the installers: the same document but the command."""
    ok("install", agent)
    installed = read_json(project / PROJECT_FILES[agent])
    installed = with_command(installed, expected_command(agent), f"rewind hook {agent}")
    ready = read_json(HOOKS / READY_MADE[agent])
    if agent == "claude-code":
        assert isinstance(ready.pop("description"), str)
        # The plugin has no settings file the hooks could find the resident's port in: every
        # event is a process.
        installed = as_commands(installed, f"rewind hook {agent}")
    # A file people copy names the default port (this test's install, its own).
    port = os.environ["REWIND_RESIDENT_PORT"]
    installed = json.loads(json.dumps(installed).replace(f"127.0.0.1:{port}/", "127.0.0.1:47811/"))
    assert ready == installed


@pytest.mark.unit
def test_the_claude_code_plugin_is_complete() -> None:
    plugin = HOOKS / "claude-code"
    manifest = read_json(plugin / ".claude-plugin" / "plugin.json")
    assert manifest["name"] == "rewind"
    assert manifest["version"] == __version__
    assert manifest["description"]
    command = (plugin / "commands" / "rewind-files.md").read_text()
    front, body = command.removeprefix("---\n").split("\n---\n", 1)
    assert "description:" in front and "allowed-tools:" in front
    assert "$ARGUMENTS" in body
    for used in ("rewind log", "--dry-run", "--yes", "rewind undo"):
        assert used in body


@pytest.mark.unit
@pytest.mark.parametrize("marketplace", [ROOT, HOOKS], ids=["the repository", "hooks"])
def test_the_marketplaces_list_the_claude_code_plugin(marketplace: Path) -> None:
    """The repository is a marketplace, and so is hooks/ on its own (the installed package's
    copy of it): each lists the one plugin, by a path from its own root."""
    listing = read_json(marketplace / ".claude-plugin" / "marketplace.json")
    assert listing["name"] == "rewind" and listing["owner"]["name"]
    [entry] = listing["plugins"]
    assert entry["name"] == "rewind"
    assert entry["source"].startswith("./")
    assert (marketplace / entry["source"]).resolve() == HOOKS / "claude-code"


@pytest.mark.unit
def test_hooks_has_a_folder_for_each_agent() -> None:
    folders = sorted(path.name for path in HOOKS.iterdir() if path.is_dir())
    folders.remove(".claude-plugin")
    # Kilo Code loads OpenCode's plugin (hooks/opencode).
    assert folders == sorted(name for name in targets() if name not in ("git-hook", "kilo"))


# the registry ----------------------------------------------------------------------------------


class Recorder(Target):
    """A target that only says what it would do."""

    name = "recorder"
    title = "a test target"
    scopes = ("project",)

    def location(self, scope: str, context: Context) -> str:
        return os.path.join(context.project, "recorder.txt")

    def install(self, scope: str, context: Context) -> Change:
        path = self.location(scope, context)
        return Change(path, created=True, items=[("added", context.hook_command("x"))])

    def uninstall(self, scope: str, context: Context) -> Change:
        return Change(self.location(scope, context))


@pytest.mark.unit
def test_the_agents_are_registered_first_in_order() -> None:
    assert list(targets())[:4] == list(AGENTS)
    assert get_target("codex").scopes == ("user", "project")
    assert get_target("claude-code").scopes == ("user", "project", "local")


def test_another_module_can_register_a_target(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rewind.cli import main

    register(Recorder())
    try:
        with pytest.raises(ValueError):
            register(Recorder())
        assert main(["install", "recorder"]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0] == f"recorder: created {project.resolve() / 'recorder.txt'}"
        assert out[1].startswith("  added    ") and out[1].endswith(" hook x")
        assert main(["uninstall", "recorder"]) == 0
        assert capsys.readouterr().out.startswith("recorder: no rewind hooks in ")
        assert main(["install", "recorder", "--user"]) == 1
        assert "recorder has no --user settings; use --project." in capsys.readouterr().err
    finally:
        registry.pop("recorder")


def test_install_warns_when_claude_code_hooks_are_all_disabled(
    project: Path, isolated_home: Path
) -> None:
    user = isolated_home / ".claude" / "settings.json"
    write_json(user, {"disableAllHooks": True})
    warning = f"  warning: {user}: disableAllHooks is true, so Claude Code runs no hook; remove it."
    assert ok("install", "claude-code").stdout.splitlines()[-1] == warning
    again = ok("install", "claude-code").stdout.splitlines()
    assert again[-1] == warning and again[0].endswith("nothing changed.")
    write_json(user, {"disableAllHooks": False})
    (project / ".gitignore").write_text(".claude/settings.local.json\n")  # as Claude Code does
    assert "warning" not in ok("install", "claude-code", "--local").stdout


def test_a_local_settings_file_git_would_commit_is_pointed_out(project: Path) -> None:
    """.claude/settings.local.json holds this machine's paths: rewind says when git would
    commit it (it never edits the user's git files itself)."""
    warning = "warning: git neither tracks nor ignores .claude/settings.local.json"
    assert warning in ok("install", "claude-code", "--local").stdout
    ok("uninstall", "claude-code", "--local")
    (project / ".gitignore").write_text(".claude/settings.local.json\n")
    assert warning not in ok("install", "claude-code", "--local").stdout
    assert not (project / ".git" / "info" / "exclude").read_text().count("settings.local")


# The events whose hook waits at most for the prompt's barrier (SessionStart: for nothing).
PROMPT_EVENTS = frozenset({"UserPromptSubmit", "BeforeAgent", "SessionStart"})


@pytest.mark.parametrize("agent", ["claude_code", "codex", "gemini", "qwen", "droid", "copilot"])
def test_a_hook_waits_for_the_watcher_at_most_half_the_time_its_agent_gives_it(agent: str) -> None:
    """An agent ends a hook that outlives the timeout rewind installs for it: a prompt's hook
    ended while it waits for the watcher's barrier would begin no turn. Every wait the hooks
    make (rewind.watch.capture) is at most half of the timeout of the events that make it."""
    import importlib

    from rewind.watch.capture import BARRIER_TIMEOUT, SESSION_END_TIMEOUT, TURN_START_TIMEOUT

    module = importlib.import_module(f"rewind.installers.{agent}")
    if agent == "copilot":
        events = [(event, module.TIMEOUT_SECONDS) for event, _ in module.EVENTS]
    else:
        scale = 1000 if agent == "gemini" else 1  # Gemini CLI's are in milliseconds
        events = [(entry[0], entry[2] / scale) for entry in module.EVENTS]
    assert events
    for event, seconds in events:
        wait = TURN_START_TIMEOUT if event in PROMPT_EVENTS else BARRIER_TIMEOUT
        if agent == "codex" and event == "SessionEnd":
            wait = SESSION_END_TIMEOUT  # rewind.hooks.codex: Codex gives it 3 s at most
        assert 2 * wait <= seconds, (event, seconds)
