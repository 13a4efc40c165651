"""A committed line's prompt answered where its session never was: notes pushed with the sessions
to a bare remote, fetched into a fresh clone with another rewind home, and read by ``rewind
blame``; a note another tool wrote is read the same way."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from rewind.history.attribution.authorship import turn_key
from rewind.history.attribution.note_format import parse
from tests.attribution.post_commit_test import NOTES_ON, commit, git, post_commit
from tests.attribution.rewrite_test import TEAMMATE, foreign_note
from tests.conftest import ok, run_rewind
from tests.support.histories import History


def test_a_fresh_clone_answers_blame_from_the_pushed_notes(project: Path, tmp_path: Path) -> None:
    root = Path(os.path.realpath(project))
    (root / "rewind.toml").write_text(NOTES_ON + "prompts = true\n")
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    commit(root, "calc")
    history = History(root)
    with history.turn("add mean()", agent="claude-code") as turn:
        turn.write("calc.py", "def add(a, b):\n    return a + b\n\n\ndef mean(xs):\n    return 0\n")
    sha = commit(root, "mean")
    post_commit(root, sha)

    bare = tmp_path / "shared.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    subprocess.run(["git", "-C", str(bare), "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    git(root, "remote", "add", "origin", str(bare))
    git(root, "push", "-q", "origin", "HEAD:refs/heads/main")
    ok("remote", "add", "team", str(bare), cwd=root)
    pushed = ok("push", "--all", "--yes", "team", cwd=root)
    assert "authorship notes (refs/notes/ai) pushed to team" in pushed.stdout
    assert git(root, "ls-remote", str(bare), "refs/notes/ai").split()[0] == git(
        root, "rev-parse", "refs/notes/ai"
    )

    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(bare), str(clone)], check=True)
    teammate = {"REWIND_HOME": str(tmp_path / "teammate-home")}
    ok("remote", "add", "team", str(bare), cwd=clone, env=teammate)
    fetched = ok("fetch", "team", cwd=clone, env=teammate)
    assert "authorship notes (refs/notes/ai) of team merged into this repository" in fetched.stdout

    assert (
        ok("log", "--commit", "HEAD", "--json", cwd=clone, env=teammate).stdout.count(
            '"prompt": "add mean()"'
        )
        == 1
    )
    blamed = ok("blame", "calc.py", cwd=clone, env=teammate)
    lines = blamed.stdout.splitlines()
    assert f"note {sha[:12]} claude session s #1  add mean()" in lines
    assert lines[-1].startswith(f"note {sha[:12]} (#1    claude)")
    assert lines[-1].endswith("6|     return 0")
    assert lines[-6].startswith("before the record")  # "def add": a line no note names
    as_json = json.loads(ok("blame", "calc.py", "--json", cwd=clone, env=teammate).stdout)
    [noted] = as_json["noted"]
    [entry] = history.entries()
    assert noted == {
        "start": 3,
        "count": 4,
        "commit": sha,
        "key": turn_key(entry),
        "tool": "claude",
        "model": "unknown",
        "session": "s",
        "turn": 1,
        "prompt": "add mean()",
        "author": "Test <test@example.com>",
    }


def test_another_writers_note_is_read_back(project: Path) -> None:
    root = Path(os.path.realpath(project))
    (root / "w.py").write_text("one\ntwo\n")
    sha = commit(root, "w")
    foreign_note(root, sha, "w.py", [2])
    blamed = run_rewind("blame", "w.py", cwd=root)
    assert blamed.returncode == 0, blamed
    lines = blamed.stdout.splitlines()
    assert f"note {sha[:12]} codex session teammate-session  (the note holds no prompt)" in lines
    assert lines[-2].startswith("before the record")
    assert lines[-1].startswith(f"note {sha[:12]} (      codex)")
    as_json = json.loads(ok("blame", "w.py", "--json", cwd=root).stdout)
    assert [(n["start"], n["key"], n["author"]) for n in as_json["noted"]] == [
        (2, TEAMMATE, "Bo <bo@example.com>")
    ]


def test_blame_answers_names_git_quotes_and_prompts_with_any_character(project: Path) -> None:
    root = Path(os.path.realpath(project))
    (root / "rewind.toml").write_text(NOTES_ON + "prompts = true\n")
    commit(root, "settings")
    history = History(root)
    prompt = "pasted text\u2028with a line separator\x85and a next line"
    with history.turn(prompt, agent="claude-code") as turn:
        turn.write("café.py", "x = 1\n")
        turn.write('q"uote.py', "y = 2\n")
        turn.write("---", "z = 3\n")
    sha = commit(root, "odd names")
    post_commit(root, sha)
    note = parse(git(root, "notes", "--ref=ai", "show", sha))  # rewind reads its own note back
    assert sorted(f.path for f in note.files) == ["café.py", 'q"uote.py']  # "---" cannot be named
    for name in ("café.py", 'q"uote.py'):
        lines = ok("blame", name, cwd=root, env={"REWIND_HOME": str(root.parent / "other")})
        assert lines.stdout.splitlines()[-1].startswith(f"note {sha[:12]}"), lines.stdout
    as_json = json.loads(ok("log", "--commit", sha, "--json", cwd=root).stdout)
    assert [p["prompt"] for p in as_json["prompts"]] == [prompt.replace("\x85", "\\x85")]
