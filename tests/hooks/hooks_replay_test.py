"""Each agent's multi-turn session replayed through real ``rewind hook`` processes, exactly as
the agent calls them (pre-hook, the edit, post-hook; parallel pre-hooks), then rewound to each
turn and compared byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import hook, run_rewind, snapshot
from tests.support.agent_payloads import AGENTS, ClaudeCode, Codex, Payload

Agent = type[ClaudeCode] | type[Codex]


def hooks_in_parallel(agent: str, payloads: list[Payload | None]) -> None:
    processes = []
    for payload in payloads:
        if payload is None:
            continue
        process = subprocess.Popen(
            [sys.executable, "-m", "rewind", "hook", agent],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        processes.append((process, json.dumps(payload)))
    for process, text in processes:
        out, err = process.communicate(text, timeout=60)
        assert (process.returncode, out, err) == (0, "", "")


def replace_in(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text().replace(old, new, 1))


def replay_session(agent_class: type, root: Path) -> list[dict[bytes, tuple[str, bytes, int]]]:
    """Three turns; returns the snapshots before each turn and at the end."""
    agent = agent_class(root)
    name = agent.name
    snapshots = [snapshot(root)]
    hook(name, agent.session_start())

    hook(name, agent.prompt("Make add() subtract"))
    before, after = agent.edit("a.py", "return a + b", "return a - b")
    hook(name, before)
    replace_in(root / "a.py", "return a + b", "return a - b")
    hook(name, after)
    before, after = agent.write("notes/new.txt", "a new file\n")
    hook(name, before)
    (root / "notes").mkdir()
    (root / "notes" / "new.txt").write_text("a new file\n")
    hook(name, after)
    hook(name, agent.end())
    snapshots.append(snapshot(root))

    hook(name, agent.prompt("Remove old.txt and swap the operands"))
    before, after = agent.shell("rm old.txt")
    hook(name, before)
    subprocess.run("rm old.txt", shell=True, cwd=root, check=True)
    hook(name, after)
    before, after = agent.edit("a.py", "return a - b", "return b - a")
    hook(name, before)
    replace_in(root / "a.py", "return a - b", "return b - a")
    hook(name, after)
    hook(name, agent.end())
    snapshots.append(snapshot(root))

    hook(name, agent.prompt("Three edits at once"))
    edits = [agent.edit(f"b{i}.txt", f"line {i}", f"LINE {i}") for i in range(3)]
    hooks_in_parallel(name, [before for before, _ in edits])
    for i in range(3):
        replace_in(root / f"b{i}.txt", f"line {i}", f"LINE {i}")
    hooks_in_parallel(name, [after for _, after in edits])
    hook(name, agent.end())
    snapshots.append(snapshot(root))
    return snapshots


@pytest.fixture
def workspace(project: Path) -> Path:
    (project / "a.py").write_text("def add(a, b):\n    return a + b\n")
    (project / "old.txt").write_text("to be removed\n")
    (project / "keep.txt").write_text("never touched\n")
    for i in range(3):
        (project / f"b{i}.txt").write_text(f"first\nline {i}\nlast\n")
    os.chmod(project / "a.py", 0o755)
    return project


@pytest.mark.parametrize("agent_class", AGENTS, ids=lambda agent: agent.name)
def test_every_turn_rewinds_byte_for_byte(agent_class: type, workspace: Path) -> None:
    snapshots = replay_session(agent_class, workspace)
    session = agent_class(workspace).session
    log = json.loads(run_rewind("log", "--json", "--session", session).stdout)
    assert [entry["turn"] for entry in log] == [1, 2, 3]
    assert log[0]["prompt"] == "Make add() subtract"
    assert {f["path"] for f in log[2]["files"]} == {"b0.txt", "b1.txt", "b2.txt"}
    sources = {f["path"]: f["source"] for f in log[1]["files"]}
    assert sources == {"old.txt": "shell", "a.py": "edit"}  # rm was read by the quicksave

    final = snapshots[-1]
    for turn in (3, 2, 1):
        result = run_rewind("restore", str(turn), "--yes", "--session", session)
        assert result.returncode == 0, result
        assert snapshot(workspace) == snapshots[turn - 1], f"restore to before turn {turn}"
        assert run_rewind("undo", "--yes", "--session", session).returncode == 0
        assert snapshot(workspace) == final


@pytest.mark.parametrize("agent_class", AGENTS, ids=lambda agent: agent.name)
def test_tool_event_without_a_prompt_starts_a_turn(agent_class: type, workspace: Path) -> None:
    """Hooks installed mid-session: the first event seen is a tool call."""
    agent = agent_class(workspace)
    before, after = agent.edit("a.py", "return a + b", "return a * b")
    hook(agent.name, before)
    replace_in(workspace / "a.py", "return a + b", "return a * b")
    hook(agent.name, after)
    assert run_rewind("restore", "1", "--yes", "--session", agent.session).returncode == 0
    assert (workspace / "a.py").read_text() == "def add(a, b):\n    return a + b\n"


@pytest.mark.parametrize("agent", [*dict.fromkeys(a.name for a in AGENTS), "git", "no-such-agent"])
@pytest.mark.parametrize(
    "payload",
    [
        "",
        "not json",
        "[1, 2]",
        '{"hook_event_name": 3}',
        '{"hook_event_name": "PreToolUse", "cwd": "/nonexistent"}',
    ],
)
def test_malformed_payloads_are_logged_and_ignored(agent: str, payload: str, project: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "rewind", "hook", agent],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "", "")
