"""The Python API: turns as context managers, file changes through them, restore and undo."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import rewind
from rewind.errors import ConflictError, UserError
from tests.conftest import log_json, snapshot


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_turn_records_every_change_and_restore_puts_them_back(project: Path) -> None:
    (project / "a.py").write_text("def parse(text):\n    pass\n")
    (project / "old.txt").write_bytes(b"old\n")
    original = snapshot(project)
    history = rewind.Project(project, agent="tester")
    with history.turn("Rename the parser") as turn:
        turn.edit("a.py", "def parse(", "def parse_document(")
        turn.write_text("src/new.py", "print('hi')\n")
        turn.delete("old.txt")
    assert (project / "a.py").read_text() == "def parse_document(text):\n    pass\n"
    assert (project / "src" / "new.py").read_text() == "print('hi')\n"
    history.restore(1)
    assert snapshot(project) == original


def test_log_lists_turns_restores_and_undos(project: Path) -> None:
    history = rewind.Project(project, session="api", agent="tester")
    with history.turn("write") as turn:
        turn.write_bytes("a.bin", b"\x00\x01")
    history.restore(1)
    history.undo()
    entries = history.log()
    assert [(e.number, e.kind) for e in entries] == [(1, "turn"), (2, "restore"), (3, "undo")]
    assert (entries[0].prompt, entries[0].agent, entries[0].session) == ("write", "tester", "api")
    assert [change.path for change in entries[0].files] == [b"a.bin"]


def test_turn_is_ended_on_exit_even_after_an_error(project: Path) -> None:
    history = rewind.Project(project)
    with pytest.raises(RuntimeError), history.turn("fails half-way") as turn:
        turn.write_text("a.txt", "written\n")
        raise RuntimeError("agent crashed")
    [entry] = history.log()
    assert entry.ended is not None
    assert entry.files[0].after is not None and entry.files[0].after.kind == "file"


def test_undo_takes_a_restore_back_and_redo_puts_it_back(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    history = rewind.Project(project)
    with history.turn("edit") as turn:
        turn.write_bytes("a.txt", b"a1\n")
    history.restore(1)
    assert (project / "a.txt").read_bytes() == b"a0\n"
    history.undo()
    assert (project / "a.txt").read_bytes() == b"a1\n"
    with pytest.raises(UserError, match="nothing left to undo"):
        history.undo()
    history.redo()
    assert (project / "a.txt").read_bytes() == b"a0\n"


def test_restore_accepts_the_turn_id_and_a_list_of_paths(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    (project / "b.txt").write_bytes(b"b0\n")
    history = rewind.Project(project)
    with history.turn("edit both") as turn:
        turn.write_bytes("a.txt", b"a1\n")
        turn.write_bytes("b.txt", b"b1\n")
    history.restore(turn.id, paths=[project / "b.txt"])
    assert (project / "a.txt").read_bytes() == b"a1\n"
    assert (project / "b.txt").read_bytes() == b"b0\n"


def test_conflict_raises_and_changes_nothing(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    history = rewind.Project(project)
    with history.turn("edit") as turn:
        turn.write_bytes("a.txt", b"a1\n")
        turn.write_bytes("b.txt", b"b1\n")
    (project / "a.txt").write_bytes(b"edited by a person\n")
    with pytest.raises(ConflictError, match=r"a\.txt"):
        history.restore(1)
    assert (project / "a.txt").read_bytes() == b"edited by a person\n"
    assert (project / "b.txt").read_bytes() == b"b1\n"
    assert len(history.log()) == 1


def test_force_then_undo_brings_the_outside_edit_back(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    history = rewind.Project(project)
    with history.turn("edit") as turn:
        turn.write_bytes("a.txt", b"a1\n")
    (project / "a.txt").write_bytes(b"edited by a person\n")
    history.restore(1, force=True)
    assert (project / "a.txt").read_bytes() == b"a0\n"
    history.undo()
    assert (project / "a.txt").read_bytes() == b"edited by a person\n"


def test_write_keeps_the_mode_of_an_existing_file(project: Path) -> None:
    (project / "run.sh").write_bytes(b"#!/bin/sh\n")
    (project / "run.sh").chmod(0o750)
    history = rewind.Project(project)
    with history.turn("edit script") as turn:
        turn.write_text("run.sh", "#!/bin/sh\necho hi\n")
    assert mode_of(project / "run.sh") == 0o750


def test_edit_refuses_missing_or_repeated_text_and_leaves_the_file(project: Path) -> None:
    (project / "a.txt").write_text("x = 1\nx = 1\n")
    history = rewind.Project(project)
    with history.turn("edit") as turn:
        with pytest.raises(UserError, match="found 2 times"):
            turn.edit("a.txt", "x = 1", "x = 2")
        with pytest.raises(UserError, match="not found"):
            turn.edit("a.txt", "y = 1", "y = 2")
        with pytest.raises(UserError, match="does not exist"):
            turn.edit("missing.txt", "a", "b")
        assert (project / "a.txt").read_text() == "x = 1\nx = 1\n"
        turn.edit("a.txt", "x = 1", "x = 2", replace_all=True)
    assert (project / "a.txt").read_text() == "x = 2\nx = 2\n"


def test_delete_refuses_a_missing_file_or_a_directory(project: Path) -> None:
    (project / "src").mkdir()
    history = rewind.Project(project)
    with history.turn("delete") as turn:
        with pytest.raises(UserError, match="does not exist"):
            turn.delete("missing.txt")
        with pytest.raises(UserError, match="is a directory"):
            turn.delete("src")
        with pytest.raises(UserError, match="does not exist"):
            turn.rename("missing.txt", "elsewhere.txt")
    assert (project / "src").is_dir()
    assert history.log()[0].files == []


def test_rename_is_undone_at_both_ends(project: Path) -> None:
    (project / "old_name.py").write_bytes(b"code\n")
    original = snapshot(project)
    history = rewind.Project(project)
    with history.turn("move") as turn:
        turn.rename("old_name.py", "pkg/new_name.py")
    assert (project / "pkg" / "new_name.py").read_bytes() == b"code\n"
    history.restore(1)
    assert snapshot(project) == original


def test_track_records_a_change_made_by_someone_else(project: Path) -> None:
    (project / "a.txt").write_bytes(b"a0\n")
    history = rewind.Project(project)
    with history.turn("external tool") as turn:
        turn.track("a.txt", "made.txt")
        (project / "a.txt").write_bytes(b"a1\n")
        (project / "made.txt").write_bytes(b"made\n")
    history.restore(1)
    assert (project / "a.txt").read_bytes() == b"a0\n"
    assert not (project / "made.txt").exists()


def test_paths_outside_the_project_are_refused(project: Path, tmp_path: Path) -> None:
    history = rewind.Project(project)
    with history.turn("escape") as turn:
        with pytest.raises(UserError, match="extra_roots"):
            turn.write_text(tmp_path / "outside.txt", "x\n")
        with pytest.raises(UserError, match=r"\.git directory"):
            turn.write_text(".git/config", "x\n")
    assert not (tmp_path / "outside.txt").exists()


def test_unknown_turn_raises_a_user_error(project: Path) -> None:
    history = rewind.Project(project)
    with history.turn("one") as turn:
        turn.write_text("a.txt", "a\n")
    with pytest.raises(UserError, match="turns go from 1 to 1"):
        history.restore(5)


def test_api_and_command_line_share_the_store(project: Path) -> None:
    history = rewind.Project(project, session="shared", agent="tester")
    with history.turn("from python") as turn:
        turn.write_text("a.txt", "a\n")
    [entry] = log_json("--session", "shared")
    assert (entry["prompt"], entry["agent"], entry["files"][0]["status"]) == (
        "from python",
        "tester",
        "added",
    )


def test_project_found_from_a_subdirectory(project: Path) -> None:
    (project / "src").mkdir()
    history = rewind.Project(project / "src")
    assert history.root == os.path.realpath(project)
    with history.turn("edit") as turn:
        turn.write_text("top.txt", "relative to the root\n")
    assert (project / "top.txt").read_text() == "relative to the root\n"


def test_track_warns_about_content_it_could_not_keep(project: Path) -> None:
    (project / "rewind.toml").write_text("max_file_size = 10\n")
    (project / "big.bin").write_bytes(b"x" * 100)
    history = rewind.Project(project)
    with history.turn("big") as turn, pytest.warns(rewind.api.RewindWarning, match="big.bin"):
        states = turn.track("big.bin")
    assert states["big.bin"].kind == "too-large"


def test_track_refuses_a_directory_but_records_the_rest(project: Path) -> None:
    (project / "folder").mkdir()
    (project / "a.txt").write_text("a")
    history = rewind.Project(project, session="s")
    with history.turn("mixed") as turn:
        with pytest.raises(UserError, match="folder is a directory"):
            turn.track("folder", "a.txt")
        (project / "a.txt").write_text("changed")
    [entry] = history.log()
    assert [change.path for change in entry.files] == [b"a.txt"]
