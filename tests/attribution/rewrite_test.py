"""Notes through what people do to commits: amend, rebase -i (reorder, squash), cherry-pick. A
note another writer made (a teammate's machine, another tool) is carried as well as rewind's own,
where its lines reach the new commit unchanged."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rewind.history.attribution.authorship import turn_key
from rewind.history.attribution.carry import line_map
from rewind.history.attribution.note_format import (
    AgentId,
    FileLines,
    Note,
    PromptRecord,
    parse,
    prompt_key,
    render,
)
from tests.attribution.post_commit_test import commit, git, note_of, noted_project
from tests.conftest import ok, run_rewind
from tests.support.histories import History

TEAMMATE = prompt_key("codex", "teammate-session/e1")


@pytest.fixture
def history(project: Path) -> History:
    return noted_project(project, "base.txt", "base\n")


def foreign_note(root: Path, sha: str, path: str, lines: list[int]) -> None:
    """A note as another machine's writer left it: a key this store knows nothing of."""
    record = PromptRecord(AgentId("codex", "teammate-session"), "Bo <bo@example.com>")
    note = Note(sha, [FileLines(path, {TEAMMATE: lines})], {TEAMMATE: record}, writer_version="x")
    subprocess.run(
        ["git", "notes", "--ref=ai", "add", "-f", "-F", "-", sha],
        cwd=root,
        input=render(note),
        text=True,
        check=True,
    )


def wait_for(root: Path, revision: str, check: object, seconds: float = 20) -> Note:
    """The note of ``revision`` once ``check(note)`` holds (the hooks work in the background)."""
    deadline = time.monotonic() + seconds
    while True:
        sha = git(root, "rev-parse", revision)
        note = note_of(root, sha)
        if note is not None and callable(check) and check(note):
            return note
        if time.monotonic() > deadline:
            raise AssertionError(f"the note of {revision} is {note}")
        time.sleep(0.05)


def todo_editor(root: Path, change: str) -> str:
    """A GIT_SEQUENCE_EDITOR that runs ``change`` on ``lines``, the rebase's todo list."""
    script = root.parent / f"editor-{abs(hash(change))}.py"
    script.write_text(
        "import sys\n"
        "path = sys.argv[1]\n"
        "lines = open(path).readlines()\n"
        f"{change}\n"
        "open(path, 'w').writelines(lines)\n"
    )
    return f"{sys.executable} {script}"


def lines_of(note: Note, path: str) -> dict[str, list[int]]:
    return next((f.entries for f in note.files if f.path == path), {})


@pytest.mark.unit
def test_unchanged_lines_are_mapped_and_changed_ones_dropped() -> None:
    old = b"a\nb\nc\nd\n"
    new = b"top\na\nB\nc\nd\n"
    assert line_map(old, new) == {1: 2, 3: 4, 4: 5}


def test_an_amend_carries_another_writers_lines_past_a_persons_edit(history: History) -> None:
    root = history.root
    (root / "t.py").write_text("one\ntwo\nthree\n")
    old = commit(root, "t")
    foreign_note(root, old, "t.py", [1, 2, 3])
    (root / "t.py").write_text("# header\none\nTWO\nthree\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--amend", "--no-edit")
    new = git(root, "rev-parse", "HEAD")
    done = run_rewind("hook", "git-post-rewrite", cwd=root, input=f"{old} {new}\n")
    assert done.returncode == 0
    note = note_of(root, new)
    assert note is not None
    assert lines_of(note, "t.py") == {TEAMMATE: [2, 4]}  # "two" was changed: nobody's
    assert note.prompts[TEAMMATE].human_author == "Bo <bo@example.com>"


def test_rebase_reorder_and_squash_keep_each_turns_lines(history: History) -> None:
    root = history.root
    ok("install", "git-hook", cwd=root)
    with history.turn("write a", agent="claude-code") as turn:
        turn.write("a.py", "a = 1\n")
    commit(root, "a")
    (root / "b.py").write_text("b = 2\nbb = 3\n")
    b = commit(root, "b (a teammate's)")
    foreign_note(root, b, "b.py", [1, 2])
    with history.turn("write c", agent="claude-code") as turn:
        turn.write("c.py", "c = 3\n")
    commit(root, "c")
    [a_turn, c_turn] = history.entries()
    wait_for(root, "HEAD", lambda note: "c.py" in [f.path for f in note.files])

    # Reorder: c, b, a.
    editor = todo_editor(
        root, "lines = [l for l in lines if l.startswith('pick')]; lines.reverse()"
    )
    rebase = subprocess.run(
        ["git", "rebase", "-q", "-i", "HEAD~3"],
        cwd=root,
        env={**os.environ, "GIT_SEQUENCE_EDITOR": editor},
        capture_output=True,
        text=True,
    )
    assert rebase.returncode == 0, rebase.stderr
    assert git(root, "log", "--format=%s", "-3").splitlines() == ["a", "b (a teammate's)", "c"]
    wait_for(root, "HEAD~1", lambda n: lines_of(n, "b.py") == {TEAMMATE: [1, 2]})
    assert lines_of(wait_for(root, "HEAD", bool), "a.py") == {turn_key(a_turn): [1]}
    assert lines_of(wait_for(root, "HEAD~2", bool), "c.py") == {turn_key(c_turn): [1]}

    # Squash the teammate's b into c (now the oldest): one commit, both writers' lines.
    squash = todo_editor(root, "lines[1] = lines[1].replace('pick', 'squash', 1)")
    rebase = subprocess.run(
        ["git", "rebase", "-q", "-i", "HEAD~3"],
        cwd=root,
        env={**os.environ, "GIT_SEQUENCE_EDITOR": squash, "GIT_EDITOR": "true"},
        capture_output=True,
        text=True,
    )
    assert rebase.returncode == 0, rebase.stderr
    note = wait_for(root, "HEAD~1", lambda n: {f.path for f in n.files} == {"b.py", "c.py"})
    assert lines_of(note, "b.py") == {TEAMMATE: [1, 2]}
    assert lines_of(note, "c.py") == {turn_key(c_turn): [1]}
    assert set(note.prompts) == {TEAMMATE, turn_key(c_turn)}


def test_a_cherry_pick_carries_the_picked_commits_note(history: History) -> None:
    root = history.root
    ok("install", "git-hook", cwd=root)
    main = git(root, "rev-parse", "--abbrev-ref", "HEAD")
    git(root, "checkout", "-q", "-b", "side")
    (root / "s.py").write_text("s = 1\n")
    picked = commit(root, "s")
    foreign_note(root, picked, "s.py", [1])
    git(root, "checkout", "-q", main)
    git(root, "cherry-pick", picked)
    note = wait_for(root, "HEAD", lambda n: bool(n.files))
    assert lines_of(note, "s.py") == {TEAMMATE: [1]}
    assert note.base_commit_sha == git(root, "rev-parse", "HEAD")
    assert parse(git(root, "notes", "--ref=ai", "show", "HEAD")) == note


def test_a_rebase_starts_no_process_per_pick_and_labels_nothing(history: History) -> None:
    root = history.root
    ok("install", "git-hook", cwd=root)
    for name in ("p1", "p2", "p3"):
        with history.turn(f"write {name}", agent="claude-code") as turn:
            turn.write(f"{name}.py", f"{name} = 1\n")
        commit(root, name)
    wait_for(root, "HEAD", lambda n: [f.path for f in n.files] == ["p3.py"])
    calls = store_stats(root)
    subprocess.run(["git", "rebase", "-q", "--force-rebase", "HEAD~3"], cwd=root, check=True)
    for revision, name in (("HEAD~2", "p1"), ("HEAD~1", "p2"), ("HEAD", "p3")):
        wait_for(root, revision, lambda n, name=name: [f.path for f in n.files] == [f"{name}.py"])
    deadline = time.monotonic() + 20  # the hook's stats line follows its notes
    while "git-post-rewrite" not in store_stats(root)[len(calls) :]:
        assert time.monotonic() < deadline, store_stats(root)
        time.sleep(0.05)
    added = store_stats(root)[len(calls) :]
    assert [agent for agent in added if agent != "git"] == ["git-post-rewrite"]  # no pick's


def store_stats(root: Path) -> list[str]:
    """The agent of each hook call the store's stats counted, in order."""
    from tests.conftest import store_dir

    log = store_dir(root) / "rewind" / "stats" / "hook-calls.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [
        word[len("agent=") :]
        for line in lines
        for word in line.split()
        if word.startswith("agent=")
    ]


@pytest.mark.unit
def test_a_last_line_without_its_line_end_is_carried_when_lines_follow() -> None:
    assert line_map(b"a\nb", b"a\nb\nc\n") == {1: 1, 2: 2}


def test_a_note_another_writer_adds_meanwhile_is_merged_not_overwritten(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rewind.history.attribution import notes_writer

    root = history.root
    with history.turn("write both", agent="claude-code") as turn:
        turn.write("mine.py", "mine = 1\n")
    (root / "theirs.py").write_text("theirs = 1\n")
    sha = commit(root, "both")
    real = notes_writer.commit_note  # type: ignore[attr-defined]
    calls: list[int] = []

    def meanwhile(*args: object, **options: object) -> object:
        if not calls:  # another tool notes the commit while rewind blames its files
            foreign_note(root, sha, "theirs.py", [1])
        calls.append(1)
        return real(*args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(notes_writer, "commit_note", meanwhile)
    store = history.store
    notes_writer.note_commit(store, os.fsencode(root), sha)
    note = note_of(root, sha)
    assert note is not None
    assert {f.path: list(f.entries.values()) for f in note.files} == {
        "theirs.py": [[1]],
        "mine.py": [[1]],
    }
    assert len(calls) == 2  # merged again from the other writer's note


def test_every_work_tree_of_a_repository_takes_one_notes_lock(
    history: History, tmp_path: Path
) -> None:
    from rewind.history.attribution.notes_writer import notes_lock_path

    root = history.root
    other = tmp_path / "other-tree"
    git(root, "worktree", "add", "-q", str(other))
    assert notes_lock_path(os.fsencode(root)) == notes_lock_path(os.fsencode(other))
