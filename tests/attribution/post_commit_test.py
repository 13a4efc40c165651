"""The post-commit hook's note on real repositories: an agent's turns recorded, hand edits
between the turn and the commit, then ``git commit`` and ``rewind hook git-post-commit``."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from rewind.history.attribution.authorship import turn_key
from rewind.history.attribution.note_format import AgentId, Note, parse, prompt_text
from tests.conftest import ok, run_rewind, store_dir
from tests.support.histories import History

AUTHOR = "Test <test@example.com>"  # the suite's git identity (tests/conftest.py)
NOTES_ON = "[attribution]\nnotes = true\n"


def git(root: Path, *arguments: str) -> str:
    done = subprocess.run(["git", *arguments], cwd=root, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def note_of(root: Path, revision: str = "HEAD") -> Note | None:
    done = subprocess.run(
        ["git", "notes", "--ref=ai", "show", revision], cwd=root, capture_output=True, text=True
    )
    return parse(done.stdout) if done.returncode == 0 else None


def post_commit(root: Path, sha: str) -> None:
    ok("hook", "git-post-commit", json.dumps({"commit": sha}), cwd=root)


@pytest.fixture
def history(project: Path) -> History:
    return noted_project(project, "calc.py", "def add(a, b):\n    return a + b\n")


def noted_project(project: Path, name: str, content: str) -> History:
    """``project`` with notes on in its rewind.toml and one commit of ``name`` by hand."""
    root = Path(os.path.realpath(project))
    (root / "rewind.toml").write_text(NOTES_ON)
    (root / name).write_text(content)
    commit(root, name)
    return History(root)


def test_the_agents_lines_are_noted_and_a_persons_edit_is_not(history: History) -> None:
    root = history.root
    with history.turn("add mean() and a test", agent="claude-code") as turn:
        turn.write(
            "calc.py",
            "def add(a, b):\n    return a + b\n\n\ndef mean(xs):\n    return sum(xs) / len(xs)\n",
        )
        turn.write("test_calc.py", "from calc import mean\n\n\ndef test_mean():\n    assert 1\n")
    # By hand, before the commit: the test's assertion.
    history.write(
        "test_calc.py", "from calc import mean\n\n\ndef test_mean():\n    assert mean([2]) == 2\n"
    )
    sha = commit(root, "mean")
    post_commit(root, sha)
    note = note_of(root)
    assert note is not None
    [entry] = history.entries()
    key = turn_key(entry)
    assert note.base_commit_sha == sha
    assert [(f.path, f.entries) for f in note.files] == [
        ("calc.py", {key: [3, 4, 5, 6]}),
        ("test_calc.py", {key: [1, 2, 3, 4]}),
    ]
    record = note.prompts[key]
    assert record.agent_id == AgentId("claude", "s", "unknown")
    assert record.human_author == AUTHOR
    assert prompt_text(record) == ""  # prompts stay out by default
    assert (record.total_additions, record.accepted_lines, record.overriden_lines) == (9, 8, 1)
    assert record.custom_attributes == {"rewind_entry": entry.id, "rewind_turn": "1"}
    # The note is exactly its format's text, attached with git's own notes.
    text = git(root, "notes", "--ref=ai", "show", sha)
    assert text.startswith("calc.py\n  " + key + " 3-6\ntest_calc.py\n")
    # The prompt is not in the note; this machine's record has it.
    assert ok("log", "--commit", "HEAD", cwd=root).stdout.splitlines() == [
        f"commit {sha[:12]}  mean",
        "  claude session s #1: add mean() and a test",
        "      calc.py 3-6",
        "      test_calc.py 1-4",
    ]


def test_lines_committed_before_are_not_noted_again(history: History) -> None:
    root = history.root
    with history.turn("a helper", agent="codex") as turn:
        turn.write("util.py", "def one():\n    return 1\n")
    post_commit(root, commit(root, "helper"))
    history.write("util.py", "def one():\n    return 1\n\n\ndef two():\n    return 2\n")
    sha = commit(root, "by hand")
    post_commit(root, sha)
    assert note_of(root, "HEAD~1") is not None
    assert note_of(root, sha) is None  # no line of it is an agent's: no note
    assert (
        ok("log", "--commit", sha, cwd=root)
        .stdout.splitlines()[1]
        .startswith("  no authorship note: no line of it is an agent's")
    )
    refused = run_rewind("log", "--commit", "no-such-branch", cwd=root)
    assert refused.returncode == 1
    assert refused.stderr.startswith("rewind: 'no-such-branch' is not a commit of this repository")


def test_the_prompt_is_in_the_note_only_when_asked(history: History) -> None:
    root = history.root
    (root / "rewind.toml").write_text(NOTES_ON + "prompts = true\n")
    git(root, "add", "rewind.toml")
    with history.turn("make it say hello", agent="gemini") as turn:
        turn.write("hello.py", "print('hello')\n")
    post_commit(root, commit(root, "hello"))
    note = note_of(root)
    assert note is not None
    [record] = note.prompts.values()
    assert prompt_text(record) == "make it say hello"
    assert record.agent_id.tool == "gemini"


def test_nothing_is_written_while_notes_are_off(history: History) -> None:
    root = history.root
    (root / "rewind.toml").unlink()
    with history.turn("x", agent="claude-code") as turn:
        turn.write("x.py", "x = 1\n")
    post_commit(root, commit(root, "x"))
    assert note_of(root) is None
    assert git(root, "for-each-ref", "refs/notes/") == ""


def test_installed_hooks_note_each_commit_in_the_background(history: History) -> None:
    root = history.root
    hooks = root / ".git" / "hooks"
    ran = root.parent / "ran"
    mine = f"#!/bin/sh\necho post-commit >> '{ran}'\n"
    (hooks / "post-commit").write_text(mine)
    (hooks / "post-commit").chmod(0o755)
    installed = ok("install", "git-hook", cwd=root)
    assert "rewind's post-commit hook" in installed.stdout
    with history.turn("add one()", agent="claude-code") as turn:
        turn.write("one.py", "def one():\n    return 1\n")
    sha = commit(root, "one")
    assert ran.read_text() == "post-commit\n"  # the hook that was there still runs
    deadline = time.monotonic() + 20
    while (note := note_of(root, sha)) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert note is not None, "no note was written after the commit"
    assert [f.path for f in note.files] == ["one.py"]
    # The pre-commit hook's turn stays open without after-states (a later restore of it must
    # not see the files as changed since).
    [safety_net] = json.loads(ok("log", "--session", "git", "--json", cwd=root).stdout)
    assert safety_net["ended"] is None
    assert [f["after"] for f in safety_net["files"]] == [None]
    assert safety_net["labels"] == [
        "branch:" + git(root, "branch", "--show-current"),
        f"commit:{sha[:12]}",
    ]
    ok("uninstall", "git-hook", cwd=root)
    assert (hooks / "post-commit").read_text() == mine


def test_a_note_rewind_cannot_read_is_left_and_doctor_says_so(history: History) -> None:
    root = history.root
    with history.turn("y", agent="claude-code") as turn:
        turn.write("y.py", "y = 1\n")
    sha = commit(root, "y")
    subprocess.run(
        ["git", "notes", "--ref=ai", "add", "-m", "not a note of the format", sha],
        cwd=root,
        check=True,
    )
    post_commit(root, sha)  # the hook still exits 0
    assert git(root, "notes", "--ref=ai", "show", sha) == "not a note of the format"
    doctor = run_rewind("doctor", cwd=root)
    assert f"{sha[:12]} has a note rewind cannot read" in doctor.stdout + doctor.stderr


def test_a_commit_made_in_a_turn_is_in_that_turns_log(history: History) -> None:
    root = history.root
    (root / "rewind.toml").unlink()  # linking needs no notes
    with history.turn("write z and commit it", agent="claude-code") as turn:
        turn.write("z.py", "z = 1\n")
        sha = commit(root, "z")
        post_commit(root, sha)
    [entry] = history.entries()
    assert entry.labels == [f"commit:{sha[:12]}"]
    logged = ok("log", "--session", "s", cwd=root).stdout
    assert f"write z and commit it [commit:{sha[:12]}]" in logged
    # A commit between turns labels nothing.
    (root / "z.py").write_text("z = 2\n")
    post_commit(root, commit(root, "z2"))
    assert [e.labels for e in history.entries()] == [[f"commit:{sha[:12]}"]]


def test_a_commit_labels_no_turn_left_open_long_before_it(history: History) -> None:
    root = history.root
    ok("install", "git-hook", cwd=root)
    (root / "a.txt").write_text("a\n")
    first = commit(root, "a")  # its pre-commit turn of the session "git" stays open
    deadline = time.monotonic() + 20
    while (
        note_of(root, first) is None
        and "commit:" not in ok("log", "--session", "git", cwd=root).stdout
    ):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    journal = store_dir(root) / "rewind" / "journal" / "git"
    old = time.time() - 3 * 60  # older than a pre-commit of this commit could be
    os.utime(journal, (old, old))
    (root / "b.txt").write_text("b\n")
    git(root, "add", "b.txt")
    git(root, "commit", "-q", "--no-verify", "-m", "b")  # no pre-commit: no turn of its own
    second = git(root, "rev-parse", "HEAD")
    post_commit(root, second)
    [turn] = json.loads(ok("log", "--session", "git", "--json", cwd=root).stdout)
    assert f"commit:{second[:12]}" not in turn["labels"]


def test_lines_committed_through_crlf_conversion_are_found(history: History) -> None:
    root = history.root
    git(root, "config", "core.autocrlf", "true")  # CRLF in the work tree, LF in the commit
    with history.turn("windows file", agent="claude-code") as turn:
        turn.write("win.py", "a = 1\r\nb = 2\r\n")
    sha = commit(root, "crlf")
    assert git(root, "cat-file", "-p", f"{sha}:win.py") == "a = 1\nb = 2"
    post_commit(root, sha)
    note = note_of(root, sha)
    assert note is not None
    assert [(f.path, list(f.entries.values())) for f in note.files] == [("win.py", [[1, 2]])]


def test_a_move_and_a_merge_attest_no_line_again(history: History) -> None:
    root = history.root
    main = git(root, "branch", "--show-current")
    with history.turn("write m", agent="claude-code") as turn:
        turn.write("m.py", "m = 1\nmm = 2\n")
    post_commit(root, commit(root, "m"))
    git(root, "mv", "m.py", "n.py")
    moved = commit(root, "move")
    post_commit(root, moved)
    assert note_of(root, moved) is None  # a move adds no line

    git(root, "checkout", "-q", "-b", "side")
    with history.turn("write s", agent="claude-code") as turn:
        turn.write("s.py", "s = 1\n")
    post_commit(root, commit(root, "s"))
    git(root, "checkout", "-q", main)
    (root / "other.txt").write_text("other\n")
    commit(root, "other")
    git(root, "merge", "-q", "--no-ff", "--no-edit", "side")
    merged = git(root, "rev-parse", "HEAD")
    post_commit(root, merged)
    assert note_of(root, merged) is None  # the side branch's commit has its lines
    assert note_of(root, "side") is not None
