"""Hostile input to authorship notes: what git's hooks hand over, and notes another machine or
tool left. A hook exits 0 and prints nothing; nothing a note holds can exhaust a reader or stop
rewind from writing notes for the commits after it."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from rewind.history.attribution.note_format import MAX_LINES, NoteError, parse
from tests.attribution.post_commit_test import (
    commit,
    git,
    note_of,
    noted_project,
    post_commit,
)
from tests.conftest import ok, run_rewind, store_dir
from tests.support.histories import History


@pytest.fixture
def history(project: Path) -> History:
    return noted_project(project, "base.txt", "base\n")


def store_log(root: Path) -> str:
    log = store_dir(root) / "rewind" / "rewind.log"
    return log.read_text() if log.exists() else ""


@pytest.mark.parametrize(
    "payload",
    [
        '{"commit": "--output=/tmp/rewind-hostile"}',
        '{"commit": "HEAD"}',
        '{"commit": "0123456789abcdef0123456789abcdef01234567", "picked": "$(touch x)"}',
        '{"commit": ["not", "text"]}',
    ],
)
def test_a_post_commit_payload_that_names_no_commit(history: History, payload: str) -> None:
    root = history.root
    before = git(root, "for-each-ref")
    done = run_rewind("hook", "git-post-commit", payload, cwd=root)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert git(root, "for-each-ref") == before
    assert not (root / "x").exists()


def test_post_rewrite_lines_that_are_no_commits(history: History) -> None:
    root = history.root
    garbage = "not a line\n" + "f" * 40 + " --exec\n" + "\x00\xff" * 1000 + "\n"
    done = run_rewind("hook", "git-post-rewrite", cwd=root, input=garbage)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert git(root, "for-each-ref", "refs/notes/") == ""


def test_a_note_claiming_more_lines_than_any_file_is_unreadable_not_expanded() -> None:
    huge = f"a.py\n  k 1-{MAX_LINES}\n  k 1-9\n---\n" + (
        '{"schema_version": "authorship/3.0.0", "base_commit_sha": "", "prompts": {}}'
    )
    with pytest.raises(NoteError):
        parse(huge)
    with pytest.raises(NoteError):
        parse("a.py\n  k 1-99999999999999999\n---\n{}")


def test_a_hostile_note_on_an_earlier_commit_stops_nothing(history: History) -> None:
    root = history.root
    (root / "old.py").write_text("old\n")
    old = commit(root, "old")
    bomb = "old.py\n" + "".join(f"  k{n} 1-1999999\n" for n in range(50)) + "---\n{}"
    subprocess.run(
        ["git", "notes", "--ref=ai", "add", "-F", "-", old],
        cwd=root,
        input=bomb,
        text=True,
        check=True,
    )
    blamed = ok("blame", "old.py", cwd=root)
    assert blamed.stdout.splitlines()[-1].startswith("before the record")
    assert "cannot be read" in ok("log", "--commit", old, cwd=root).stdout
    with history.turn("new", agent="claude-code") as turn:
        turn.write("new.py", "new = 1\n")
    sha = commit(root, "new")
    post_commit(root, sha)
    note = note_of(root, sha)
    assert note is not None and [f.path for f in note.files] == ["new.py"]
    assert store_log(root) == ""


GIT_AI_NOTE = """calc.py
  c9883b05a2487d6d 1
---
{
  "schema_version": "authorship/3.0.0",
  "git_ai_version": "1.6.24",
  "base_commit_sha": "SHA",
  "prompts": {
    "c9883b05a2487d6d": {
      "agent_id": {
        "tool": "cursor",
        "id": "session_123",
        "model": "claude-3-sonnet"
      },
      "human_author": null,
      "messages_url": "https://example.com/m/1",
      "total_additions": 1,
      "total_deletions": 0,
      "accepted_lines": 1,
      "overriden_lines": 0,
      "custom_attributes": {
        "pr": 12
      }
    }
  },
  "future_field": {"kept": true}
}"""


def attach(root: Path, sha: str, text: str) -> None:
    subprocess.run(
        ["git", "notes", "--ref=ai", "add", "-f", "-F", "-", sha],
        cwd=root,
        input=text,
        text=True,
        check=True,
    )


def test_another_writers_note_is_never_rewritten_to_say_less(history: History) -> None:
    root = history.root
    (root / "calc.py").write_text("by cursor\n")
    sha = commit(root, "cursor's")
    attach(root, sha, GIT_AI_NOTE.replace("SHA", sha))
    before = git(root, "notes", "--ref=ai", "show", sha)
    post_commit(root, sha)  # rewind has nothing to add: the note is left byte for byte
    assert git(root, "notes", "--ref=ai", "show", sha) == before

    with history.turn("add more", agent="claude-code") as turn:
        turn.write("more.py", "more = 1\n")
    (root / "calc.py").write_text("by cursor\nby hand\n")
    sha = commit(root, "both")
    attach(root, sha, GIT_AI_NOTE.replace("SHA", sha))
    post_commit(root, sha)  # rewind adds its lines; the rest stays as the other writer wrote it
    text = git(root, "notes", "--ref=ai", "show", sha)
    note = parse(text)
    assert [f.path for f in note.files] == ["calc.py", "more.py"]
    assert '"messages_url": "https://example.com/m/1"' in text
    assert '"pr": 12' in text and '"future_field": {' in text
    assert '"git_ai_version": "1.6.24"' in text


def test_a_note_nested_deep_or_full_of_escapes_answers_nothing_and_prints_nothing_raw(
    history: History,
) -> None:
    root = history.root
    (root / "deep.py").write_text("one\n")
    deep = commit(root, "deep")
    attach(root, deep, "deep.py\n  k 1\n---\n" + '{"a":' * 100_000 + "1" + "}" * 100_000)
    assert ok("blame", "deep.py", cwd=root).stdout.splitlines()[-1].startswith("before")
    assert "cannot be read" in ok("log", "--commit", deep, cwd=root).stdout

    (root / "esc.py").write_text("one\n")
    esc = commit(root, "esc")
    hostile = GIT_AI_NOTE.replace("SHA", esc).replace("calc.py", "esc.py")
    hostile = hostile.replace('"cursor"', '"\\u001b]52;c;cHduZWQ=\\u0007\\u001b[2J"')
    attach(root, esc, hostile)
    for output in (
        ok("blame", "esc.py", cwd=root).stdout,
        ok("log", "--commit", esc, cwd=root).stdout,
    ):
        assert "\x1b" not in output and "\x07" not in output
        assert "\\x1b]52;c;" in output


def test_a_remote_that_refuses_notes_fails_no_push(history: History, tmp_path: Path) -> None:
    root = history.root
    with history.turn("x", agent="claude-code") as turn:
        turn.write("x.py", "x = 1\n")
    post_commit(root, commit(root, "x"))
    bare = tmp_path / "no-notes.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    refuse = bare / "hooks" / "pre-receive"
    refuse.write_text(
        "#!/bin/sh\nwhile read old new ref; do\n"
        '  case $ref in refs/notes/*) echo "notes are not taken here"; exit 1;; esac\n'
        "done\nexit 0\n"
    )
    refuse.chmod(0o755)
    ok("remote", "add", "sessions", str(bare), cwd=root)
    for _ in range(2):  # and the next push as well
        pushed = run_rewind("push", "--all", "sessions", cwd=root)
        assert pushed.returncode == 0, pushed
        assert "the sessions were pushed, the authorship notes were not" in pushed.stderr
        assert "notes are not taken here" in pushed.stderr


def test_a_rewind_folder_in_the_repository_is_never_run_by_the_hooks(history: History) -> None:
    root = history.root
    ok("install", "git-hook", cwd=root)
    (root / "rewind").mkdir()
    ran = root.parent / "ran-the-repositorys-rewind"
    (root / "rewind" / "__init__.py").write_text("")
    (root / "rewind" / "__main__.py").write_text(f"open({str(ran)!r}, 'w').write('ran')\n")
    with history.turn("y", agent="claude-code") as turn:
        turn.write("y.py", "y = 1\n")
    sha = commit(root, "y")
    deadline = time.monotonic() + 20
    while note_of(root, sha) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert note_of(root, sha) is not None
    assert not ran.exists()
