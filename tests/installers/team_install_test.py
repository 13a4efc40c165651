"""Installs a team can commit: a project-scope file names no path of the machine that wrote it,
runs ``rewind`` from PATH, is never rewritten when someone committed it set up otherwise, and
``doctor`` says when this machine cannot run it."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from rewind.installers import hook_runner
from tests.commands.doctor_test import findings
from tests.conftest import ok, run_rewind
from tests.support.git import git

PROJECT_FILES = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "cursor": ".cursor/hooks.json",
}
# Where the tools git needs live, without the rewind under test.
NO_REWIND_PATH = "/usr/local/bin:/usr/bin:/bin"


def commands_in(data: object) -> list[str]:
    """Every "command" string anywhere in a settings document."""
    found: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "command" and isinstance(value, str):
                found.append(value)
            else:
                found.extend(commands_in(value))
    elif isinstance(data, list):
        for value in data:
            found.extend(commands_in(value))
    return found


@pytest.mark.parametrize("agent", list(PROJECT_FILES))
def test_a_project_file_names_no_path_of_this_machine(
    project: Path, isolated_home: Path, agent: str
) -> None:
    ok("install", agent)
    text = (project / PROJECT_FILES[agent]).read_text()
    assert set(commands_in(json.loads(text))) == {f"rewind hook {agent}"}
    for machine_path in (str(project), str(isolated_home), sys.prefix, sys.executable):
        assert machine_path not in text
    # Installing again on a teammate's machine (another rewind, elsewhere) changes nothing.
    before = text
    result = ok("install", agent, env={"PATH": NO_REWIND_PATH})
    assert (project / PROJECT_FILES[agent]).read_text() == before
    assert result.stdout.startswith(f"{agent}: already installed in ")


@pytest.mark.parametrize(
    ("agent", "scope", "path"),
    [
        ("claude-code", "--local", "project/.claude/settings.local.json"),
        ("claude-code", "--user", "home/.claude/settings.json"),
        ("codex", "--user", "home/.codex/hooks.json"),
        ("gemini", "--user", "home/.gemini/settings.json"),
        ("cursor", "--user", "home/.cursor/hooks.json"),
    ],
)
def test_private_scopes_run_this_machines_rewind(
    project: Path, isolated_home: Path, agent: str, scope: str, path: str
) -> None:
    ok("install", agent, scope)
    base = isolated_home if path.startswith("home/") else project
    settings = base / path.split("/", 1)[1]
    assert set(commands_in(json.loads(settings.read_text()))) == {f"{hook_runner()} hook {agent}"}


def test_install_without_rewind_on_path_says_what_to_do(project: Path) -> None:
    result = ok("install", "codex", env={"PATH": NO_REWIND_PATH})
    assert (
        "  warning: rewind is not on PATH here, and these hooks, meant to be committed, run "
        "'rewind' from PATH: put rewind on PATH (pipx install rewind-files), or run "
        "'rewind install codex --user' to use this machine's path."
    ) in result.stdout.splitlines()
    # With rewind on PATH, no such warning.
    ok("uninstall", "codex")
    assert "warning" not in ok("install", "codex").stdout


def test_doctor_fails_a_committed_hook_this_machine_cannot_run(project: Path) -> None:
    ok("install", "claude-code")
    result = run_rewind("doctor", cwd=project, env={"PATH": NO_REWIND_PATH})
    found = findings(result.stdout)
    assert result.returncode == 1
    assert (
        "fail",
        "claude-code",
        "project",
        "runs rewind from PATH, which has none; put rewind on PATH (pipx install "
        "rewind-files), or run 'rewind install claude-code --local' to use this machine's path.",
    ) in found
    assert ("warn", "rewind", "PATH") in [f[:3] for f in found]
    [hook] = [f for f in found if f[1:3] == ("claude-code", "hook")]
    assert hook[0] == "fail" and "exited 127" in hook[3]


def test_a_committed_setup_is_not_rewritten(project: Path) -> None:
    """A teammate committed rewind's hooks with their own path and timeout: install adds the
    events missing, leaves theirs byte for byte, and says how to replace them."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    theirs = {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": "/home/alice/.local/bin/rewind hook claude-code",
                            "timeout": 60,
                        }
                    ]
                }
            ]
        }
    }
    settings.write_text(json.dumps(theirs, indent=2) + "\n")
    git("add", ".claude/settings.json", cwd=project)
    git("commit", "-q", "-m", "team settings", cwd=project)
    result = ok("install", "claude-code")
    data = json.loads(settings.read_text())
    assert data["hooks"]["Stop"] == theirs["hooks"]["Stop"]
    assert "UserPromptSubmit" in data["hooks"] and "PreToolUse" in data["hooks"]
    assert (
        "  warning: left Stop as committed (running /home/alice/.local/bin/rewind hook "
        "claude-code); to rewrite them, run 'rewind uninstall claude-code --project', then "
        "install again."
    ) in result.stdout.splitlines()
    # The same file untracked is brought up to date: it is nobody else's setup yet.
    git("rm", "-q", "--cached", ".claude/settings.json", cwd=project)
    assert "  updated  Stop" in ok("install", "claude-code").stdout.splitlines()
    assert set(commands_in(json.loads(settings.read_text()))) == {"rewind hook claude-code"}


def test_doctor_warns_of_a_machine_path_in_a_committed_file(project: Path) -> None:
    ok("install", "gemini")
    settings = project / ".gemini" / "settings.json"
    executable = shutil.which("rewind")
    assert executable
    settings.write_text(settings.read_text().replace('"rewind hook', f'"{executable} hook'))
    result = run_rewind("doctor", cwd=project)
    message = (
        f"runs {executable}, a path of one machine, from a file meant to be committed: "
        "teammates' hooks fail; run 'rewind uninstall gemini --project', then install again "
        "to run 'rewind' from PATH."
    )
    assert ("warn", "gemini", "project", message) in findings(result.stdout)
    # The advice works.
    ok("uninstall", "gemini")
    ok("install", "gemini")
    trusted = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}  # else doctor warns of the folder's trust
    result = run_rewind("doctor", cwd=project, env=trusted)
    assert not [f for f in findings(result.stdout) if f[1] == "gemini" and f[0] in ("warn", "fail")]
