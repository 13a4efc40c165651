"""``rewind history PATH``: one file's versions across sessions, recorded through real hooks and
commands, read back as JSON and as text."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rewind.history.entry import DRIFT_PROMPT
from tests.conftest import error_line, hook, log_json, ok, run_rewind
from tests.support.agent_payloads import ClaudeCode

SESSION_A = "aaaaaaaa-0000-4000-8000-000000000001"
SESSION_B = "bbbbbbbb-0000-4000-8000-000000000002"


class Agent:
    """Claude Code driving real ``rewind hook claude-code`` processes, one prompt at a time."""

    def __init__(self, root: Path, session: str) -> None:
        self.root = root
        self.payloads = ClaudeCode(root, session)

    def turn(self, prompt: str, *steps: tuple[str, str, str]) -> None:
        """Steps: ("write", path, content) or ("shell", command, "")."""
        hook("claude-code", self.payloads.prompt(prompt))
        for kind, first, second in steps:
            if kind == "write":
                before, after = self.payloads.write(first, second)
                hook("claude-code", before)
                (self.root / first).parent.mkdir(parents=True, exist_ok=True)
                (self.root / first).write_text(second)
                hook("claude-code", after)
            else:
                before, after = self.payloads.shell(first)
                hook("claude-code", before)
                subprocess.run(first, shell=True, cwd=self.root, check=True)
                hook("claude-code", after)
        hook("claude-code", self.payloads.end())


def history(path: str, *options: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(ok("history", "--json", path, *options).stdout)
    return data


def entry_ids(session: str) -> list[str]:
    """The ids of the session's entries, but those of drift found at 'rewind begin' (another
    session's changes are drift to this one)."""
    return [e["id"] for e in log_json("--session", session) if e["prompt"] != DRIFT_PROMPT]


def test_edits_across_two_sessions_are_one_story_newest_first(project: Path) -> None:
    (project / "app.py").write_text("a = 1\nb = 2\n")
    first, second = Agent(project, SESSION_A), Agent(project, SESSION_B)
    first.turn("Make b three", ("write", "app.py", "a = 1\nb = 3\n"))
    second.turn("Add c\nwith a second line", ("write", "app.py", "a = 1\nb = 3\nc = 4\n"))
    first.turn("Drop a", ("write", "app.py", "b = 3\nc = 4\n"))
    a1, a2 = entry_ids(SESSION_A)
    (b1,) = entry_ids(SESSION_B)

    data = history("app.py")
    assert (data["format"], data["path"]) == (1, "app.py")
    versions = data["versions"]
    assert [v["version"] for v in versions] == [a2, b1, a1, a1 + "^"]
    assert [v["session"] for v in versions] == [SESSION_A, SESSION_B, SESSION_A, SESSION_A]
    assert [v["side"] for v in versions] == ["after", "after", "after", "before"]
    assert [v["source"] for v in versions] == ["edit"] * 4
    assert [(v["added"], v["removed"]) for v in versions] == [(0, 1), (1, 0), (1, 1), (None, None)]
    assert versions[1]["prompt"] == "Add c\nwith a second line"
    assert versions[1]["agent"] == "claude-code"
    assert versions[0]["state"]["kind"] == "file" and versions[0]["state"]["size"] == 12
    assert all(v["moved_from"] is None and v["path"] == "app.py" for v in versions)
    assert [v["version"] for v in history("app.py", "-n", "2")["versions"]] == [a2, b1]

    text = ok("history", "app.py").stdout.splitlines()
    assert text[0] == "app.py: 4 versions, newest first"
    assert text[1].startswith(f"{a2}   ")
    assert text[1].endswith("aaaaaaaa… #3  claude-code  edit  12 B  +0 -1")  # #2 was drift
    assert text[4].strip() == "Add c"  # the first line of the prompt only
    assert text[-2].startswith(f"{a1}^  ") and text[-1].strip() == "before: Make b three"


def test_a_delete_by_the_shell_and_a_re_creation_are_versions(project: Path) -> None:
    (project / "notes.txt").write_text("old notes\n")
    agent = Agent(project, SESSION_A)
    agent.turn("Rewrite the notes", ("write", "notes.txt", "new notes\n"))
    agent.turn("Remove the notes", ("shell", "rm notes.txt", ""))
    agent.turn("Bring notes back", ("write", "notes.txt", "fresh\nnotes\n"))
    first, removed, back = entry_ids(SESSION_A)

    versions = history("notes.txt")["versions"]
    assert [v["version"] for v in versions] == [back, removed, first, first + "^"]
    assert [v["source"] for v in versions] == ["edit", "shell", "edit", "edit"]
    assert versions[1]["state"]["kind"] == "absent"
    assert (versions[1]["added"], versions[1]["removed"]) == (0, 1)
    assert (versions[0]["added"], versions[0]["removed"]) == (2, 0)
    lines = ok("history", "notes.txt").stdout.splitlines()
    assert f"{removed}   " in lines[3] and lines[3].endswith("shell  deleted")


def test_a_rename_by_mv_is_followed_back_to_the_old_name(project: Path) -> None:
    (project / "old.py").write_text("x = 1\n")
    agent = Agent(project, SESSION_A)
    agent.turn("Change x", ("write", "old.py", "x = 2\n"))
    agent.turn("Rename the module", ("shell", "mv old.py new.py", ""))
    agent.turn("Add y", ("write", "new.py", "x = 2\ny = 3\n"))
    changed, moved, added = entry_ids(SESSION_A)

    versions = history("new.py")["versions"]
    assert [v["version"] for v in versions] == [added, moved, changed, changed + "^"]
    assert [v["path"] for v in versions] == ["new.py", "new.py", "old.py", "old.py"]
    assert versions[1]["moved_from"] == "old.py"
    assert versions[1]["source"] == "shell"
    assert (versions[1]["added"], versions[1]["removed"]) == (0, 0)
    text = ok("history", "new.py").stdout
    assert "[renamed from old.py] Rename the module" in text
    assert "[as old.py] Change x" in text
    # The old name's own story ends with the move.
    old = history("old.py")["versions"]
    assert [(v["version"], v["state"]["kind"]) for v in old][:1] == [(moved, "absent")]


def test_a_binary_file_is_marked_binary(project: Path) -> None:
    (project / "logo.bin").write_bytes(b"\x89PNG\0\0\x01")
    ok("begin", "--session", "s", "--prompt", "Redraw the logo")
    ok("track", "--session", "s", "logo.bin")
    (project / "logo.bin").write_bytes(b"\x89PNG\0\0\x02\x03")
    ok("end", "--session", "s")

    versions = history("logo.bin")["versions"]
    assert [(v["binary"], v["side"]) for v in versions] == [(True, "after"), (False, "before")]
    lines = ok("history", "logo.bin").stdout.splitlines()
    assert lines[1].endswith("edit  binary, 8 B")


def test_external_and_outside_changes_are_versions_of_their_own(project: Path) -> None:
    (project / "a.txt").write_text("one\n")
    ok("begin", "--session", "s", "--prompt", "write a")
    ok("track", "--session", "s", "a.txt")
    (project / "a.txt").write_text("two\n")
    ok("end", "--session", "s")
    (project / "a.txt").write_text("by hand\n")  # drift: found by the next begin of "s"
    ok("begin", "--session", "s", "--prompt", "next")
    ok("end", "--session", "s")
    (project / "a.txt").write_text("by hand again\n")  # seen first by another session
    agent = Agent(project, SESSION_B)
    agent.turn("Tidy a", ("write", "a.txt", "tidy\n"))
    wrote, _ = entry_ids("s")
    drift = log_json("--session", "s")[1]["id"]
    (tidy,) = entry_ids(SESSION_B)

    versions = history("a.txt")["versions"]
    assert [(v["version"], v["source"]) for v in versions] == [
        (tidy, "edit"),
        (tidy + "^", "outside"),
        (drift, "external"),
        (wrote, "edit"),
        (wrote + "^", "edit"),
    ]
    assert versions[2]["prompt"] == DRIFT_PROMPT
    assert "claude-code  changed outside rewind  14 B  +1 -1\n" in ok("history", "a.txt").stdout


def test_restores_and_undos_are_versions(project: Path) -> None:
    (project / "a.txt").write_text("one\n")
    agent = Agent(project, SESSION_A)
    agent.turn("Make it two", ("write", "a.txt", "two\n"))
    ok("restore", "1", "--session", SESSION_A, "--yes")
    ok("undo", "--session", SESSION_A, "--yes")
    turn, restore, undo = entry_ids(SESSION_A)

    versions = history("a.txt")["versions"]
    assert [(v["version"], v["source"], v["kind"]) for v in versions] == [
        (undo, "undo", "undo"),
        (restore, "restore", "restore"),
        (turn, "edit", "turn"),
        (turn + "^", "edit", "turn"),
    ]
    assert versions[1]["state"]["oid"] == versions[3]["state"]["oid"]


def test_the_pre_commit_hook_records_versions_of_its_own(project: Path) -> None:
    (project / "a.txt").write_text("one\n")
    agent = Agent(project, SESSION_A)
    agent.turn("Make it two", ("write", "a.txt", "two\n"))
    (project / "a.txt").write_text("two, by hand\n")
    ok("install", "git-hook")
    subprocess.run(["git", "add", "a.txt"], check=True)
    subprocess.run(["git", "commit", "-q", "-m", "first"], check=True, capture_output=True)
    (git_turn,) = [e["id"] for e in log_json("--session", "git")]

    versions = history("a.txt")["versions"]
    assert (versions[0]["version"], versions[0]["source"]) == (git_turn + "^", "pre-commit")
    assert (versions[0]["session"], versions[0]["agent"]) == ("git", "git")


def test_nothing_recorded_is_one_line_or_an_empty_list(project: Path) -> None:
    assert json.loads(ok("history", "--json", "a.txt").stdout) == {
        "format": 1,
        "path": "a.txt",
        "versions": [],
    }
    (project / "b.txt").write_text("b\n")
    Agent(project, SESSION_A).turn("Write b", ("write", "b.txt", "bb\n"))
    refused = run_rewind("history", "a.txt")
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr == (  # as blame says it: one sentence, once "rewind"
        "rewind: nothing is recorded for a.txt; 'rewind log' lists the turns and the files each "
        "changed.\n"
    )
    assert history("a.txt")["versions"] == []
    assert "outside the project" in error_line(run_rewind("history", "/etc/passwd"))


def test_an_open_turn_counts_with_its_before_state(project: Path) -> None:
    (project / "a.txt").write_text("one\n")
    ok("begin", "--session", "s", "--prompt", "still working")
    ok("track", "--session", "s", "a.txt")
    (project / "a.txt").write_text("two\n")
    (open_turn,) = entry_ids("s")
    versions = history("a.txt")["versions"]
    assert [v["version"] for v in versions] == [open_turn + "^"]


def test_a_move_and_an_edit_in_one_turn_are_followed_through_the_recorded_move(
    project: Path,
) -> None:
    """The content differs at both ends, so only the move the quicksave announced links them."""
    (project / "old.py").write_text("x = 1\n")
    agent = Agent(project, SESSION_A)
    agent.turn("Change x", ("write", "old.py", "x = 2\n"))
    agent.turn(
        "Rename and extend",
        ("shell", "mv old.py new.py", ""),
        ("write", "new.py", "x = 2\ny = 3\n"),
    )
    changed, moved = entry_ids(SESSION_A)
    versions = history("new.py")["versions"]
    assert [(v["version"], v["path"]) for v in versions] == [
        (moved, "new.py"),
        (changed, "old.py"),
        (changed + "^", "old.py"),
    ]
    assert (versions[0]["moved_from"], versions[0]["added"], versions[0]["removed"]) == (
        "old.py",
        1,
        0,
    )
    recorded = {f["path"]: f for f in log_json("--session", SESSION_A)[1]["files"]}
    assert recorded["new.py"]["before"]["kind"] == "absent"


def test_a_codex_patch_that_moves_a_file_is_followed(project: Path) -> None:
    from tests.support.agent_payloads import Codex

    (project / "a.txt").write_text("one\n")
    codex = Codex(project, SESSION_B)

    hook("codex", codex.prompt("Move a to b and change it"))
    before, after = codex.patch("*** Update File: a.txt\n*** Move to: b.txt\n@@\n-one\n+two")
    hook("codex", before)
    (project / "a.txt").unlink()
    (project / "b.txt").write_text("two\n")
    hook("codex", after)
    hook("codex", codex.end())
    (moved,) = entry_ids(SESSION_B)
    versions = history("b.txt")["versions"]
    assert [(v["version"], v["path"], v["moved_from"]) for v in versions] == [
        (moved, "b.txt", "a.txt"),
        (moved + "^", "a.txt", None),
    ]


@pytest.mark.unit
def test_entries_without_moves_read_and_write_as_before() -> None:
    from rewind.history.entry import FileChange

    old = {"path": "a.txt", "before": {"kind": "absent"}, "after": None, "at": 1.0}
    change = FileChange.from_json(old)
    assert change.moved_from is None
    assert change.to_json() == old
    moved = FileChange.from_json({**old, "moved_from": "b.txt"})
    assert moved.moved_from == b"b.txt"
    assert moved.to_json() == {**old, "moved_from": "b.txt"}


def test_a_restore_and_its_undo_name_the_version_they_put_back(project: Path) -> None:
    (project / "app.py").write_text("a = 1\n")
    agent = Agent(project, SESSION_A)
    agent.turn("Make a two", ("write", "app.py", "a = 2\n"))
    ok("restore", "1", "--session", SESSION_A, "--yes")
    ok("undo", "--session", SESSION_A, "--yes")
    turn, restore, undo = entry_ids(SESSION_A)
    versions = history("app.py")["versions"]
    assert [v["version"] for v in versions] == [undo, restore, turn, turn + "^"]
    assert [v["same_as"] for v in versions] == [turn, turn + "^", None, None]
    text = ok("history", "app.py").stdout
    assert f"undo restore 2 (back to {turn}: #1 Make a two)" in text
    assert f"restore to before turn 1 (back to {turn}^: #1 Make a two)" in text
