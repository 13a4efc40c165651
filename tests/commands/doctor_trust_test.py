"""``rewind doctor`` on whether each agent will run rewind's hooks in the project: Codex's hook
and project trust (``~/.codex/config.toml``), Claude Code's folder trust (``~/.claude.json``),
Gemini CLI's (``~/.gemini/trustedFolders.json``), read from files laid out as the clients
(Codex 0.171.0, Claude Code 2.1.332, Gemini CLI 0.61.0) write them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewind.installers.codex_trust import trusted_hash
from tests.commands.doctor_test import doctor
from tests.conftest import ok

# The hashes Codex 0.171.0 itself computed ('codex app-server', hooks/list: currentHash) for the
# hooks 'rewind install codex' writes in a project's .codex/hooks.json.
CODEX_HASHES = {
    "pre_tool_use": "sha256:60f5fe8f97cd177675dae233576df3fffc9e5800f1296ca4a50606de4904c5e3",
    "post_tool_use": "sha256:9f7dc183bbc1b879bc42c275fe69efb76e6b14281846ccedb8a0bf66f81e9504",
    "session_end": "sha256:15320d069c1186d674e2e76d08bb181d9a194dff3ceba0b7ed85bef9fb894369",
    "user_prompt_submit": "sha256:a147e81be7f2dd3fbfdc522a5e83ac50f1cc044c7261f1c0a9a95248ae04f480",
    "stop": "sha256:1ac6bd1cbff70e2c1eedcc83d9dc635f7efed0e03f90d436811adc4f309ab9ce",
}
EVENTS = {
    "pre_tool_use": "PreToolUse",
    "post_tool_use": "PostToolUse",
    "session_end": "SessionEnd",
    "user_prompt_submit": "UserPromptSubmit",
    "stop": "Stop",
}


def trust_lines(project: Path, agent: str) -> list[tuple[str, str]]:
    _, found = doctor(project)
    return [
        (level, message)
        for level, target, where, message in found
        if where == "trust" and target == agent
    ]


def codex_config(home: Path, project: Path, hashes: dict[str, str], extra: str = "") -> None:
    """config.toml as Codex writes it once the person trusted the project and the hooks."""
    lines = ['model = "gpt-5-codex"', "", f'[projects."{project}"]', 'trust_level = "trusted"', ""]
    for event, value in hashes.items():
        lines += [f'[hooks.state."{project}/.codex/hooks.json:{event}:0:0"]']
        lines += [f'trusted_hash = "{value}"', ""]
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex" / "config.toml").write_text("\n".join(lines) + extra)


def test_the_hash_is_the_one_codex_computes(project: Path) -> None:
    ok("install", "codex")
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
    for snake, event in EVENTS.items():
        [group] = hooks[event]
        assert trusted_hash(event, group.get("matcher"), group["hooks"][0]) == CODEX_HASHES[snake]


def test_codex_install_says_what_to_accept(project: Path) -> None:
    lines = ok("install", "codex").stdout
    assert "'Hooks need review'" in lines and "--dangerously-bypass-hook-trust" in lines
    assert "Codex reads .codex/ only in a trusted project" in lines


def test_codex_hooks_nobody_trusted_yet(project: Path) -> None:
    ok("install", "codex")
    found = trust_lines(project, "codex")
    assert found[0][0] == "warn" and "is not trusted (no projects entry in" in found[0][1]
    assert found[1][0] == "warn"
    assert "UserPromptSubmit, PreToolUse, PostToolUse, Stop, SessionEnd " in found[1][1]
    assert "not yet reviewed" in found[1][1]


def test_codex_hooks_trusted(project: Path, isolated_home: Path) -> None:
    ok("install", "codex")
    codex_config(isolated_home, project, CODEX_HASHES)
    found = trust_lines(project, "codex")
    assert [level for level, _ in found] == ["ok", "ok"]
    assert found[1][1].endswith(
        f"Codex trusts rewind's 5 hooks ({isolated_home}/.codex/config.toml)"
    )


def test_codex_hooks_changed_since_review_or_turned_off(project: Path, isolated_home: Path) -> None:
    ok("install", "codex")
    changed = {**CODEX_HASHES, "stop": "sha256:" + "0" * 64}  # trusted with another command
    del changed["session_end"]
    off = f'\n[hooks.state."{project}/.codex/hooks.json:session_end:0:0"]\nenabled = false\n'
    codex_config(isolated_home, project, changed, off)
    found = trust_lines(project, "codex")
    assert found[0][0] == "ok"  # the project
    assert [level for level, _ in found[1:]] == ["warn", "warn"]
    assert "hooks.json: Stop changed since review; Codex runs no untrusted hook" in found[1][1]
    assert "hooks.json: SessionEnd turned off in Codex (enabled = false in" in found[2][1]


def test_an_untrusted_codex_project(project: Path, isolated_home: Path) -> None:
    ok("install", "codex")
    codex_config(isolated_home, project, CODEX_HASHES)
    path = isolated_home / ".codex" / "config.toml"
    path.write_text(
        path.read_text().replace('trust_level = "trusted"', 'trust_level = "untrusted"')
    )
    level, message = trust_lines(project, "codex")[0]
    assert level == "warn" and "is marked 'untrusted'" in message


def claude_json(home: Path, projects: dict[str, object]) -> None:
    """~/.claude.json with the keys Claude Code keeps there besides the projects."""
    data = {"numStartups": 12, "installMethod": "native", "projects": projects}
    (home / ".claude.json").write_text(json.dumps(data, indent=2))


def claude_project(trusted: bool) -> dict[str, object]:
    return {
        "allowedTools": [],
        "mcpContextUris": [],
        "mcpServers": {},
        "hasTrustDialogAccepted": trusted,
        "projectOnboardingSeenCount": 1,
    }


def test_claude_code_folder_trust(project: Path, isolated_home: Path) -> None:
    ok("install", "claude-code")
    [(level, message)] = trust_lines(project, "claude-code")
    assert level == "warn" and "has not been trusted in" in message
    claude_json(isolated_home, {str(project): claude_project(False)})
    assert trust_lines(project, "claude-code")[0][0] == "warn"
    claude_json(
        isolated_home,
        {str(project): claude_project(False), str(project.parent): claude_project(True)},
    )
    assert trust_lines(project, "claude-code") == [
        ("ok", f"Claude Code trusts {project.parent} ({isolated_home}/.claude.json)")
    ]


def trusted_folders(home: Path, rules: dict[str, str]) -> None:
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(rules, indent=2))


def test_gemini_folder_trust(
    project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok("install", "gemini")
    [(level, message)] = trust_lines(project, "gemini")
    assert level == "warn" and "runs no hook there, not even the user's" in message
    # TRUST_PARENT on the project trusts its parent, so everything in it; the longest rule wins.
    trusted_folders(isolated_home, {str(project / "x"): "TRUST_PARENT"})
    assert trust_lines(project, "gemini")[0][0] == "ok"
    trusted_folders(
        isolated_home, {str(project.parent): "TRUST_FOLDER", str(project): "DO_NOT_TRUST"}
    )
    assert trust_lines(project, "gemini")[0][0] == "warn"
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    assert trust_lines(project, "gemini") == [
        ("ok", f"Gemini CLI trusts {project} (GEMINI_CLI_TRUST_WORKSPACE is true)")
    ]
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE")
    settings = isolated_home / ".gemini" / "settings.json"
    settings.write_text(
        '{\n  // folder trust off\n  "security": {"folderTrust": {"enabled": false}}\n}\n'
    )
    level, message = trust_lines(project, "gemini")[0]
    assert level == "ok" and "security.folderTrust.enabled is false" in message


def test_gemini_hooks_turned_off(project: Path, isolated_home: Path) -> None:
    (isolated_home / ".gemini").mkdir()
    (isolated_home / ".gemini" / "settings.json").write_text('{"hooksConfig": {"enabled": false}}')
    lines = ok("install", "gemini").stdout
    assert "hooksConfig.enabled is false, so Gemini CLI runs no hook" in lines


def test_codex_install_appends_so_other_hooks_keep_their_trust(
    project: Path, isolated_home: Path
) -> None:
    """Trust is recorded by position: rewind's group goes after the others'."""
    hooks = project / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    guard = {"type": "command", "command": "./guard.sh"}
    hooks.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [guard]}]}}))
    guard_key = f"{project}/.codex/hooks.json:pre_tool_use:0:0"
    guard_hash = trusted_hash("PreToolUse", "Bash", guard)
    (isolated_home / ".codex").mkdir()
    (isolated_home / ".codex" / "config.toml").write_text(
        f'[hooks.state."{guard_key}"]\ntrusted_hash = "{guard_hash}"\n'
    )
    ok("install", "codex")
    data = json.loads(hooks.read_text())
    assert set(data) == {"hooks"}
    assert data["hooks"]["PreToolUse"][0] == {"matcher": "Bash", "hooks": [guard]}  # still 0:0
    assert data["hooks"]["PreToolUse"][1]["hooks"][0]["command"] == "rewind hook codex"
    messages = [message for _, message in trust_lines(project, "codex")]
    rewinds = "PreToolUse, UserPromptSubmit, PostToolUse, Stop, SessionEnd"
    assert any(f"hooks.json: {rewinds} not yet reviewed" in m for m in messages)
