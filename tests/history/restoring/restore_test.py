"""Restoring to a turn, and undoing a restore: every rule of what is put back, and what is not."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from tests.conftest import (
    RewindResult,
    error_line,
    log_json,
    ok,
    run_on_a_terminal,
    run_rewind,
    snapshot,
    without_read_permission,
)

SESSION = "s"


def begin(prompt: str = "", session: str = SESSION) -> None:
    ok("begin", "--session", session, "--prompt", prompt)


def track(*paths: str, session: str = SESSION) -> None:
    ok("track", "--session", session, *paths)


def end(session: str = SESSION) -> None:
    ok("end", "--session", session)


def restore(*args: str, session: str = SESSION) -> RewindResult:
    return run_rewind("restore", "--session", session, "--yes", *args)


def undo(*args: str, session: str = SESSION) -> RewindResult:
    return run_rewind("undo", "--session", session, "--yes", *args)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


# content and existence -------------------------------------------------------------------------


def test_modified_file_gets_its_content_back(project: Path) -> None:
    (project / "a.txt").write_bytes(b"one\ntwo\n")
    begin("edit a")
    track("a.txt")
    (project / "a.txt").write_bytes(b"one\nTWO\nthree\n")
    end()
    assert restore("1").returncode == 0
    assert (project / "a.txt").read_bytes() == b"one\ntwo\n"


def test_file_the_turn_created_is_deleted(project: Path) -> None:
    begin("create")
    track("new.txt")
    (project / "new.txt").write_bytes(b"new\n")
    end()
    assert restore("1").returncode == 0
    assert not os.path.lexists(project / "new.txt")


def test_directories_created_for_new_files_are_removed(project: Path) -> None:
    begin("create nested files")
    track("pkg/sub/a.py")
    (project / "pkg" / "sub").mkdir(parents=True)
    (project / "pkg" / "sub" / "a.py").write_bytes(b"a\n")
    track("pkg/b.py", "pkg/other/c.py")  # pkg exists by now: recorded as created by this turn
    (project / "pkg" / "b.py").write_bytes(b"b\n")
    (project / "pkg" / "other").mkdir()
    (project / "pkg" / "other" / "c.py").write_bytes(b"c\n")
    end()
    assert restore("1").returncode == 0
    assert sorted(os.listdir(project)) == [".git"]


def test_created_directory_holding_other_files_is_kept(project: Path) -> None:
    begin("create")
    track("pkg/a.py")
    (project / "pkg").mkdir()
    (project / "pkg" / "a.py").write_bytes(b"a\n")
    (project / "pkg" / "notes.txt").write_bytes(b"not tracked\n")
    end()
    assert restore("1").returncode == 0
    assert not os.path.lexists(project / "pkg" / "a.py")
    assert (project / "pkg" / "notes.txt").read_bytes() == b"not tracked\n"


def test_directory_that_existed_before_the_turn_is_kept_even_when_empty(project: Path) -> None:
    (project / "empty").mkdir()
    begin("create in an existing directory")
    track("empty/new.txt")
    (project / "empty" / "new.txt").write_bytes(b"new\n")
    end()
    assert restore("1").returncode == 0
    assert os.listdir(project / "empty") == []


def test_path_that_is_now_a_directory_is_skipped_and_kept(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    (project / "b.txt").write_bytes(b"b\n")
    begin("replace a file by a directory")
    track("a.txt", "b.txt")
    (project / "a.txt").unlink()
    (project / "a.txt").mkdir()
    (project / "a.txt" / "inside").write_bytes(b"inside\n")
    (project / "b.txt").write_bytes(b"B\n")
    end()
    result = restore("1")
    assert result.returncode == 2, result  # done, but not everything came back
    assert "skip      a.txt  (it is now a directory" in result.stdout
    assert "1 file(s) could not be brought back (the other files were): a.txt" in result.stderr
    assert (project / "a.txt" / "inside").read_bytes() == b"inside\n"
    assert (project / "b.txt").read_bytes() == b"b\n"


def test_deleted_file_is_brought_back_with_its_directory(project: Path) -> None:
    (project / "docs").mkdir()
    (project / "docs" / "guide.md").write_bytes(b"# Guide\n")
    begin("delete docs")
    track("docs/guide.md")
    (project / "docs" / "guide.md").unlink()
    (project / "docs").rmdir()
    end()
    assert restore("1").returncode == 0
    assert (project / "docs" / "guide.md").read_bytes() == b"# Guide\n"


def test_binary_content_round_trips_byte_for_byte(project: Path) -> None:
    original = bytes(range(256)) * 64 + b"\0\r\n\x00\xff"
    (project / "blob.bin").write_bytes(original)
    begin("rewrite binary")
    track("blob.bin")
    (project / "blob.bin").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(reversed(original)))
    end()
    assert restore("1").returncode == 0
    assert (project / "blob.bin").read_bytes() == original


def test_empty_file_is_restored_empty(project: Path) -> None:
    (project / "empty").write_bytes(b"")
    begin("fill")
    track("empty")
    (project / "empty").write_bytes(b"content\n")
    end()
    assert restore("1").returncode == 0
    assert (project / "empty").read_bytes() == b""


def test_files_no_turn_touched_are_never_changed(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    (project / "bystander.txt").write_bytes(b"before\n")
    begin("edit a")
    track("a.txt")
    (project / "a.txt").write_bytes(b"A\n")
    (project / "bystander.txt").write_bytes(b"changed without rewind\n")
    (project / "stray.txt").write_bytes(b"created without rewind\n")
    end()
    assert restore("1").returncode == 0
    assert (project / "a.txt").read_bytes() == b"a\n"
    assert (project / "bystander.txt").read_bytes() == b"changed without rewind\n"
    assert (project / "stray.txt").read_bytes() == b"created without rewind\n"


# permission bits -----------------------------------------------------------------------------


def test_exec_bit_removed_by_a_turn_comes_back(project: Path) -> None:
    script = project / "run.sh"
    script.write_bytes(b"#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    begin("make it a plain file")
    track("run.sh")
    script.chmod(0o644)
    end()
    assert restore("1").returncode == 0
    assert mode_of(script) == 0o755
    assert script.read_bytes() == b"#!/bin/sh\necho hi\n"


def test_exec_bit_added_by_a_turn_is_removed(project: Path) -> None:
    script = project / "tool.py"
    script.write_bytes(b"print(1)\n")
    script.chmod(0o644)
    begin("make executable")
    track("tool.py")
    script.write_bytes(b"#!/usr/bin/env python3\nprint(1)\n")
    script.chmod(0o755)
    end()
    assert restore("1").returncode == 0
    assert mode_of(script) == 0o644
    assert script.read_bytes() == b"print(1)\n"


def test_private_mode_0600_is_restored(project: Path) -> None:
    secret = project / "secret.env"
    secret.write_bytes(b"TOKEN=1\n")
    secret.chmod(0o600)
    begin("loosen")
    track("secret.env")
    secret.chmod(0o664)
    end()
    assert restore("1").returncode == 0
    assert mode_of(secret) == 0o600


def test_deleted_files_come_back_with_their_modes(project: Path) -> None:
    (project / "key").write_bytes(b"k\n")
    (project / "key").chmod(0o600)
    (project / "bin.sh").write_bytes(b"#!/bin/sh\n")
    (project / "bin.sh").chmod(0o750)
    begin("delete both")
    track("key", "bin.sh")
    (project / "key").unlink()
    (project / "bin.sh").unlink()
    end()
    assert restore("1").returncode == 0
    assert mode_of(project / "key") == 0o600
    assert mode_of(project / "bin.sh") == 0o750
    assert (project / "key").read_bytes() == b"k\n"


# symlinks ------------------------------------------------------------------------------------


def test_symlink_target_is_restored_and_the_link_is_not_followed(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    (project / "b.txt").write_bytes(b"b\n")
    os.symlink("a.txt", project / "current")
    begin("repoint")
    track("current")
    os.unlink(project / "current")
    os.symlink("b.txt", project / "current")
    (project / "a.txt").write_bytes(b"a edited, not tracked\n")
    end()
    assert restore("1").returncode == 0
    assert os.readlink(project / "current") == "a.txt"
    assert (project / "a.txt").read_bytes() == b"a edited, not tracked\n"
    assert (project / "b.txt").read_bytes() == b"b\n"


def test_writing_through_a_tracked_symlink_does_not_make_rewind_write_its_target(
    project: Path,
) -> None:
    (project / "real.txt").write_bytes(b"real\n")
    os.symlink("real.txt", project / "alias")
    begin("write through the link")
    track("alias")
    (project / "alias").write_bytes(b"written through alias\n")
    end()
    result = restore("1")
    assert result.returncode == 0, result
    assert "nothing to change" in result.stdout
    assert os.readlink(project / "alias") == "real.txt"
    assert (project / "real.txt").read_bytes() == b"written through alias\n"


def test_dangling_symlink_is_recreated(project: Path) -> None:
    os.symlink("does/not/exist", project / "dangling")
    begin("remove link")
    track("dangling")
    os.unlink(project / "dangling")
    end()
    assert restore("1").returncode == 0
    assert os.readlink(project / "dangling") == "does/not/exist"
    assert not os.path.exists(project / "does")


def test_symlink_replaced_by_a_file_becomes_a_symlink_again(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "data.txt").write_bytes(b"outside\n")
    os.symlink(str(outside), project / "data")
    begin("replace link by a file")
    track("data")
    os.unlink(project / "data")
    (project / "data").write_bytes(b"now a file\n")
    end()
    assert restore("1").returncode == 0
    assert os.readlink(project / "data") == str(outside)
    assert os.listdir(outside) == ["data.txt"]
    assert (outside / "data.txt").read_bytes() == b"outside\n"


def test_file_replaced_by_a_symlink_becomes_a_file_again(project: Path) -> None:
    (project / "config.yml").write_bytes(b"debug: true\n")
    (project / "config.yml").chmod(0o640)
    (project / "shared.yml").write_bytes(b"shared\n")
    begin("link the config")
    track("config.yml")
    (project / "config.yml").unlink()
    os.symlink("shared.yml", project / "config.yml")
    end()
    assert restore("1").returncode == 0
    assert not os.path.islink(project / "config.yml")
    assert (project / "config.yml").read_bytes() == b"debug: true\n"
    assert mode_of(project / "config.yml") == 0o640
    assert (project / "shared.yml").read_bytes() == b"shared\n"


# names ---------------------------------------------------------------------------------------

NON_UTF8 = b"caf\xe9-\xff.txt"


def test_non_utf8_file_names_round_trip(project: Path) -> None:
    root = os.fsencode(project)
    with open(os.path.join(root, NON_UTF8), "wb") as handle:
        handle.write(b"before\n")
    begin("edit and create oddly named files")
    track(os.fsdecode(NON_UTF8), os.fsdecode(b"new-\xfe.txt"))
    with open(os.path.join(root, NON_UTF8), "wb") as handle:
        handle.write(b"after\n")
    with open(os.path.join(root, b"new-\xfe.txt"), "wb") as handle:
        handle.write(b"created\n")
    end()
    result = restore("1")
    assert result.returncode == 0, result
    assert sorted(os.listdir(root)) == [b".git", NON_UTF8]
    with open(os.path.join(root, NON_UTF8), "rb") as handle:
        assert handle.read() == b"before\n"


def test_non_utf8_names_print_under_a_strict_utf8_locale(project: Path) -> None:
    root = os.fsencode(project)
    begin("create")
    track(os.fsdecode(NON_UTF8))
    with open(os.path.join(root, NON_UTF8), "wb") as handle:
        handle.write(b"x\n")
    end()
    strict = {"PYTHONIOENCODING": "utf-8:strict"}  # what an en_US.UTF-8 terminal gets
    assert "caf\\xe9-\\xff.txt" in ok("log", "--session", SESSION, env=strict).stdout
    for command in (["show", "1"], ["diff", "1"]):  # a diff quotes the backslashes, as git does
        assert "+x" in ok(*command, "--session", SESSION, env=strict).stdout
    listed = json.loads(ok("log", "--json", "--session", SESSION, env=strict).stdout)
    assert listed[0]["files"][0]["path_hex"] == NON_UTF8.hex()
    result = run_rewind("restore", "1", "--session", SESSION, "--yes", env=strict)
    assert result.returncode == 0, result
    assert not os.path.lexists(os.path.join(root, NON_UTF8))


# choosing what to restore ---------------------------------------------------------------------


def test_path_option_restores_only_that_file(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    (project / "b.txt").write_bytes(b"b\n")
    begin("edit both")
    track("a.txt", "b.txt")
    (project / "a.txt").write_bytes(b"A\n")
    (project / "b.txt").write_bytes(b"B\n")
    end()
    assert restore("1", "--path", "a.txt").returncode == 0
    assert (project / "a.txt").read_bytes() == b"a\n"
    assert (project / "b.txt").read_bytes() == b"B\n"


def test_path_option_is_relative_to_the_current_directory(project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "m.py").write_bytes(b"m\n")
    (project / "m.py").write_bytes(b"top\n")
    begin("edit")
    track("src/m.py", "m.py")
    (project / "src" / "m.py").write_bytes(b"M\n")
    (project / "m.py").write_bytes(b"TOP\n")
    end()
    result = run_rewind(
        "restore", "1", "--session", SESSION, "--yes", "--path", "m.py", cwd=project / "src"
    )
    assert result.returncode == 0, result
    assert (project / "src" / "m.py").read_bytes() == b"m\n"
    assert (project / "m.py").read_bytes() == b"TOP\n"


def test_restore_to_a_middle_turn_uses_each_files_first_touch_from_there(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    (project / "b.txt").write_bytes(b"b0\n")
    begin("turn 1")
    track("a.txt")
    (project / "a.txt").write_bytes(b"a1\n")
    begin("turn 2")
    track("b.txt")
    (project / "b.txt").write_bytes(b"b1\n")
    begin("turn 3")
    track("a.txt", "c.txt")
    (project / "a.txt").write_bytes(b"a2\n")
    (project / "c.txt").write_bytes(b"c\n")
    end()
    assert restore("2").returncode == 0
    assert (project / "a.txt").read_bytes() == b"a1\n"  # first touched after turn 2, in turn 3
    assert (project / "b.txt").read_bytes() == b"b0\n"
    assert not os.path.lexists(project / "c.txt")


def test_restore_to_the_last_turn_leaves_earlier_turns_changes(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    begin("turn 1")
    track("a.txt", "b.txt")
    (project / "a.txt").write_bytes(b"a1\n")
    (project / "b.txt").write_bytes(b"b1\n")
    begin("turn 2")
    track("b.txt")
    (project / "b.txt").write_bytes(b"b2\n")
    end()
    assert restore("2").returncode == 0
    assert (project / "a.txt").read_bytes() == b"a1\n"
    assert (project / "b.txt").read_bytes() == b"b1\n"


def test_open_turn_is_closed_and_included_by_restore(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    begin("still open")
    track("a.txt")
    (project / "a.txt").write_bytes(b"a1\n")  # no 'rewind end'
    assert restore("1").returncode == 0
    assert (project / "a.txt").read_bytes() == b"a0\n"
    assert log_json("--session", SESSION)[0]["ended"] is not None


def test_dry_run_changes_nothing_and_records_nothing(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    begin("edit")
    track("a.txt", "new.txt")
    (project / "a.txt").write_bytes(b"A\n")
    (project / "new.txt").write_bytes(b"new\n")
    end()
    before = snapshot(project)
    result = restore("1", "--dry-run")
    assert result.returncode == 0, result
    assert "restore   a.txt" in result.stdout
    assert "delete    new.txt" in result.stdout
    assert snapshot(project) == before
    assert len(log_json("--session", SESSION)) == 1


def test_restore_with_nothing_to_change_records_no_entry(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    begin("no-op")
    track("a.txt")
    end()
    result = restore("1")
    assert result.returncode == 0, result
    assert "nothing to change" in result.stdout
    assert len(log_json("--session", SESSION)) == 1


def test_restore_entry_appears_in_the_log(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a\n")
    begin("edit")
    track("a.txt")
    (project / "a.txt").write_bytes(b"A\n")
    end()
    assert restore("1").returncode == 0
    entries = log_json("--session", SESSION)
    assert [(e["turn"], e["kind"]) for e in entries] == [(1, "turn"), (2, "restore")]
    assert entries[1]["prompt"] == "restore to before turn 1"
    assert entries[1]["target"] == {"turn": 1, "id": entries[0]["id"]}
    assert [f["path"] for f in entries[1]["files"]] == ["a.txt"]
    assert "restore to before turn 1" in ok("log", "--session", SESSION).stdout


# undo ------------------------------------------------------------------------------------------


def make_varied_turn(project: Path) -> None:
    """One turn that modifies, creates (in a new directory), deletes, chmods and repoints."""
    (project / "mod.txt").write_bytes(b"mod 0\n")
    (project / "gone.txt").write_bytes(b"gone\n")
    (project / "run.sh").write_bytes(b"#!/bin/sh\n")
    (project / "run.sh").chmod(0o755)
    os.symlink("mod.txt", project / "link")
    begin("varied")
    track("mod.txt", "gone.txt", "run.sh", "link", "new/dir/made.txt")
    (project / "mod.txt").write_bytes(b"mod 1\n")
    (project / "gone.txt").unlink()
    (project / "run.sh").chmod(0o600)
    os.unlink(project / "link")
    os.symlink("gone.txt", project / "link")
    (project / "new" / "dir").mkdir(parents=True)
    (project / "new" / "dir" / "made.txt").write_bytes(b"made\n")
    end()


def test_undo_reverses_a_restore_exactly(project: Path) -> None:
    make_varied_turn(project)
    after_turn = snapshot(project)
    assert restore("1").returncode == 0
    assert snapshot(project) != after_turn
    result = undo()
    assert result.returncode == 0, result
    assert snapshot(project) == after_turn
    assert log_json("--session", SESSION)[-1]["kind"] == "undo"


def test_redo_after_undo_puts_the_restore_back_exactly(project: Path) -> None:
    make_varied_turn(project)
    assert restore("1").returncode == 0
    restored = snapshot(project)
    assert undo().returncode == 0
    redone = run_rewind("redo", "--session", SESSION, "--yes")
    assert redone.returncode == 0, redone
    assert snapshot(project) == restored
    assert not os.path.lexists(project / "new")
    kinds = [e["kind"] for e in log_json("--session", SESSION)]
    assert kinds == ["turn", "restore", "undo", "redo"]


def test_undo_dry_run_changes_nothing(project: Path) -> None:
    make_varied_turn(project)
    assert restore("1").returncode == 0
    restored = snapshot(project)
    result = undo("--dry-run")
    assert result.returncode == 0, result
    assert snapshot(project) == restored
    assert len(log_json("--session", SESSION)) == 2


def test_undo_refuses_when_a_restored_file_changed_since(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    begin("edit")
    track("a.txt")
    (project / "a.txt").write_bytes(b"a1\n")
    end()
    assert restore("1").returncode == 0
    (project / "a.txt").write_bytes(b"edited after the restore\n")
    assert "a.txt" in error_line(undo())
    assert (project / "a.txt").read_bytes() == b"edited after the restore\n"
    assert undo("--force").returncode == 0
    assert (project / "a.txt").read_bytes() == b"a1\n"


# conflicts -------------------------------------------------------------------------------------


def test_conflict_refuses_and_changes_nothing(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    (project / "b.txt").write_bytes(b"b0\n")
    begin("edit both")
    track("a.txt", "b.txt")
    (project / "a.txt").write_bytes(b"a1\n")
    (project / "b.txt").write_bytes(b"b1\n")
    end()
    (project / "b.txt").write_bytes(b"edited by a person\n")
    before = snapshot(project)
    line = error_line(restore("1"))
    assert "b.txt" in line and "--force" in line
    assert snapshot(project) == before
    assert len(log_json("--session", SESSION)) == 1


def test_mode_change_outside_rewind_is_a_conflict(project: Path) -> None:
    (project / "a.sh").write_bytes(b"a0\n")
    begin("edit")
    track("a.sh")
    (project / "a.sh").write_bytes(b"a1\n")
    end()
    (project / "a.sh").chmod(0o755)
    error_line(restore("1"))
    assert (project / "a.sh").read_bytes() == b"a1\n"
    assert mode_of(project / "a.sh") == 0o755


def test_force_overwrites_and_undo_brings_the_outside_edit_back(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    begin("edit")
    track("a.txt", "new.txt")
    (project / "a.txt").write_bytes(b"a1\n")
    (project / "new.txt").write_bytes(b"new\n")
    end()
    (project / "a.txt").write_bytes(b"edited by a person\n")
    (project / "new.txt").chmod(0o700)
    edited = snapshot(project)
    result = restore("1", "--force")
    assert result.returncode == 0, result
    assert (project / "a.txt").read_bytes() == b"a0\n"
    assert not os.path.lexists(project / "new.txt")
    assert undo().returncode == 0
    assert snapshot(project) == edited


def test_another_sessions_later_change_is_never_overwritten_silently(project: Path) -> None:
    (project / "shared.txt").write_bytes(b"v0\n")
    begin("first agent", session="one")
    track("shared.txt", session="one")
    (project / "shared.txt").write_bytes(b"v1\n")
    end(session="one")
    begin("second agent", session="two")
    track("shared.txt", session="two")
    (project / "shared.txt").write_bytes(b"v2\n")
    end(session="two")
    line = error_line(restore("1", session="one"))
    assert "shared.txt" in line
    assert (project / "shared.txt").read_bytes() == b"v2\n"
    assert restore("1", "--force", session="one").returncode == 0
    assert (project / "shared.txt").read_bytes() == b"v0\n"
    assert undo(session="one").returncode == 0
    assert (project / "shared.txt").read_bytes() == b"v2\n"


def test_sessions_restore_their_own_files_only(project: Path) -> None:
    (project / "mine.txt").write_bytes(b"mine 0\n")
    (project / "theirs.txt").write_bytes(b"theirs 0\n")
    begin("first agent", session="one")
    track("mine.txt", session="one")
    (project / "mine.txt").write_bytes(b"mine 1\n")
    begin("second agent", session="two")
    track("theirs.txt", session="two")
    (project / "theirs.txt").write_bytes(b"theirs 1\n")
    end(session="two")
    assert restore("1", session="one").returncode == 0
    assert (project / "mine.txt").read_bytes() == b"mine 0\n"
    assert (project / "theirs.txt").read_bytes() == b"theirs 1\n"


def test_restore_never_writes_through_a_directory_replaced_by_a_symlink(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "out").mkdir()
    (project / "out" / "f.txt").write_bytes(b"f0\n")
    begin("replace directory")
    track("out/f.txt")
    (project / "out" / "f.txt").unlink()
    (project / "out").rmdir()
    end()
    os.symlink(str(outside), project / "out")
    result = restore("1")
    assert result.returncode == 2, result  # left out of the restore, and said
    assert "skip      out/f.txt  (rewind never writes it" in result.stdout
    assert os.listdir(outside) == []
    assert os.readlink(project / "out") == str(outside)


# content rewind could not keep ------------------------------------------------------------------


def test_content_above_max_file_size_is_saved_before_a_restore_overwrites_it(
    project: Path,
) -> None:
    (project / "rewind.toml").write_text("max_file_size = 100\n")
    (project / "data.bin").write_bytes(b"small\n")
    begin("generate data")
    track("data.bin")
    generated = os.urandom(1000)  # its after-state is recorded without content: too large
    (project / "data.bin").write_bytes(generated)
    end()
    assert restore("1").returncode == 0
    assert (project / "data.bin").read_bytes() == b"small\n"
    assert undo().returncode == 0
    assert (project / "data.bin").read_bytes() == generated


def test_unreadable_file_is_never_replaced_even_with_force(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    (project / "b.txt").write_bytes(b"b0\n")
    begin("edit")
    track("a.txt", "b.txt")
    (project / "a.txt").write_bytes(b"a1\n")
    (project / "b.txt").write_bytes(b"b1\n")
    end()
    (project / "a.txt").write_bytes(b"locked away\n")
    (project / "a.txt").chmod(0o000)
    result = without_read_permission("restore", "1", "--session", SESSION, "--yes", "--force")
    assert result.returncode == 2, result
    assert "skip      a.txt  (it cannot be read now" in result.stdout
    assert (project / "a.txt").read_bytes() == b"locked away\n"
    assert (project / "b.txt").read_bytes() == b"b0\n"


def test_another_sessions_change_during_an_open_turn_is_not_overwritten_silently(
    project: Path,
) -> None:
    (project / "shared.txt").write_bytes(b"v0\n")
    begin("first agent, still working", session="one")
    track("shared.txt", session="one")
    (project / "shared.txt").write_bytes(b"v1\n")
    begin("second agent", session="two")
    track("shared.txt", session="two")
    (project / "shared.txt").write_bytes(b"v2\n")
    end(session="two")
    result = restore("1", session="one")
    assert result.returncode == 1, result
    assert "changed by session two" in result.stdout
    assert (project / "shared.txt").read_bytes() == b"v2\n"
    forced = restore("1", "--force", session="one")
    assert forced.returncode == 0, forced
    assert (project / "shared.txt").read_bytes() == b"v0\n"
    assert undo(session="one").returncode == 0
    assert (project / "shared.txt").read_bytes() == b"v2\n"


def test_a_later_turn_that_saw_the_other_sessions_change_owns_it(project: Path) -> None:
    """Once this session recorded the file again, the other session's change is history."""
    (project / "shared.txt").write_bytes(b"v0\n")
    begin("first", session="one")
    track("shared.txt", session="one")
    (project / "shared.txt").write_bytes(b"v1\n")
    begin("other", session="two")
    track("shared.txt", session="two")
    (project / "shared.txt").write_bytes(b"v2\n")
    end(session="two")
    begin("second", session="one")
    track("shared.txt", session="one")
    (project / "shared.txt").write_bytes(b"v3\n")
    end(session="one")
    result = restore("2", session="one")
    assert result.returncode == 0, result
    assert (project / "shared.txt").read_bytes() == b"v2\n"


def test_a_long_plan_is_summarised_on_a_terminal_and_listed_in_full_on_request(
    project: Path,
) -> None:
    """On a terminal a 60-file plan is counts, the files needing attention and the first
    others; --list (or output that is not a terminal) shows every file."""
    names = [f"f{index:02d}.txt" for index in range(60)]
    for name in names:
        (project / name).write_bytes(b"0\n")
    begin("touch many")
    track(*names)
    for name in names:
        (project / name).write_bytes(b"1\n")
    end()
    (project / "f07.txt").write_bytes(b"changed by hand\n")

    def on_a_terminal(*arguments: str) -> str:
        restore = ["restore", "1", "--session", SESSION, *arguments]
        code, shown = run_on_a_terminal(restore, project, {"NO_COLOR": "1"})
        assert code == 1, shown  # the hand-made change is a conflict
        return shown

    summary = on_a_terminal("--dry-run")
    assert "  60 file(s): 60 to restore; 1 changed outside rewind" in summary
    assert "f07.txt  (changed outside rewind" in summary.splitlines()[2]
    assert "... and 40 more file(s); --list shows them all." in summary
    assert len([line for line in summary.splitlines() if "restore   f" in line]) == 20
    listed = on_a_terminal("--dry-run", "--list")
    assert len([line for line in listed.splitlines() if "restore   f" in line]) == 60
    piped = restore("1", "--dry-run")
    assert len([line for line in piped.stdout.splitlines() if "restore   f" in line]) == 60
