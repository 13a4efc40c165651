"""git status, asked read-only: every kind of change, and the user's index left untouched."""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from pathlib import Path

import pytest

from rewind.git_status import changed_paths, parse_porcelain, run_quietly


def git(project: Path, *arguments: str) -> None:
    subprocess.run(["git", *arguments], cwd=project, check=True, capture_output=True)


def test_reports_every_kind_of_change_but_ignored_files(project: Path) -> None:
    for name in ("modified", "renamed", "deleted", "staged"):
        (project / name).write_text(name)
    git(project, "add", ".")
    git(project, "commit", "-qm", "initial")
    (project / "modified").write_text("changed")
    git(project, "mv", "renamed", "renamed-to")
    (project / "deleted").unlink()
    (project / "staged").write_text("staged change")
    git(project, "add", "staged")
    (project / "sub").mkdir()
    (project / "sub" / "untracked").write_text("new")
    (project / ".gitignore").write_text("*.log\n")
    (project / "noise.log").write_text("ignored")

    assert sorted(changed_paths(bytes(project))) == sorted(
        [
            b".gitignore",
            b"deleted",
            b"modified",
            b"renamed",
            b"renamed-to",
            b"staged",
            b"sub/untracked",
        ]
    )


def test_does_not_write_the_users_index(project: Path) -> None:
    (project / "a").write_text("a")
    git(project, "add", "a")
    git(project, "commit", "-qm", "initial")
    (project / "a").write_text("touched so that a plain git status would refresh the index")
    index = project / ".git" / "index"
    before = (hashlib.sha256(index.read_bytes()).hexdigest(), index.stat().st_mtime_ns)
    assert changed_paths(bytes(project)) == [b"a"]
    assert (hashlib.sha256(index.read_bytes()).hexdigest(), index.stat().st_mtime_ns) == before


def test_parses_renames_and_names_with_spaces() -> None:
    output = b"R  new name\0old name\0 M plain\0?? dir/with space\0"
    assert parse_porcelain(output) == [b"new name", b"old name", b"plain", b"dir/with space"]


def test_run_quietly_gives_exit_code_output_and_errors() -> None:
    script = b"echo out; echo err >&2; read line || echo 'no input' >&2; exit 3"
    code, output, errors = run_quietly([b"sh", b"-c", script], dict(os.environ), timeout=30)
    assert (code, output, errors) == (3, b"out\n", b"err\nno input\n")


def test_run_quietly_reads_both_streams_past_a_pipe_buffer() -> None:
    script = b"head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2"
    code, output, errors = run_quietly([b"sh", b"-c", script], dict(os.environ), timeout=30)
    assert (code, len(output), len(errors)) == (0, 300000, 300000)


def test_run_quietly_stops_a_program_that_takes_too_long() -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        run_quietly([b"sleep", b"30"], dict(os.environ), timeout=0.3)
    assert time.monotonic() - started < 10


def test_run_quietly_reports_a_missing_program() -> None:
    with pytest.raises(FileNotFoundError):
        run_quietly([b"no-such-program-anywhere"], dict(os.environ), timeout=30)
