"""``rewind demo`` as a newcomer runs it, without a terminal (as in CI): it replays the session
through real hook processes, prints the log, and leaves nothing behind."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rewind.commands.demo_script import INITIAL_FILES, PROJECT
from tests.conftest import RewindResult, ok, snapshot

PROMPTS = [
    "Make add() treat None as 0 and add a test",
    "The TODOs are done: drop notes.txt, and guard mean() against no values",
    "Use the new logo, and keep the old one as logo-old.png",
    "Rename calc.py to arith.py",
]


def run_demo(*args: str, temporary: Path, path: str | None = None) -> RewindResult:
    temporary.mkdir(exist_ok=True)
    completed = subprocess.run(
        [sys.executable, "-m", "rewind", "demo", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={
            **{key: value for key, value in os.environ.items() if key != "REWIND_CAPTURE_PROGRAMS"},
            "TMPDIR": str(temporary),
            "PATH": path or os.environ["PATH"],
        },  # as installed: capture on, its watcher started by the first prompt
        timeout=300,
    )
    return RewindResult.of(completed)


def check_log(stdout: str) -> None:
    # entry 2 is the edit made by hand between the first two prompts
    for number, prompt in zip([1, 3, 4, 5], PROMPTS, strict=True):
        assert re.search(rf"^ +{number}  [0-9a-f]{{12}}  .*{re.escape(prompt)}", stdout, re.M)
    assert re.search(r"^ +2  [0-9a-f]{12}  .*changes outside the agent", stdout, re.M)
    assert "M tests/test_calc.py  +1 -1  (external)" in stdout
    assert "[none-fixed]" in stdout  # the label the demo adds to turn 1
    assert "D notes.txt" in stdout  # deleted by a shell command (quicksave)
    assert "A tests/test_calc.py" in stdout  # a new file (Write)
    assert "M logo.png  binary" in stdout  # bytes written by a shell command
    assert "A logo-old.png  binary" in stdout
    assert "What a person would do next" in stdout


@pytest.mark.parametrize("args", [["--no-tui"], []], ids=["no-tui", "no-terminal"])
def test_demo_prints_the_log_and_leaves_nothing_behind(args: list[str], tmp_path: Path) -> None:
    home = Path(os.environ["REWIND_HOME"])
    assert not home.exists()
    result = run_demo(*args, temporary=tmp_path / "tmp")
    assert result.returncode == 0, result
    check_log(result.stdout)
    assert list((tmp_path / "tmp").iterdir()) == []  # the demo's directory is gone
    assert not _processes_in(tmp_path / "tmp")  # and its watcher with it
    assert not home.exists()  # the rewind home of the person running it is untouched


def test_kept_demo_rewinds_to_the_initial_files(tmp_path: Path) -> None:
    result = run_demo("--keep", "--no-tui", temporary=tmp_path / "tmp")
    assert result.returncode == 0, result
    check_log(result.stdout)
    (base,) = (tmp_path / "tmp").iterdir()
    assert f"Kept the demo in {base}" in result.stdout
    # The hints follow what they need (the export), and name every agent install takes.
    assert result.stdout.index("export REWIND_HOME=") < result.stdout.index("rewind show 4")
    assert (
        "'rewind install AGENT', AGENT one of claude-code, codex, gemini, cursor, copilot, "
        "cline, git-hook, windsurf, pi, qwen, droid, opencode or kilo." in result.stdout
    )
    project = base / PROJECT
    demo_home = {"REWIND_HOME": str(base / "rewind-home")}
    # --force: entry 2 is an edit made by hand, which a restore undoes only when told to
    ok("restore", "1", "--yes", "--force", cwd=project, env=demo_home)
    files = {
        path: content
        for path, (kind, content, _) in snapshot(project).items()
        if kind == "file" and not path.startswith(b".git")
    }
    assert files == {os.fsencode(name): content for name, content in INITIAL_FILES.items()}
    # A kept demo keeps its watcher (it records the restore just made): stopped before removal.
    ok("watch", "--stop", cwd=project, env=demo_home)
    shutil.rmtree(base)


def test_the_hints_say_when_rewind_is_not_on_path(tmp_path: Path) -> None:
    git = shutil.which("git")
    assert git is not None
    bare = os.path.dirname(git)
    assert shutil.which("rewind", path=bare) is None
    hint = "These assume the rewind command is on your PATH, and it is not"
    result = run_demo("--no-tui", temporary=tmp_path / "tmp", path=bare)
    assert result.returncode == 0, result
    assert hint in result.stdout
    assert "'pipx install .'" in result.stdout
    on_path = tmp_path / "bin"
    on_path.mkdir()
    (on_path / "rewind").symlink_to(sys.executable)
    result = run_demo("--no-tui", temporary=tmp_path / "tmp", path=f"{on_path}{os.pathsep}{bare}")
    assert result.returncode == 0, result
    assert hint not in result.stdout


def _processes_in(folder: Path) -> list[str]:
    """The command lines of the processes that name ``folder`` (a watcher left running)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (
                    (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                )
            except OSError:
                continue
            if str(folder) in line:
                found.append(line)
    return found
