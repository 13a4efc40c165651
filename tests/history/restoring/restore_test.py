"""Restoring to a turn, and undoing a restore: every rule of what is put back, and what is not."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import pytest

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


# one turn, then a restore to before it ----------------------------------------------------------


@dataclass(frozen=True)
class File:
    """A regular file of a tree: its content and permission bits."""

    content: bytes
    mode: int = 0o644


@dataclass(frozen=True)
class Link:
    """A symbolic link of a tree: what it points at."""

    target: str


@dataclass(frozen=True)
class Directory:
    """An empty directory of a tree (one that holds something is implied by what it holds)."""


# What a work tree holds besides .git: each path ("/" between its parts) and what is there.
Tree = dict[str, File | Link | Directory]


@dataclass(frozen=True)
class Turn:
    """One turn, and what a restore to before it must leave: the tree before the turn, the
    paths it tracked (before changing anything), the tree after it, and the tree restored
    (None: the one before); ``says`` is a line the restore must print."""

    before: Tree
    tracked: tuple[str, ...]
    after: Tree
    restored: Tree | None = None
    says: str = ""


def tree_of(root: Path) -> Tree:
    """What the work tree at ``root`` holds besides .git, as a :data:`Tree`."""
    found: Tree = {}
    for folder, directories, names in os.walk(root):
        if folder == str(root):
            directories[:] = [name for name in directories if name != ".git"]
        for name in directories + names:
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, root)
            if os.path.islink(path):
                found[relative] = Link(os.readlink(path))
            elif os.path.isdir(path):
                if not os.listdir(path):
                    found[relative] = Directory()
            else:
                found[relative] = File(Path(path).read_bytes(), mode_of(Path(path)))
    return found


def lay_out(root: Path, tree: Tree) -> None:
    """Makes the work tree at ``root`` hold ``tree``: what is there and not in it is removed,
    what differs is written (a file's content only when it changed)."""
    wanted = {**tree}
    for path in list(tree):  # the directories that hold something
        parts = path.split("/")
        for depth in range(1, len(parts)):
            wanted.setdefault("/".join(parts[:depth]), Directory())
    for path, there in sorted(tree_of_everything(root).items(), reverse=True):  # deepest first
        kept = wanted.get(path)
        if type(kept) is not type(there) or (isinstance(there, Link) and kept != there):
            if isinstance(there, Directory):
                os.rmdir(root / path)
            else:
                os.unlink(root / path)
    for path, item in sorted(wanted.items()):
        target = root / path
        if isinstance(item, Directory):
            target.mkdir(exist_ok=True)
        elif isinstance(item, Link):
            if not os.path.islink(target):
                os.symlink(item.target, target)
        else:
            if not target.exists() or target.read_bytes() != item.content:
                target.write_bytes(item.content)
            target.chmod(item.mode)


def tree_of_everything(root: Path) -> Tree:
    """Like :func:`tree_of`, with every directory (those that hold something too)."""
    found = tree_of(root)
    for path in list(found):
        parts = path.split("/")
        for depth in range(1, len(parts)):
            found.setdefault("/".join(parts[:depth]), Directory())
    return found


NON_UTF8 = b"caf\xe9-\xff.txt"
BINARY = bytes(range(256)) * 64 + b"\0\r\n\x00\xff"
TURNS = {
    "a_modified_file_gets_its_content_back": Turn(
        before={"a.txt": File(b"one\ntwo\n")},
        tracked=("a.txt",),
        after={"a.txt": File(b"one\nTWO\nthree\n")},
    ),
    "a_file_the_turn_created_is_deleted": Turn(
        before={}, tracked=("new.txt",), after={"new.txt": File(b"new\n")}
    ),
    "a_created_directory_holding_other_files_is_kept": Turn(
        before={},
        tracked=("pkg/a.py",),
        after={"pkg/a.py": File(b"a\n"), "pkg/notes.txt": File(b"not tracked\n")},
        restored={"pkg/notes.txt": File(b"not tracked\n")},
    ),
    "a_directory_that_existed_before_the_turn_is_kept_even_when_empty": Turn(
        before={"empty": Directory()},
        tracked=("empty/new.txt",),
        after={"empty/new.txt": File(b"new\n")},
    ),
    "a_deleted_file_is_brought_back_with_its_directory": Turn(
        before={"docs/guide.md": File(b"# Guide\n")}, tracked=("docs/guide.md",), after={}
    ),
    "binary_content_round_trips_byte_for_byte": Turn(
        before={"blob.bin": File(BINARY)},
        tracked=("blob.bin",),
        after={"blob.bin": File(b"\x89PNG\r\n\x1a\n" + bytes(reversed(BINARY)))},
    ),
    "an_empty_file_is_restored_empty": Turn(
        before={"empty": File(b"")}, tracked=("empty",), after={"empty": File(b"content\n")}
    ),
    "files_no_turn_touched_are_never_changed": Turn(
        before={"a.txt": File(b"a\n"), "bystander.txt": File(b"before\n")},
        tracked=("a.txt",),
        after={
            "a.txt": File(b"A\n"),
            "bystander.txt": File(b"changed without rewind\n"),
            "stray.txt": File(b"created without rewind\n"),
        },
        restored={
            "a.txt": File(b"a\n"),
            "bystander.txt": File(b"changed without rewind\n"),
            "stray.txt": File(b"created without rewind\n"),
        },
    ),
    # permission bits
    "an_exec_bit_removed_by_a_turn_comes_back": Turn(
        before={"run.sh": File(b"#!/bin/sh\necho hi\n", 0o755)},
        tracked=("run.sh",),
        after={"run.sh": File(b"#!/bin/sh\necho hi\n", 0o644)},
    ),
    "an_exec_bit_added_by_a_turn_is_removed": Turn(
        before={"tool.py": File(b"print(1)\n", 0o644)},
        tracked=("tool.py",),
        after={"tool.py": File(b"#!/usr/bin/env python3\nprint(1)\n", 0o755)},
    ),
    "a_private_mode_0600_is_restored": Turn(
        before={"secret.env": File(b"TOKEN=1\n", 0o600)},
        tracked=("secret.env",),
        after={"secret.env": File(b"TOKEN=1\n", 0o664)},
    ),
    "deleted_files_come_back_with_their_modes": Turn(
        before={"key": File(b"k\n", 0o600), "bin.sh": File(b"#!/bin/sh\n", 0o750)},
        tracked=("key", "bin.sh"),
        after={},
    ),
    # symlinks
    "a_symlinks_target_is_restored_and_the_link_is_not_followed": Turn(
        before={"a.txt": File(b"a\n"), "b.txt": File(b"b\n"), "current": Link("a.txt")},
        tracked=("current",),
        after={
            "a.txt": File(b"a edited, not tracked\n"),
            "b.txt": File(b"b\n"),
            "current": Link("b.txt"),
        },
        restored={
            "a.txt": File(b"a edited, not tracked\n"),
            "b.txt": File(b"b\n"),
            "current": Link("a.txt"),
        },
    ),
    "writing_through_a_tracked_symlink_does_not_make_rewind_write_its_target": Turn(
        before={"real.txt": File(b"real\n"), "alias": Link("real.txt")},
        tracked=("alias",),
        after={"real.txt": File(b"written through alias\n"), "alias": Link("real.txt")},
        restored={"real.txt": File(b"written through alias\n"), "alias": Link("real.txt")},
        says="nothing to change",
    ),
    "a_dangling_symlink_is_recreated": Turn(
        before={"dangling": Link("does/not/exist")}, tracked=("dangling",), after={}
    ),
    "a_file_replaced_by_a_symlink_becomes_a_file_again": Turn(
        before={"config.yml": File(b"debug: true\n", 0o640), "shared.yml": File(b"shared\n")},
        tracked=("config.yml",),
        after={"config.yml": Link("shared.yml"), "shared.yml": File(b"shared\n")},
    ),
    # names
    "non_utf8_file_names_round_trip": Turn(
        before={os.fsdecode(NON_UTF8): File(b"before\n")},
        tracked=(os.fsdecode(NON_UTF8), os.fsdecode(b"new-\xfe.txt")),
        after={
            os.fsdecode(NON_UTF8): File(b"after\n"),
            os.fsdecode(b"new-\xfe.txt"): File(b"created\n"),
        },
    ),
}


@pytest.mark.parametrize("turn", list(TURNS.values()), ids=list(TURNS))
def test_a_restore_to_before_a_turn_gives_back_its_tree(project: Path, turn: Turn) -> None:
    lay_out(project, turn.before)
    assert tree_of(project) == turn.before  # what the layout made is what the case says
    begin("the turn")
    track(*turn.tracked)
    lay_out(project, turn.after)
    assert tree_of(project) == turn.after
    end()
    result = restore("1")
    assert result.returncode == 0, result
    assert turn.says in result.stdout
    assert tree_of(project) == (turn.before if turn.restored is None else turn.restored)


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


@dataclass(frozen=True)
class ChangedByHand:
    """A turn (its restored tree unused), then a person's change to one of its files: the
    path they changed and the tree they left."""

    turn: Turn
    path: str
    left: Tree


BY_HAND = {
    "content": ChangedByHand(
        Turn(
            before={"a.txt": File(b"a0\n"), "b.txt": File(b"b0\n")},
            tracked=("a.txt", "b.txt"),
            after={"a.txt": File(b"a1\n"), "b.txt": File(b"b1\n")},
        ),
        "b.txt",
        {"a.txt": File(b"a1\n"), "b.txt": File(b"edited by a person\n")},
    ),
    "mode": ChangedByHand(
        Turn(before={"a.sh": File(b"a0\n")}, tracked=("a.sh",), after={"a.sh": File(b"a1\n")}),
        "a.sh",
        {"a.sh": File(b"a1\n", 0o755)},
    ),
}


@pytest.mark.parametrize("case", list(BY_HAND.values()), ids=list(BY_HAND))
def test_a_change_made_by_hand_since_the_turn_refuses_and_changes_nothing(
    project: Path, case: ChangedByHand
) -> None:
    lay_out(project, case.turn.before)
    begin("edit")
    track(*case.turn.tracked)
    lay_out(project, case.turn.after)
    end()
    lay_out(project, case.left)
    line = error_line(restore("1"))
    assert case.path in line and "--force" in line, line
    assert tree_of(project) == case.left
    assert len(log_json("--session", SESSION)) == 1


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


@pytest.mark.parametrize("ended", [True, False], ids=["ended", "still-open"])
def test_another_sessions_later_change_is_never_overwritten_silently(
    project: Path, ended: bool
) -> None:
    """Whether session one's turn ended before session two changed the file, or is still
    open: the restore is refused, then forced, then undone."""
    (project / "shared.txt").write_bytes(b"v0\n")
    begin("first agent", session="one")
    track("shared.txt", session="one")
    (project / "shared.txt").write_bytes(b"v1\n")
    if ended:
        end(session="one")
    begin("second agent", session="two")
    track("shared.txt", session="two")
    (project / "shared.txt").write_bytes(b"v2\n")
    end(session="two")
    result = restore("1", session="one")
    assert "shared.txt" in error_line(result)
    assert "changed by session two" in result.stdout
    assert (project / "shared.txt").read_bytes() == b"v2\n"
    forced = restore("1", "--force", session="one")
    assert forced.returncode == 0, forced
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
