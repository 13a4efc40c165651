"""The same event delivered twice must record what it records once.

It happens: rewind's Claude Code hooks installed both in ``~/.claude/settings.json`` and in the
project's ``.claude/settings.json`` (or the plugin and the settings), Cursor running Claude
Code's hooks beside its own (cursor.com/docs/reference/third-party-hooks.md: "All matching hooks
from every source run"), and other agents that read Claude Code's settings. Every event then
reaches ``rewind hook`` twice, one after the other or at the same time, through real processes
here: still one turn per prompt, the first (true) pre-image, and restores byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewind.history.recording.turns import (
    COPY_WINDOW,
    begin,
    is_copy_of_open_turn,
    record_after,
    track,
)
from rewind.history.restoring.opening import open_current_store
from rewind.history.session import load_head
from tests.conftest import hook, run_rewind, snapshot, store_dir
from tests.hooks.hooks_replay_test import hooks_in_parallel, replace_in
from tests.support.agent_payloads import ClaudeCode, Cursor, CursorToolHooks, Payload, each


def twice(agent: str, payload: Payload | None, at_once: bool) -> None:
    if at_once:
        hooks_in_parallel(agent, [payload, payload])
    else:
        hook(agent, payload)
        hook(agent, payload)


def problems_logged(project: Path) -> str:
    """What the hooks wrote to the store's log (a failed or half-done event is logged there)."""
    path = store_dir(project) / "rewind" / "rewind.log"
    return path.read_text() if path.exists() else ""


def files(entry: dict[str, object]) -> list[dict[str, object]]:
    found = entry["files"]
    assert isinstance(found, list)
    return found


def log_of(session: str) -> list[dict[str, object]]:
    result = run_rewind("log", "--json", "--session", session)
    assert result.returncode == 0, result
    entries = json.loads(result.stdout)
    assert isinstance(entries, list)
    return entries


@pytest.fixture
def workspace(project: Path) -> Path:
    (project / "a.py").write_text("def add(a, b):\n    return a + b\n")
    (project / "old.txt").write_text("to be removed\n")
    return project


@pytest.mark.parametrize("at_once", [False, True], ids=["one-after-the-other", "at-once"])
@pytest.mark.parametrize(
    "agent_class", [ClaudeCode, Cursor, CursorToolHooks], ids=lambda a: a.__name__
)
def test_every_event_twice_records_each_turn_once(
    agent_class: type, at_once: bool, workspace: Path
) -> None:
    agent = agent_class(workspace)
    name = agent.name
    snapshots = [snapshot(workspace)]

    twice(name, agent.prompt("Make add() subtract"), at_once)
    before, after = agent.edit("a.py", "return a + b", "return a - b")
    twice(name, before, at_once)
    replace_in(workspace / "a.py", "return a + b", "return a - b")
    for payload in each(after):
        twice(name, payload, at_once)
    twice(name, agent.end(), at_once)
    snapshots.append(snapshot(workspace))

    twice(name, agent.prompt("Remove old.txt"), at_once)
    before, after = agent.shell("rm old.txt")
    twice(name, before, at_once)
    (workspace / "old.txt").unlink()
    twice(name, after, at_once)
    twice(name, agent.end(), at_once)
    snapshots.append(snapshot(workspace))

    log = log_of(agent.session)
    assert [(entry["turn"], entry["prompt"]) for entry in log] == [
        (1, "Make add() subtract"),
        (2, "Remove old.txt"),
    ]
    assert [[f["path"] for f in files(entry)] for entry in log] == [["a.py"], ["old.txt"]]
    assert problems_logged(workspace) == ""
    for turn in (2, 1):
        assert run_rewind("restore", str(turn), "--yes", "--session", agent.session).returncode == 0
        assert snapshot(workspace) == snapshots[turn - 1]
        assert run_rewind("undo", "--yes", "--session", agent.session).returncode == 0
        assert snapshot(workspace) == snapshots[-1]


def test_a_late_duplicate_pre_tool_event_keeps_the_first_pre_image(workspace: Path) -> None:
    """A copy of PreToolUse that arrives after the edit was made (a slow second hook set) reads
    the edited file: the pre-image the first copy recorded stays."""
    agent = ClaudeCode(workspace)
    hook(agent.name, agent.prompt("Edit"))
    before, after = agent.edit("a.py", "return a + b", "return a * b")
    hook(agent.name, before)
    replace_in(workspace / "a.py", "return a + b", "return a * b")
    hook(agent.name, before)
    hook(agent.name, after)
    hook(agent.name, after)
    hook(agent.name, agent.end())
    assert run_rewind("restore", "1", "--yes", "--session", agent.session).returncode == 0
    assert (workspace / "a.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_claude_code_and_cursor_hooks_for_one_cursor_prompt_make_one_turn(
    workspace: Path,
) -> None:
    """Cursor runs its own hooks and Claude Code's for the same prompt, with one session id:
    one turn, whichever adapter saw it first."""
    cursor = CursorToolHooks(workspace)
    claude = ClaudeCode(workspace, session=cursor.session)
    hooks_in_parallel("cursor", [cursor.prompt("Both agents' hooks")])
    hook("claude-code", claude.prompt("Both agents' hooks"))
    before, after = cursor.edit("a.py", "return a + b", "return a % b")
    claude_before, claude_after = claude.edit("a.py", "return a + b", "return a % b")
    hook("cursor", before)
    hook("claude-code", claude_before)
    replace_in(workspace / "a.py", "return a + b", "return a % b")
    hook("claude-code", claude_after)
    for payload in each(after):
        hook("cursor", payload)
    hook("cursor", cursor.end())
    hook("claude-code", claude.end())
    log = log_of(cursor.session)
    assert [(entry["turn"], entry["prompt"]) for entry in log] == [(1, "Both agents' hooks")]
    assert run_rewind("restore", "1", "--yes", "--session", cursor.session).returncode == 0
    assert (workspace / "a.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_the_same_prompt_again_after_the_turn_ended_is_a_new_turn(workspace: Path) -> None:
    """Only a copy of the prompt that started the open turn is merged: the same words sent
    again after the turn's end (``continue``) start a turn of their own."""
    agent = ClaudeCode(workspace)
    for _ in range(2):
        hook(agent.name, agent.prompt("continue"))
        hook(agent.name, agent.end())
    assert [entry["turn"] for entry in log_of(agent.session)] == [1, 2]


def test_the_same_prompt_again_once_the_turn_changed_files_is_a_new_turn(
    workspace: Path,
) -> None:
    """A turn that already recorded a change is not a copy's: the same prompt again (sent
    after an interrupted turn, with no Stop) starts the next turn."""
    agent = ClaudeCode(workspace)
    hook(agent.name, agent.prompt("try again"))
    before, after = agent.edit("a.py", "return a + b", "return a - b")
    hook(agent.name, before)
    replace_in(workspace / "a.py", "return a + b", "return a - b")
    hook(agent.name, after)
    hook(agent.name, agent.prompt("try again"))
    assert [entry["turn"] for entry in log_of(agent.session)] == [1, 2]


def test_only_a_copy_within_moments_of_the_turn_start_is_merged(project: Path) -> None:
    """The window: a prompt with the same words long after the open turn started (an
    interrupted turn, no Stop, nothing recorded) is sent again, not a copy."""
    store = open_current_store(create=True)
    turn = begin(store, "s", prompt="go", merge_copies=True)
    head = load_head(store, "s")
    assert is_copy_of_open_turn(head, "go", now=turn.started + 1)
    assert not is_copy_of_open_turn(head, "go", now=turn.started + COPY_WINDOW + 1)
    assert not is_copy_of_open_turn(head, "other words", now=turn.started + 1)
    assert begin(store, "s", prompt="go", merge_copies=True).id == turn.id
    assert begin(store, "s", prompt="go").number == 2  # rewind begin: always a new turn


def test_a_turn_begun_only_when_none_is_open_keeps_one_another_process_opened(
    project: Path,
) -> None:
    """A run's first tool call begins its turn (Droid, the Cline CLI: no prompt event), after
    the adapter looked for an open turn. Installed twice, the same call's copy runs at once: it
    may look before the first has begun the turn, and begin once the first has recorded the
    file (no longer a copy's turn). Decided again under the store's lock, the turn is kept."""
    store = open_current_store(create=True)
    (project / "plan.txt").write_text("draft\n")
    turn = begin(store, "s", prompt="Write the plan", agent="droid", merge_copies=True)
    track(store, "s", [b"plan.txt"], agent="droid")
    again = begin(
        store, "s", prompt="Write the plan", agent="droid", merge_copies=True, unless_open=True
    )
    assert again.id == turn.id and load_head(store, "s").current.number == 1  # type: ignore[union-attr]
    # Without it (a prompt event), the open turn is closed and the next begins.
    assert begin(store, "s", prompt="Write the plan", merge_copies=True).number == 2


def test_a_turn_begun_for_a_prompt_sent_earlier_keeps_the_one_a_copy_began_and_ended(
    project: Path,
) -> None:
    """A Droid run that called no tool gets its turn at Stop, for the prompt its transcript
    says was sent at ``sent``. Installed twice, the Stop's copy runs at once: it may look before
    the first has begun that turn, and begin once the first has ended it. Decided again under
    the store's lock, that turn is kept: one turn for the run, not two."""
    store = open_current_store(create=True)
    sent = begin(store, "s", prompt="Write the plan", agent="droid").started
    record_after(store, "s", close=True)
    turn = begin(store, "s", prompt="Just say it is done", agent="droid")
    record_after(store, "s", close=True)
    again = begin(store, "s", prompt="Just say it is done", agent="droid", unless_begun_since=sent)
    assert again.id == turn.id and load_head(store, "s").current.number == 2  # type: ignore[union-attr]
    # A turn begun before the prompt was sent is another prompt's: the next turn begins.
    later = begin(store, "s", prompt="Go on", agent="droid", unless_begun_since=turn.started + 1)
    assert later.number == 3
