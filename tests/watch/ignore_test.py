"""What the watcher never records (the project's .git, ignored files, rewind's exclude globs,
rewind's own store) and that it never writes the user's repository."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ok
from tests.watch.conftest import SESSION, Watch, external, recorded_with, wait_for


def git_dir_state(project: Path) -> dict[str, tuple[str, int, int]]:
    """Every file under .git: its digest, size and modification time (ns)."""
    found = {}
    for folder, _, names in os.walk(project / ".git"):
        for name in names:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            with open(path, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
            found[os.path.relpath(path, project)] = (digest, info.st_size, info.st_mtime_ns)
    return found


def test_ignored_paths_are_not_recorded(committed: Path, watching: Watch) -> None:
    (committed / "build").mkdir()
    (committed / "build" / "out.o").write_bytes(b"\0object")  # .gitignore: build/
    (committed / "debug.log").write_text("noise\n")  # .gitignore: *.log
    (committed / "node_modules" / "left-pad").mkdir(parents=True)  # rewind's default globs
    (committed / "node_modules" / "left-pad" / "index.js").write_text("module.exports = 1\n")
    (committed / "src" / "__pycache__").mkdir()
    (committed / "src" / "__pycache__" / "calc.cpython-311.pyc").write_bytes(b"\0pyc")
    (committed / "src" / ".calc.py.swp").write_bytes(b"vim swap")
    # Claude Code's atomic writes, caught before their rename (built in, whatever the globs say)
    (committed / "notes.txt.tmp.6077.a8c4690971c6").write_text("one\ntwo\n")
    (committed / "src" / "settings.json.tmp.0f3c9a1b").write_text("{}\n")
    subprocess.run(["git", "tag", "v1"], cwd=committed, check=True)  # writes under .git
    (committed / "kept.txt").write_text("recorded\n")
    wait_for(lambda: recorded_with(committed, "kept.txt", b"recorded\n"), "kept.txt")
    assert list(external(committed)) == [b"kept.txt"]


def test_exclude_globs_come_from_rewind_toml(committed: Path) -> None:
    (committed / "rewind.toml").write_text('watch_exclude = ["*.tmp", "generated/**"]\n')
    watch = Watch(committed, "--session", SESSION)
    try:
        (committed / "scratch.tmp").write_text("x\n")
        (committed / "generated" / "deep").mkdir(parents=True)
        (committed / "generated" / "deep" / "api.py").write_text("x = 1\n")
        # the default globs are replaced: node_modules is recorded now
        (committed / "node_modules").mkdir()
        (committed / "node_modules" / "kept.js").write_text("1\n")
        wait_for(lambda: recorded_with(committed, "node_modules/kept.js", b"1\n"), "kept.js")
        assert list(external(committed)) == [b"node_modules/kept.js"]
    finally:
        watch.stop()


def test_a_store_under_the_project_is_not_recorded(
    committed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """REWIND_HOME inside the root (its store, its logs): rewind's own writes are not changes."""
    monkeypatch.setenv("REWIND_HOME", str(committed / "not-ignored" / "rewind-home"))
    ok("begin", "--session", SESSION)
    watch = Watch(committed, "--session", SESSION)
    try:
        (committed / "one.txt").write_text("1\n")
        wait_for(lambda: recorded_with(committed, "one.txt", b"1\n"), "one.txt")
        (committed / "two.txt").write_text("2\n")
        wait_for(lambda: recorded_with(committed, "two.txt", b"2\n"), "two.txt")
        assert sorted(external(committed)) == [b"one.txt", b"two.txt"]
    finally:
        watch.stop()


def test_the_users_git_directory_is_never_written(committed: Path) -> None:
    """Start-up reads the index and runs git status; pre-images read blobs; ignore rules read
    .gitignore: .git stays byte for byte and timestamp for timestamp as it was."""
    (committed / "notes.txt").write_text("dirty before the watcher\n")
    before = git_dir_state(committed)
    watch = Watch(committed, "--session", SESSION)
    try:
        (committed / "doomed.txt").unlink()
        (committed / "src" / "calc.py").write_text("changed\n")
        (committed / "debug.log").write_text("ignored\n")
        wait_for(lambda: recorded_with(committed, "doomed.txt", None), "doomed.txt")
        wait_for(lambda: recorded_with(committed, "src/calc.py", b"changed\n"), "calc.py")
        ok("restore", "1", "--yes")
    finally:
        watch.stop()
    assert git_dir_state(committed) == before
