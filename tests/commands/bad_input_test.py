"""Bad input through the command line: refused with exit 1 and one line saying what to do, or
recorded with a warning; never a crash, never a write outside the project."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import (
    RewindResult,
    error_line,
    log_json,
    ok,
    run_rewind,
    snapshot,
    store_dir,
    without_read_permission,
)

SESSION = "s"


def begin() -> None:
    ok("begin", "--session", SESSION)


def track(*paths: str) -> RewindResult:
    return run_rewind("track", "--session", SESSION, *paths)


def tracked_paths() -> list[str]:
    return [f["path"] for entry in log_json("--session", SESSION) for f in entry["files"]]


# paths rewind must not touch -------------------------------------------------------------------


def test_absolute_path_outside_the_root_is_refused(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_bytes(b"x\n")
    begin()
    line = error_line(track(str(outside)))
    assert "outside the project root" in line and "extra_roots in rewind.toml" in line
    assert tracked_paths() == []


def test_relative_path_leaving_the_root_is_refused(project: Path) -> None:
    begin()
    assert "extra_roots" in error_line(track("../escape.txt"))


def test_path_through_a_symlink_to_outside_is_refused(project: Path, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    os.symlink(str(tmp_path / "outside"), project / "ext")
    begin()
    assert "extra_roots" in error_line(track("ext/f.txt"))


def test_restore_path_outside_the_root_is_refused(project: Path) -> None:
    begin()
    ok("track", "--session", SESSION, "a.txt")
    result = run_rewind("restore", "1", "--session", SESSION, "--yes", "--path", "/etc/hostname")
    assert "extra_roots" in error_line(result)


def test_extra_roots_allow_an_outside_directory(project: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "notes.txt").write_bytes(b"shared 0\n")
    (project / "rewind.toml").write_text(f"extra_roots = [{str(shared)!r}]\n")
    begin()
    assert track(str(shared / "notes.txt")).returncode == 0
    (shared / "notes.txt").write_bytes(b"shared 1\n")
    ok("end", "--session", SESSION)
    ok("restore", "1", "--session", SESSION, "--yes")
    assert (shared / "notes.txt").read_bytes() == b"shared 0\n"


def test_paths_inside_dot_git_are_refused(project: Path) -> None:
    os.symlink(".git", project / "gitlink")
    (project / "vendor").mkdir()
    begin()
    for path in (".git/config", "gitlink/HEAD", "vendor/.git/config"):
        assert ".git directory" in error_line(track(path))
    assert tracked_paths() == []


def test_directory_is_refused_by_track(project: Path) -> None:
    (project / "src").mkdir()
    begin()
    line = error_line(track("src"))
    assert "src is a directory" in line and "track the files in it" in line
    assert tracked_paths() == []


def test_project_root_itself_is_refused(project: Path) -> None:
    begin()
    assert "project root" in error_line(track("."))


def test_empty_path_is_refused(project: Path) -> None:
    begin()
    assert "empty path" in error_line(track(""))


def test_fifo_is_not_recorded(project: Path) -> None:
    os.mkfifo(project / "pipe")
    begin()
    assert "not a regular file" in error_line(track("pipe"))
    assert tracked_paths() == []


# files recorded without their content ---------------------------------------------------------


def test_unreadable_file_is_recorded_without_content_with_a_warning(project: Path) -> None:
    (project / "locked.txt").write_bytes(b"locked\n")
    (project / "locked.txt").chmod(0o000)
    (project / "open.txt").write_bytes(b"open\n")
    begin()
    line = error_line(without_read_permission("track", "--session", SESSION, "locked.txt"))
    assert "could not be read" in line and "permissions" in line
    ok("track", "--session", SESSION, "open.txt")
    (project / "locked.txt").chmod(0o644)
    (project / "locked.txt").write_bytes(b"changed\n")
    (project / "open.txt").write_bytes(b"changed\n")
    ok("end", "--session", SESSION)
    assert log_json("--session", SESSION)[0]["files"][0]["before"]["kind"] == "unreadable"
    result = run_rewind("restore", "1", "--session", SESSION, "--yes")
    assert result.returncode == 2, result
    assert "skip      locked.txt" in result.stdout
    assert "could not be brought back (the other files were): locked.txt" in result.stderr
    assert (project / "locked.txt").read_bytes() == b"changed\n"
    assert (project / "open.txt").read_bytes() == b"open\n"


def test_file_above_max_file_size_is_recorded_without_content(project: Path) -> None:
    (project / "rewind.toml").write_text("max_file_size = 64\n")
    (project / "big.bin").write_bytes(b"x" * 65)
    (project / "small.txt").write_bytes(b"small\n")
    begin()
    line = error_line(track("big.bin", "small.txt"))
    assert "big.bin" in line and "max_file_size" in line
    (project / "big.bin").write_bytes(b"y" * 100)
    (project / "small.txt").write_bytes(b"SMALL\n")
    ok("end", "--session", SESSION)
    before = log_json("--session", SESSION)[0]["files"][0]["before"]
    assert (before["kind"], before["size"], "oid" in before) == ("too-large", 65, False)
    result = run_rewind("restore", "1", "--session", SESSION, "--yes")
    assert result.returncode == 2, result
    assert "skip      big.bin" in result.stdout
    assert "big.bin: its earlier state was not recorded (too-large)" in result.stderr
    assert "raise max_file_size in rewind.toml" in result.stderr
    assert (project / "big.bin").read_bytes() == b"y" * 100
    assert (project / "small.txt").read_bytes() == b"small\n"


@pytest.mark.parametrize(
    "text",
    ['max_file_size = "big"\n', "max_file_size = -1\n", "extra_roots = 3\n", "max_file_size =\n"],
)
def test_broken_rewind_toml_is_named_in_one_line(project: Path, text: str) -> None:
    (project / "rewind.toml").write_text(text)
    assert "rewind.toml" in error_line(run_rewind("begin"))


# turns, sessions and the store ------------------------------------------------------------------


def two_turns(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    for content in (b"a1\n", b"a2\n"):
        begin()
        assert track("a.txt").returncode == 0
        (project / "a.txt").write_bytes(content)
    ok("end", "--session", SESSION)


@pytest.mark.parametrize("command", [["restore", "9", "--yes"], ["show", "9"], ["diff", "9"]])
def test_unknown_turn_shows_the_valid_range(project: Path, command: list[str]) -> None:
    two_turns(project)
    line = error_line(run_rewind(*command, "--session", SESSION))
    assert "no turn '9'" in line and "turns go from 1 to 2" in line


def test_unknown_turn_id_shows_the_valid_range(project: Path) -> None:
    two_turns(project)
    line = error_line(run_rewind("restore", "fedcba", "--session", SESSION, "--yes"))
    assert "turns go from 1 to 2" in line


def test_unknown_session_is_named(project: Path) -> None:
    two_turns(project)
    line = error_line(run_rewind("log", "--session", "nope"))
    assert "no session 'nope'" in line and "rewind sessions" in line


def test_restore_path_not_changed_in_those_turns_is_refused(project: Path) -> None:
    two_turns(project)
    (project / "other.txt").write_bytes(b"o\n")
    result = run_rewind("restore", "1", "--session", SESSION, "--yes", "--path", "other.txt")
    assert "other.txt was not changed in turns 1..2" in error_line(result)
    assert (project / "a.txt").read_bytes() == b"a2\n"


def test_undo_without_a_restore_says_so(project: Path) -> None:
    two_turns(project)
    assert "no restore to undo" in error_line(run_rewind("undo", "--session", SESSION, "--yes"))


@pytest.mark.parametrize("command", [["log"], ["restore", "1"], ["undo"], ["check"], ["end"]])
def test_commands_before_anything_was_recorded_say_how_to_start(
    project: Path, command: list[str]
) -> None:
    assert "rewind begin" in error_line(run_rewind(*command))


def test_missing_directory_for_dash_c_is_named(project: Path, tmp_path: Path) -> None:
    line = error_line(run_rewind("-C", str(tmp_path / "nowhere"), "log"))
    assert "nowhere is not a directory" in line


def test_missing_object_refuses_the_restore_naming_rewind_check(project: Path) -> None:
    two_turns(project)
    oid = log_json("--session", SESSION)[0]["files"][0]["before"]["oid"]
    (store_dir(project) / "objects" / oid[:2] / oid[2:]).unlink()
    before = snapshot(project)
    line = error_line(run_rewind("restore", "1", "--session", SESSION, "--yes"))
    assert oid in line and "rewind check" in line
    assert snapshot(project) == before
    history = ["git", f"--git-dir={store_dir(project)}", "rev-list", "--count"]
    count = subprocess.run([*history, "refs/rewind/sessions/s"], capture_output=True, text=True)
    assert count.stdout == "2\n"  # no restore entry was recorded
    check = run_rewind("check")
    assert check.returncode == 1
    assert f"the before-state of a.txt ({oid}) is missing or corrupted" in check.stderr


# projects with nothing in them ----------------------------------------------------------------


def test_empty_project_works(project: Path) -> None:
    ok("begin", "--session", SESSION, "--prompt", "nothing happens")
    ok("end", "--session", SESSION)
    [entry] = log_json("--session", SESSION)
    assert entry["files"] == []
    assert "nothing to change" in ok("restore", "1", "--session", SESSION, "--yes").stdout
    assert ok("check").stdout.startswith("checked 0 stored file versions: 0 problem(s)")
    assert sorted(os.listdir(project)) == [".git"]


def test_directory_that_is_not_a_git_repository_works(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_bytes(b"a\n")
    ok("begin", "--session", SESSION, cwd=plain)
    ok("track", "--session", SESSION, "a.txt", cwd=plain)
    (plain / "a.txt").write_bytes(b"A\n")
    ok("restore", "1", "--session", SESSION, "--yes", cwd=plain)
    assert (plain / "a.txt").read_bytes() == b"a\n"
