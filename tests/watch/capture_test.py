"""What a real watcher records of changes made by shell commands, subprocesses and editors, and
that ``rewind restore`` rewinds them byte for byte."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

from tests.conftest import ok, snapshot
from tests.watch.conftest import SESSION, Watch, entries, external, recorded_with, wait_for

NEW_BYTES = bytes(range(256)) * 4


def editor_save(path: Path, text: str) -> None:
    """What editors do: write a temporary file, rename it over the target, then chmod, a few
    milliseconds apart (the pauses are an editor's pace, well within the quiet period)."""
    temporary = path.with_name(f".{path.name}.tmp{os.getpid()}")
    temporary.write_text(text)
    temporary.chmod(0o600)
    time.sleep(0.04)
    os.replace(temporary, path)
    time.sleep(0.04)
    path.chmod(0o644)


def shell(command: str, cwd: Path) -> None:
    subprocess.run(["bash", "-c", command], cwd=cwd, check=True)


def test_shell_subprocess_and_editor_changes_are_recorded_and_rewound(
    committed: Path, watching: Watch
) -> None:
    before = snapshot(committed)
    shell("sed -i 's/two/TWO/' notes.txt", committed)
    shell("mv old.txt new.txt", committed)
    shell("rm doomed.txt", committed)
    shell("cat > config.ini <<'EOF'\n[main]\nkey = 2\nEOF", committed)
    script = f"import os; os.makedirs('gen'); open('gen/out.bin', 'wb').write({NEW_BYTES!r})"
    subprocess.run([sys.executable, "-c", script], cwd=committed, check=True)
    editor_save(committed / "src" / "calc.py", "def add(a, b):\n    return (a or 0) + b\n")

    expected = {
        "notes.txt": b"one\nTWO\nthree\n",
        "old.txt": None,
        "new.txt": b"to be renamed\n",
        "doomed.txt": None,
        "config.ini": b"[main]\nkey = 2\n",
        "gen/out.bin": NEW_BYTES,
        "src/calc.py": b"def add(a, b):\n    return (a or 0) + b\n",
    }
    for path, content in expected.items():
        wait_for(partial(recorded_with, committed, path, content), f"{path} recorded")
    after = snapshot(committed)

    changes = external(committed)
    assert sorted(changes) == sorted(path.encode() for path in expected)  # no temporary file
    assert all(change.before is not None for change in changes.values())
    kinds = {path: change.before.kind for path, change in changes.items() if change.before}
    assert kinds == {
        b"notes.txt": "file",  # every pre-image is known: the index's blob,
        b"old.txt": "file",
        b"doomed.txt": "file",
        b"config.ini": "file",
        b"src/calc.py": "file",
        b"new.txt": "absent",  # or absent (not in the index, not reported by git status)
        b"gen/out.bin": "absent",
    }
    assert changes[b"gen/out.bin"].before.missing_dirs == 1  # type: ignore[union-attr]
    [turn] = entries(committed)
    assert turn.agent == "claude-code" and turn.is_open  # recorded in the agent's open turn

    log = ok("log").stdout
    assert "M notes.txt  +1 -1  (external)" in log
    assert "D doomed.txt  +0 -1  (external)" in log
    assert "A gen/out.bin  binary  (external)" in log

    ok("restore", "1", "--yes")
    assert snapshot(committed) == before
    # The restore's own writes are not external changes: a later change is recorded alone.
    (committed / "sentinel.txt").write_text("after the restore\n")
    wait_for(lambda: recorded_with(committed, "sentinel.txt", b"after the restore\n"), "sentinel")
    last = entries(committed)[-1]
    assert [change.path for change in last.files] == [b"sentinel.txt"]
    (committed / "sentinel.txt").unlink()
    wait_for(lambda: recorded_with(committed, "sentinel.txt", None), "sentinel removed")

    ok("undo", "--yes")
    assert snapshot(committed) == after

    # An editor's write-rename-chmod is one change: the watcher reported src/calc.py once.
    output = watching.stop()
    assert [line for line in output.splitlines() if "src/calc.py" in line] == [
        f"M src/calc.py  (session {SESSION})"
    ]


def test_changes_recorded_earlier_are_rewound_in_a_project_without_git(
    tmp_path: Path, monkeypatch: object
) -> None:
    """Without git, a file's pre-image is the state rewind recorded for it last."""
    project = tmp_path / "plain"
    project.mkdir()
    (project / "a.txt").write_text("first\n")
    (project / "b.txt").write_text("second\n")
    ok("begin", "--session", SESSION, cwd=project)
    ok("track", "--session", SESSION, "a.txt", "b.txt", cwd=project)
    ok("end", "--session", SESSION, cwd=project)
    ok("begin", "--session", SESSION, "--prompt", "second turn", cwd=project)
    before = snapshot(project)
    watch = Watch(project, "--session", SESSION)
    try:
        shell("sed -i 's/first/FIRST/' a.txt && rm b.txt && echo new > c.txt", project)
        wait_for(lambda: recorded_with(project, "a.txt", b"FIRST\n"), "a.txt")
        wait_for(lambda: recorded_with(project, "b.txt", None), "b.txt")
        wait_for(lambda: recorded_with(project, "c.txt", b"new\n"), "c.txt")
        ok("restore", "2", "--yes", cwd=project)
        assert snapshot(project) == before
    finally:
        watch.stop()


def test_outside_git_the_files_there_at_start_are_known(tmp_path: Path) -> None:
    """Without git, the watcher lists the files at start and keeps their contents (its
    snapshot): a name that was not there did not exist (a rename's new name is rewindable),
    and one that was comes back as it was."""
    project = tmp_path / "plain"
    project.mkdir()
    (project / "draft.txt").write_text("never recorded\n")
    ok("begin", "--session", SESSION, "--prompt", "work", cwd=project)
    watch = Watch(project, "--session", SESSION)
    try:
        shell("mv draft.txt final.txt", project)
        wait_for(lambda: recorded_with(project, "final.txt", b"never recorded\n"), "final.txt")
        wait_for(lambda: recorded_with(project, "draft.txt", None), "draft.txt")
        changes = external(project)
        assert changes[b"final.txt"].before.kind == "absent"  # type: ignore[union-attr]
        assert changes[b"draft.txt"].before.kind == "file"  # type: ignore[union-attr]
        ok("restore", "1", "--yes", cwd=project)
        assert (project / "draft.txt").read_text() == "never recorded\n"
        assert not (project / "final.txt").exists()
    finally:
        watch.stop()


def test_a_file_renamed_in_from_outside_over_an_existing_one_keeps_what_it_replaced(
    committed: Path, watching: Watch, tmp_path: Path
) -> None:
    """inotify reports a rename from outside the root as a creation; the index says the file
    existed, so its blob is the pre-image (a creation would make a restore delete the file)."""
    outside = tmp_path / "outside.txt"
    outside.write_text("written elsewhere\n")
    os.rename(outside, committed / "notes.txt")
    wait_for(lambda: recorded_with(committed, "notes.txt", b"written elsewhere\n"), "notes.txt")
    ok("restore", "1", "--yes")
    assert (committed / "notes.txt").read_text() == "one\ntwo\nthree\n"


def test_a_committed_file_removed_by_rm_comes_back_from_the_index(
    committed: Path, watching: Watch
) -> None:
    """rm of a committed file rewind never saw: the index's blob is its pre-image (mode too)."""
    ok("end", "--session", SESSION)
    shell("rm run.sh", committed)
    wait_for(lambda: recorded_with(committed, "run.sh", None), "run.sh deleted")
    # the session is still the agent's, though its newest turn is the watcher's
    assert ok("log").stdout.startswith(f"session {SESSION} (claude-code)\n")
    change = external(committed)[b"run.sh"]
    assert change.before is not None and change.before.kind == "file"
    [_, watch_turn] = entries(committed)
    assert (watch_turn.agent, watch_turn.prompt) == ("watch", "changes outside the agent")
    ok("restore", str(watch_turn.number), "--yes")
    assert (committed / "run.sh").read_text() == "#!/bin/sh\necho hi\n"
    assert (committed / "run.sh").stat().st_mode & 0o777 == 0o755


def test_a_file_with_uncommitted_changes_comes_back_from_the_snapshot(project: Path) -> None:
    """A file dirty when the watcher started, never recorded by rewind: the index does not hold
    it, the watcher's snapshot does."""
    (project / "draft.txt").write_text("v1\n")
    subprocess.run(["git", "add", "draft.txt"], cwd=project, check=True)
    subprocess.run(["git", "commit", "-qm", "draft"], cwd=project, check=True)
    (project / "draft.txt").write_text("v2, not committed\n")  # dirty at start
    ok("begin", "--session", SESSION, "--prompt", "work")
    watch = Watch(project, "--session", SESSION)
    try:
        (project / "draft.txt").write_text("v3\n")
        wait_for(lambda: recorded_with(project, "draft.txt", b"v3\n"), "draft.txt")
        ok("restore", "1", "--yes")
        assert (project / "draft.txt").read_text() == "v2, not committed\n"
    finally:
        watch.stop()


def test_a_change_with_no_knowable_pre_image_is_not_rewindable(project: Path) -> None:
    """A file dirty when the watcher started and larger than max_file_size: its content was
    not kept, and log and restore say it is not rewindable."""
    (project / "rewind.toml").write_text("max_file_size = 8\n")
    (project / "draft.txt").write_text("v1\n")
    subprocess.run(["git", "add", "draft.txt", "rewind.toml"], cwd=project, check=True)
    subprocess.run(["git", "commit", "-qm", "draft"], cwd=project, check=True)
    (project / "draft.txt").write_text("v2, not committed\n")  # dirty at start, 18 bytes
    ok("begin", "--session", SESSION, "--prompt", "work")
    watch = Watch(project, "--session", SESSION)
    try:
        (project / "draft.txt").write_text("v3\n")
        wait_for(lambda: recorded_with(project, "draft.txt", b"v3\n"), "draft.txt")
        before = external(project)[b"draft.txt"].before
        assert before is not None and not before.restorable
        plan = ok("restore", "1", "--dry-run").stdout
        assert "skip      draft.txt  (its earlier state was not recorded (too-large))" in plan
    finally:
        watch.stop()


def test_the_agents_own_edits_stay_edits(committed: Path, watching: Watch) -> None:
    """A file the agent's hooks tracked is in the open turn: the watcher only refreshes its
    after-state, it does not make it external."""
    ok("track", "--session", SESSION, "notes.txt")
    (committed / "notes.txt").write_text("edited by the agent\n")
    (committed / "sentinel.txt").write_text("x\n")
    wait_for(lambda: recorded_with(committed, "sentinel.txt", b"x\n"), "sentinel")
    [turn] = entries(committed)
    sources = {change.path: change.source for change in turn.files}
    assert sources == {b"notes.txt": "edit", b"sentinel.txt": "external"}
    after = turn.file(b"notes.txt").after  # type: ignore[union-attr]
    assert after is not None and after.size == len("edited by the agent\n")


def test_changes_between_turns_go_to_a_watch_turn_that_begin_closes(
    committed: Path, watching: Watch
) -> None:
    ok("end", "--session", SESSION)
    (committed / "notes.txt").write_text("changed between prompts\n")
    wait_for(lambda: recorded_with(committed, "notes.txt", b"changed between prompts\n"), "notes")
    ok("begin", "--session", SESSION, "--agent", "claude-code", "--prompt", "next")
    _, outside, following = entries(committed)
    assert not outside.is_open and outside.agent == "watch" and following.agent == "claude-code"
    assert "changes outside the agent" in ok("log").stdout
    ok("restore", str(outside.number), "--yes")
    assert (committed / "notes.txt").read_text() == "one\ntwo\nthree\n"


def test_a_path_another_sessions_open_turn_holds_is_recorded_in_that_turn(
    committed: Path, watching: Watch
) -> None:
    """Two sessions at once: the watcher runs for session ``s``; session ``other``'s open turn
    holds notes.txt (its agent's hook recorded it), so a later change of notes.txt is that
    turn's, its after-state refreshed there, and no external change of session ``s``."""
    from rewind.history.filestate import fingerprint

    ok("begin", "--session", "other", "--agent", "codex", "--prompt", "theirs")
    ok("track", "--session", "other", "notes.txt")
    (committed / "notes.txt").write_text("changed under the other session\n")

    def refreshed() -> bool:
        turn = entries(committed, "other")[-1]
        [change] = [change for change in turn.files if change.path == b"notes.txt"]
        expected = fingerprint(b"changed under the other session\n")
        return change.after is not None and change.after.xxh == expected

    wait_for(refreshed, "the other session's turn to hold the change")
    assert b"notes.txt" not in external(committed)
    watching.stop()
    assert b"notes.txt" not in external(committed)
    ok("restore", "--session", "other", "1", "--yes")
    assert (committed / "notes.txt").read_text() == "one\ntwo\nthree\n"
