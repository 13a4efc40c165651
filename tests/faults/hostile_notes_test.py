"""Hostile input to authorship notes: what git's hooks hand over, and notes another machine or
tool left. A hook exits 0 and prints nothing; nothing a note holds can exhaust a reader or stop
rewind from writing notes for the commits after it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from rewind.history.attribution.note_format import MAX_LINES, NoteError, parse
from tests.attribution.post_commit_test import NOTES_ON, commit, git, note_of, post_commit
from tests.conftest import ok, run_rewind, store_dir
from tests.support.histories import History


@pytest.fixture
def history(project: Path) -> History:
    root = Path(os.path.realpath(project))
    (root / "rewind.toml").write_text(NOTES_ON)
    (root / "base.txt").write_text("base\n")
    commit(root, "base")
    return History(root)


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


@pytest.mark.unit
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
