"""``[conversation] share``: the conversation kept with a session goes with it on ``rewind
push`` to the remotes it names, and ``rewind resume TURN --remote NAME`` continues it on another
machine from what was fetched; ``rewind show --remote`` prints the kept reply. Off by default,
so that a conversation (every prompt, reply and tool result) never leaves unless asked.

Two "machines" (each its own home and clone), a bare repository as the remote, Claude Code's
hooks as real processes with its transcript written as the client writes it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.commands.resume_test import Transcript, claude_turn
from tests.conftest import hook
from tests.history.remote.remote_test import remote_objects, remote_refs
from tests.support.remote_servers import (
    REMOTE_NAME,
    Machine,
    bare_repository,
    clone,
    new_project,
)

SESSION = "c1"
KEEP = "[conversation]\nkeep = true\n"
SHARE = KEEP + "share = true\n"


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    return bare_repository(tmp_path / "served" / REMOTE_NAME)


@pytest.fixture
def a(tmp_path: Path, bare: Path) -> Machine:
    machine = Machine(new_project(tmp_path / "laptop" / "calc"), tmp_path / "l-home", "laptop")
    machine.ok("remote", "add", "backup", str(bare))
    return machine


@pytest.fixture
def b(tmp_path: Path, a: Machine, bare: Path) -> Machine:
    root = clone(a.root, tmp_path / "work" / "checkouts" / "calc")
    machine = Machine(root, tmp_path / "w-home", "workstation")
    machine.ok("remote", "add", "backup", str(bare))
    return machine


def claude_turns(machine: Machine, settings: str, session: str = SESSION) -> Transcript:
    """Three prompts of Claude Code on ``machine``, each ending with a reply, under
    ``settings`` (its rewind.toml)."""
    (machine.root / "rewind.toml").write_text(settings)
    folder = machine.home / ".claude" / "projects" / "calc"
    folder.mkdir(parents=True, exist_ok=True)
    transcript = Transcript(folder / f"{session}.jsonl")
    for text in ("one", "two", "three"):
        event = {"session_id": session, "cwd": str(machine.root)}
        prompt = {"transcript_path": str(transcript.path), "prompt": text, "prompt_id": text}
        send(machine, {**event, **prompt, "hook_event_name": "UserPromptSubmit"})
        claude_turn(transcript, f"{session}-{text}")
        reply = {"last_assistant_message": f"Reply {text} in {session}."}
        send(machine, {**event, **reply, "hook_event_name": "Stop"})
    return transcript


def send(machine: Machine, payload: dict[str, Any]) -> None:
    hook("claude-code", payload, cwd=machine.root, env=machine.env)


def resume_plan(machine: Machine, turn: int, session: str = SESSION) -> dict[str, Any]:
    found = machine.json("resume", str(turn), "--remote", "backup", "--session", session, "--print")
    assert isinstance(found, dict)
    return found


def cut_of(machine: Machine, turn: int) -> int:
    shown = machine.json("show", str(turn), "--session", SESSION)
    assert isinstance(shown, dict)
    offset = shown["conversation"]["offset"]
    assert isinstance(offset, int)
    return offset


def test_a_shared_conversation_resumes_on_the_other_machine_from_its_fetched_copy(
    a: Machine, b: Machine, bare: Path
) -> None:
    transcript = claude_turns(a, SHARE)
    pushed = a.ok("push", "backup", "--session", SESSION)
    assert "1 of them with its kept conversation" in pushed
    assert any(ref.endswith(f"/laptop/conversations/{SESSION}") for ref in remote_refs(bare))
    b.ok("fetch", "backup")
    found = resume_plan(b, 3)
    program, flag, copy, fork = found["argv"]
    assert (program, flag, fork) == ("claude", "--resume", "--fork-session")
    assert Path(copy).is_relative_to(b.store())  # written on this machine, in its store
    assert Path(copy).read_bytes() == transcript.path.read_bytes()[: cut_of(a, 3)]
    assert found["cwd"] == str(b.root)  # the branch runs in this machine's clone
    shown = b.json("show", "2", "--remote", "backup", "--session", SESSION)
    assert isinstance(shown, dict) and shown["reply"] == f"Reply two in {SESSION}."
    text = b.ok("show", "2", "--remote", "backup", "--session", SESSION)
    assert f"'rewind resume 2 --remote backup --session {SESSION}'" in text


def test_a_conversation_kept_but_not_shared_never_reaches_the_remote(
    a: Machine, b: Machine, bare: Path
) -> None:
    claude_turns(a, KEEP)
    pushed = a.ok("push", "backup", "--session", SESSION)
    assert "kept conversation" not in pushed
    assert not any("/conversations/" in ref for ref in remote_refs(bare))
    held = b"\n".join(remote_objects(bare).values())
    assert b"Reply two" not in held and f"{SESSION}-two".encode() not in held
    b.ok("fetch", "backup")
    refused = b.run("resume", "2", "--remote", "backup", "--session", SESSION, "--print")
    assert refused.returncode == 1
    assert "shared no copy of its conversation with backup" in refused.stderr
    assert "resume it on the machine that recorded it." in refused.stderr
    assert "rewind restore" not in refused.stderr  # not this work tree's files to restore
    shown = b.json("show", "2", "--remote", "backup", "--session", SESSION)
    assert isinstance(shown, dict) and shown["reply"] is None


def test_sharing_stops_and_the_remote_loses_the_conversation(
    a: Machine, b: Machine, bare: Path
) -> None:
    claude_turns(a, SHARE)
    a.ok("push", "backup", "--session", SESSION)
    (a.root / "rewind.toml").write_text(KEEP)
    dry = a.json("push", "backup", "--session", SESSION, "--dry-run")
    assert isinstance(dry, dict)
    assert [s["conversation"] for s in dry["sessions"]] == ["deleted"]
    a.ok("push", "backup", "--session", SESSION)
    assert not any("/conversations/" in ref for ref in remote_refs(bare))
    assert "nothing" in a.ok("push", "backup", "--session", SESSION, "--dry-run")
    b.ok("fetch", "backup")
    refused = b.run("resume", "2", "--remote", "backup", "--session", SESSION, "--print")
    assert "shared no copy" in refused.stderr


def test_share_names_the_remotes_the_conversation_goes_to(
    a: Machine, tmp_path: Path, bare: Path
) -> None:
    team = bare_repository(tmp_path / "served" / "team.git")
    a.ok("remote", "add", "team", str(team))
    claude_turns(a, KEEP + 'share = ["backup"]\n')
    to_team = a.json("push", "team", "--session", SESSION, "--dry-run")
    to_backup = a.json("push", "backup", "--session", SESSION, "--dry-run")
    assert isinstance(to_team, dict) and isinstance(to_backup, dict)
    assert [s["conversation"] for s in to_team["sessions"]] == [None]
    assert [s["conversation"] for s in to_backup["sessions"]] == ["sent"]
    assert "with its kept conversation" in a.ok("push", "backup", "--session", SESSION)
    a.ok("push", "team", "--session", SESSION)
    assert any("/conversations/" in ref for ref in remote_refs(bare))
    assert not any("/conversations/" in ref for ref in remote_refs(team))


def test_a_push_after_a_new_turn_sends_the_conversation_that_grew(a: Machine, b: Machine) -> None:
    """The kept conversation moves at each prompt and reply: a session whose entries were all
    sent still goes when its conversation grew."""
    transcript = claude_turns(a, SHARE)
    a.ok("push", "backup", "--session", SESSION)
    event = {"session_id": SESSION, "cwd": str(a.root)}
    prompt = {"transcript_path": str(transcript.path), "prompt": "four", "prompt_id": "four"}
    send(a, {**event, **prompt, "hook_event_name": "UserPromptSubmit"})
    claude_turn(transcript, "four")
    send(a, {**event, "last_assistant_message": "Reply four.", "hook_event_name": "Stop"})
    a.ok("push", "backup", "--session", SESSION)
    b.ok("fetch", "backup")
    copy = Path(resume_plan(b, 4)["argv"][2])
    assert copy.read_bytes() == transcript.path.read_bytes()[: cut_of(a, 4)]


def test_a_fetched_codex_turn_is_refused_with_the_way_out(a: Machine, b: Machine) -> None:
    (a.root / "rewind.toml").write_text(SHARE)
    rollout = a.home / "rollout.jsonl"
    rollout.write_text(json.dumps({"type": "session_meta"}) + "\n")
    for turn in ("t1", "t2"):
        payload = {
            "hook_event_name": "UserPromptSubmit",
            "session_id": "x1",
            "turn_id": turn,
            "cwd": str(a.root),
            "transcript_path": str(rollout),
            "prompt": turn,
        }
        hook("codex", payload, cwd=a.root, env=a.env)
    a.ok("end", "--session", "x1")
    a.ok("push", "backup", "--session", "x1")
    b.ok("fetch", "backup")
    refused = b.run("resume", "2", "--remote", "backup", "--session", "x1", "--print")
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1, refused.stderr
    assert "Codex keeps its conversations in a database of its own" in refused.stderr
    assert "resume it on the machine that recorded it." in refused.stderr
