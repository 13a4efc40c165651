"""GitHub Copilot CLI: sessions replayed through real ``rewind hook copilot`` processes with
the environment rewind's hooks file gives each event, then rewound turn by turn byte for byte;
payloads that must not make the hook fail (a failing preToolUse hook denies the tool call);
``rewind install|uninstall copilot`` per scope; ``rewind doctor``'s checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from rewind.installers.copilot import EVENT_VARIABLE, document
from rewind.store.digest import sha1_hex
from tests.conftest import ok, run_rewind, snapshot
from tests.support.agent_payloads import Copilot, Payload
from tests.support.paths import HOOKS

READY_MADE = HOOKS / "copilot" / "rewind.json"
INSTALLED_EVENTS = [
    "userPromptSubmitted",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "agentStop",
    "sessionEnd",
    "errorOccurred",
]
# A hook must stay far inside Copilot's timeoutSec (30): a timeout denies the tool call.
QUICK = 10.0


def send(event: str, payload: Payload | str | None, **environment: str) -> None:
    """One event, as the installed hook runs it: its name in the hook's environment."""
    if payload is None:
        return
    text = payload if isinstance(payload, str) else json.dumps(payload)
    started = time.monotonic()
    completed = subprocess.run(
        [sys.executable, "-m", "rewind", "hook", "copilot"],
        input=text,
        capture_output=True,
        text=True,
        env={**os.environ, EVENT_VARIABLE: event, **environment},
        timeout=60,
    )
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "", "")
    assert time.monotonic() - started < QUICK


def replace_in(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text().replace(old, new, 1))


@pytest.fixture
def workspace(project: Path) -> Path:
    (project / "a.py").write_text("def add(a, b):\n    return a + b\n")
    (project / "old.txt").write_text("to be removed\n")
    (project / "moved.txt").write_text("moving\n")
    (project / "gone.txt").write_text("deleted by a patch\n")
    (project / "typed.txt").write_text("typed into a shell\n")
    (project / "keep.txt").write_text("never touched\n")
    os.chmod(project / "a.py", 0o755)
    return project


def replay(agent: Copilot, root: Path) -> list[dict[bytes, tuple[str, bytes, int]]]:
    """Three turns with every file tool and shell tool; the snapshots before each turn and at
    the end."""
    snapshots = [snapshot(root)]
    send("sessionStart", agent.session_start())

    send("userPromptSubmitted", agent.prompt("Make add() subtract, add notes"))
    before, after = agent.edit("a.py", "return a + b", "return a - b")
    send("preToolUse", before)
    replace_in(root / "a.py", "return a + b", "return a - b")
    send("postToolUse", after)
    before, after = agent.write("notes/new.txt", "a new file\n")
    send("preToolUse", before)
    (root / "notes").mkdir()
    (root / "notes" / "new.txt").write_text("a new file\n")
    send("postToolUse", after)
    before, after = agent.editor("insert", "keep.txt", insert_line=1, new_str="inserted\n")
    send("preToolUse", before)
    (root / "keep.txt").write_text("never touched\ninserted\n")
    send("postToolUse", after)
    send("agentStop", agent.end())
    snapshots.append(snapshot(root))

    send("userPromptSubmitted", agent.prompt("Patch things"))
    before, after = agent.patch(
        "*** Update File: a.py\n@@\n-    return a - b\n+    return b - a\n"
        "*** Add File: patched.txt\n+added by a patch\n"
        "*** Delete File: gone.txt\n"
        "*** Update File: moved.txt\n*** Move to: renamed.txt\n@@\n-moving\n+moved"
    )
    send("preToolUse", before)
    replace_in(root / "a.py", "return a - b", "return b - a")
    (root / "patched.txt").write_text("added by a patch\n")
    (root / "gone.txt").unlink()
    (root / "moved.txt").unlink()
    (root / "renamed.txt").write_text("moved\n")
    send("postToolUse", after)
    send("agentStop", agent.end())
    snapshots.append(snapshot(root))

    send("userPromptSubmitted", agent.prompt("Clean up"))
    before, after = agent.shell("rm old.txt")
    send("preToolUse", before)
    subprocess.run("rm old.txt", shell=True, cwd=root, check=True)
    send("postToolUse", after)
    before, after = agent.write_shell("rm typed.txt\n")
    send("preToolUse", before)
    (root / "typed.txt").unlink()
    send("postToolUse", after)
    before, after = agent.edit("a.py", "return b - a", "return b * a")
    send("preToolUse", before)
    replace_in(root / "a.py", "return b - a", "return b * a")  # written, then reported failed
    send("postToolUseFailure", agent.failed(after))
    send("sessionEnd", agent.session_end())
    snapshots.append(snapshot(root))
    return snapshots


@pytest.mark.parametrize("string_args", [True, False], ids=["args-as-string", "args-as-object"])
def test_every_turn_rewinds_byte_for_byte(workspace: Path, string_args: bool) -> None:
    agent = Copilot(workspace, string_args=string_args)
    snapshots = replay(agent, workspace)
    assert agent.session is not None
    log = json.loads(run_rewind("log", "--json", "--session", agent.session).stdout)
    assert [entry["turn"] for entry in log] == [1, 2, 3]
    assert [entry["prompt"] for entry in log] == [
        "Make add() subtract, add notes",
        "Patch things",
        "Clean up",
    ]
    assert {f["path"] for f in log[0]["files"]} == {"a.py", "notes/new.txt", "keep.txt"}
    patched = {"a.py", "patched.txt", "gone.txt", "moved.txt", "renamed.txt"}
    assert {f["path"] for f in log[1]["files"]} == patched
    sources = {f["path"]: f["source"] for f in log[2]["files"]}
    assert sources == {"old.txt": "shell", "typed.txt": "shell", "a.py": "edit"}
    final = snapshots[-1]
    for turn in (3, 2, 1):
        result = run_rewind("restore", str(turn), "--yes", "--session", agent.session)
        assert result.returncode == 0, result
        assert snapshot(workspace) == snapshots[turn - 1], f"restore to before turn {turn}"
        assert run_rewind("undo", "--yes", "--session", agent.session).returncode == 0
        assert snapshot(workspace) == final


def test_events_are_told_apart_without_their_names_too(workspace: Path) -> None:
    """A hook configured by hand, without REWIND_COPILOT_EVENT: the payload's fields say
    which event it is."""
    agent = Copilot(workspace)
    original = snapshot(workspace)
    send("", agent.prompt("edit"))
    before, after = agent.edit("a.py", "a + b", "a - b")
    send("", before)
    replace_in(workspace / "a.py", "a + b", "a - b")
    send("", after)
    send("", agent.end())
    assert agent.session is not None
    [turn] = json.loads(ok("log", "--json", "--session", agent.session).stdout)
    assert turn["prompt"] == "edit" and turn["files"][0]["status"] == "modified"
    ok("restore", "1", "--yes", "--session", agent.session)
    assert snapshot(workspace) == original


def test_a_session_without_an_id_gets_one_from_the_project(workspace: Path) -> None:
    agent = Copilot(workspace, session=None)
    for turn in ("first", "second"):
        send("userPromptSubmitted", agent.prompt(turn))
        before, after = agent.edit("a.py", "return a", f"return {turn} and a")
        send("preToolUse", before)
        replace_in(workspace / "a.py", "return a", f"return {turn} and a")
        send("postToolUse", after)
        send("agentStop", agent.end())
    session = "copilot-" + sha1_hex(os.fsencode(os.path.realpath(workspace)))[:12]
    log = json.loads(ok("log", "--json", "--session", session).stdout)
    assert [entry["prompt"] for entry in log] == ["first", "second"]


def test_a_claude_format_event_is_logged_and_records_nothing(workspace: Path) -> None:
    """PascalCase events send Claude-compatible payloads, which this adapter does not read."""
    payload: Payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": str(workspace),
        "tool_name": "Bash",
        "tool_input": {"command": "rm old.txt"},
    }
    send("", payload)
    assert ok("log", "--json", "--session", "s").stdout == "[]\n"
    log = Path(os.environ["REWIND_HOME"]) / "hooks.log"
    assert "PascalCase (Claude-format) event" in log.read_text()


HOSTILE: list[tuple[str, str]] = [
    ("preToolUse", ""),
    ("preToolUse", "\x00\xff not json"),
    ("preToolUse", "[1, 2]"),
    ("preToolUse", "[" * 100_000),
    ("preToolUse", '{"toolName": "edit", "toolArgs": "{\\"path\\": 3}"}'),
    ("preToolUse", '{"toolName": "edit", "toolArgs": "{not json"}'),
    ("preToolUse", '{"toolName": "edit", "toolArgs": "' + "[" * 5000 + '"}'),
    ("preToolUse", '{"toolName": "create", "toolArgs": {"path": "/etc/passwd"}}'),
    ("preToolUse", '{"toolName": "create", "toolArgs": {"path": "a\\u0000b"}}'),
    ("preToolUse", '{"toolName": "edit", "toolArgs": {"path": "../../outside.txt"}}'),
    ("preToolUse", '{"toolName": "apply_patch", "toolArgs": 42}'),
    ("preToolUse", '{"toolName": "apply_patch", "toolArgs": "*** Update File: /etc/hosts"}'),
    ("preToolUse", '{"toolName": "bash", "toolArgs": {"command": ["rm", "x"]}}'),
    ("preToolUse", '{"toolName": "bash", "toolArgs": {"command": "' + "rm a " * 20_000 + '"}}'),
    ("preToolUse", '{"toolName": "bash", "cwd": "/nonexistent", "toolArgs": "{}"}'),
    ("preToolUse", '{"toolName": {"x": 1}, "sessionId": ["no"], "cwd": 7}'),
    ("postToolUse", '{"toolName": "write_bash", "toolArgs": null, "toolResult": 1}'),
    ("errorOccurred", '{"error": {"message": 5}, "errorContext": "system"}'),
    ("errorOccurred", '{"error": "' + "e" * 100_000 + '"}'),
    ("noSuchEvent", "{}"),
    ("userPromptSubmitted", '{"prompt": "\\ud800 lone surrogate", "sessionId": "\\udc00"}'),
]


@pytest.mark.parametrize(("event", "payload"), HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_payloads_exit_0_quickly_and_silently(
    workspace: Path, event: str, payload: str
) -> None:
    before = snapshot(workspace)
    send(event, payload.replace('"cwd": 7', f'"cwd": {json.dumps(str(workspace))}'))
    assert snapshot(workspace) == before
    assert not (workspace.parent / "outside.txt").exists()


def test_the_installed_command_exits_0_without_rewind(workspace: Path, tmp_path: Path) -> None:
    """A teammate, or the coding agent before its setup steps, with no rewind on PATH: a
    failing preToolUse hook would deny every tool call."""
    hook = document("rewind hook copilot")["hooks"]["preToolUse"][0]  # type: ignore[index]
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    for shell in ("/bin/sh", "/bin/bash"):
        if not os.path.exists(shell):
            continue
        completed = subprocess.run(
            [shell, "-c", hook["bash"]],
            input="{}",
            capture_output=True,
            text=True,
            env={"PATH": str(empty)},
            cwd=workspace,
        )
        assert (completed.returncode, completed.stdout) == (0, "")


# install / uninstall ---------------------------------------------------------------------------


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_project_file_is_the_ready_made_one(project: Path) -> None:
    ok("install", "copilot")
    installed = read_json(project / ".github" / "hooks" / "rewind.json")
    assert installed == read_json(READY_MADE)
    assert installed["version"] == 1
    assert list(installed["hooks"]) == INSTALLED_EVENTS
    for event, hooks in installed["hooks"].items():
        [hook] = hooks
        assert hook["type"] == "command" and hook["timeoutSec"] == 30
        assert hook["bash"] == "rewind hook copilot || true"
        assert hook["powershell"] == "rewind hook copilot; exit 0"
        assert hook["env"] == {EVENT_VARIABLE: event}
        assert ("matcher" in hook) == ("ToolUse" in event)


def test_the_user_file_runs_this_machines_rewind(project: Path, isolated_home: Path) -> None:
    from rewind.installers import hook_runner

    ok("install", "copilot", "--user")
    path = isolated_home / ".copilot" / "hooks" / "rewind.json"
    commands = {hook["bash"] for [hook] in read_json(path)["hooks"].values()}
    assert commands == {f"{hook_runner()} hook copilot || true"}
    ok("uninstall", "copilot", "--user")
    assert not (isolated_home / ".copilot").exists()


def test_copilot_home_moves_the_user_file(
    project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    home = tmp_path / "copilot-home"
    result = ok("install", "copilot", "--user", env={"COPILOT_HOME": str(home)})
    path = home / "hooks" / "rewind.json"
    assert result.stdout.splitlines()[0] == f"copilot: created {path}"
    ok("uninstall", "copilot", "--user", env={"COPILOT_HOME": str(home)})
    assert not home.exists()


def test_uninstall_keeps_the_hooks_directory_and_other_hooks_files(project: Path) -> None:
    other = project / ".github" / "hooks" / "lint.json"
    other.parent.mkdir(parents=True)
    other.write_text('{"version": 1, "hooks": {}}\n')
    ok("install", "copilot")
    result = ok("uninstall", "copilot")
    assert result.stdout.splitlines()[-1].startswith("  deleted  ")
    assert sorted(p.name for p in other.parent.iterdir()) == ["lint.json"]


def test_a_hook_added_to_rewinds_file_stays(project: Path) -> None:
    ok("install", "copilot")
    path = project / ".github" / "hooks" / "rewind.json"
    data = read_json(path)
    data["hooks"]["preToolUse"].append({"type": "command", "bash": "./guard.sh"})
    path.write_text(json.dumps(data, indent=2) + "\n")
    ok("uninstall", "copilot")
    guard = {"type": "command", "bash": "./guard.sh"}
    assert read_json(path)["hooks"] == {"preToolUse": [guard]}


# doctor ----------------------------------------------------------------------------------------


def doctor_lines(project: Path) -> list[str]:
    result = run_rewind("doctor", cwd=project)
    assert result.stderr == "", result
    return [line for line in result.stdout.splitlines() if line.split()[1:2] == ["copilot"]]


def test_doctor_runs_the_installed_hook(project: Path, isolated_home: Path) -> None:
    ok("install", "copilot", "--user")
    lines = doctor_lines(project)
    hook = next(line for line in lines if line.split()[2] == "hook")
    assert hook.startswith("ok ") and "recorded turn 1 with probe.txt (modified)" in hook
    assert "4 event(s)" in hook


def test_doctor_reports_hooks_turned_off_and_an_untrusted_folder(
    project: Path, isolated_home: Path
) -> None:
    ok("install", "copilot")
    settings = project / ".github" / "copilot" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"disableAllHooks": true}\n')
    config = isolated_home / ".copilot" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(COPILOTS_CONFIG % json.dumps(["/somewhere/else"]))
    lines = doctor_lines(project)
    assert any(line.startswith("fail") and "disableAllHooks is true" in line for line in lines)
    assert any(line.startswith("warn") and "trustedFolders" in line for line in lines)
    config.write_text(COPILOTS_CONFIG % json.dumps([str(project.parent)]))
    lines = doctor_lines(project)
    assert any(line.startswith("ok") and "Copilot trusts" in line for line in lines)
    assert "disableAllHooks is true" in ok("install", "copilot", "--user").stdout


def trust_note(project: Path) -> str:
    """doctor's line on whether Copilot trusts the project."""
    [line] = [
        line
        for line in doctor_lines(project)
        if line.split()[2] == "project" and "trust" in line.rsplit(": ", 1)[-1]
    ]
    return line


# ~/.copilot/config.json as Copilot 1.0.102 writes it once the person accepted its trust prompt.
COPILOTS_CONFIG = """// User settings belong in settings.json.
// This file is managed automatically.
{
  "trustedFolders": %s,
  "firstLaunchAt": "2026-03-11T00:00:00.000Z"
}
"""


def test_doctor_reads_trust_where_copilot_does(project: Path, isolated_home: Path) -> None:
    """Copilot 1.0.102 reads trustedFolders from config.json only (run live: the same list in
    settings.json loads no repository hook) and takes a ``~`` in it literally: neither may
    tell the person their hooks run."""
    ok("install", "copilot")
    settings = isolated_home / ".copilot" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"trustedFolders": [str(project)]}))
    trust = trust_note(project)
    assert trust.startswith("warn") and "reads trustedFolders only from config.json" in trust
    config = isolated_home / ".copilot" / "config.json"
    config.write_text(COPILOTS_CONFIG % json.dumps(["~/" + os.path.relpath(project, Path.home())]))
    trust = trust_note(project)
    assert trust.startswith("warn") and "not among Copilot's trustedFolders" in trust
    config.write_text(COPILOTS_CONFIG % json.dumps([str(project)]))
    trust = trust_note(project)
    assert trust.startswith("ok") and f"{config}: Copilot trusts {project}" in trust, trust
