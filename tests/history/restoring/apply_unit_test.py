"""Applying another session's turns, extracting a turn's files, and the paths both may write,
in this process (docs/remote.md, "Applying a fetched turn"). The session applied from is
recorded in a project of its own, as a fetched one is a store of its own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rewind.errors import UserError
from rewind.history.entry import Entry, FileChange
from rewind.history.filestate import ABSENT, FILE, FileState, fingerprint
from rewind.history.recording.turns import begin, settled_head, track
from rewind.history.restoring.apply import (
    ALREADY,
    CONFLICT,
    DELETE,
    MERGE,
    REFUSED,
    WRITE,
    ApplyPlan,
    ContentRefused,
    Source,
    plan_apply,
    turn_range,
    verified_content,
)
from rewind.history.restoring.extract import extract
from rewind.history.restoring.restore import apply_plan
from rewind.history.restoring.safe_paths import refuse_nested, refuse_unsafe, why_unsafe
from tests.support.histories import History, make_project

pytestmark = pytest.mark.unit

LINES = "".join(f"line {number}\n" for number in range(1, 11))


@pytest.fixture
def there(tmp_path: Path) -> History:
    """The project whose session "theirs" is applied: one turn changes line 2 of a.txt,
    creates new.txt, deletes gone.txt and rewrites data.bin."""
    history = History(make_project(tmp_path, "there"))
    history.write("a.txt", LINES)
    history.write("gone.txt", "to be deleted\n")
    history.write("data.bin", b"\0old")
    with history.turn("Their turn", session="theirs") as turn:
        turn.write("a.txt", LINES.replace("line 2\n", "line two\n"))
        turn.write("new.txt", "created there\n")
        turn.delete("gone.txt")
        turn.write("data.bin", b"\0new")
    return history


@pytest.fixture
def here(tmp_path: Path) -> History:
    """This project, holding the files as the turn found them there."""
    history = History(make_project(tmp_path, "here"))
    history.write("a.txt", LINES)
    history.write("gone.txt", "to be deleted\n")
    history.write("data.bin", b"\0old")
    with history.turn("mine", session="mine"):
        pass
    return history


def plan(here: History, there: History, only: list[bytes] | None = None) -> ApplyPlan:
    head = settled_head(there.store, "theirs")
    source = Source(there.store, head, "session theirs")
    return plan_apply(here.store, "mine", source, turn_range(there.store, head, "1"), only)


def outcomes(applied: ApplyPlan) -> dict[str, str]:
    return {os.fsdecode(item.path): item.outcome for item in applied.applied}


def test_files_as_the_turn_found_them_get_what_it_left(here: History, there: History) -> None:
    planned = plan(here, there)
    assert outcomes(planned) == {
        "a.txt": WRITE,
        "data.bin": WRITE,
        "gone.txt": DELETE,
        "new.txt": WRITE,
    }
    result = apply_plan(here.store, planned)
    assert result.entry is not None
    assert here.read("a.txt") == there.read("a.txt")
    assert here.read("new.txt") == "created there\n"
    assert not here.path("gone.txt").exists()
    assert here.path("data.bin").read_bytes() == b"\0new"


def test_an_apply_is_a_restore_entry_that_undo_takes_back(here: History, there: History) -> None:
    planned = plan(here, there)
    apply_plan(here.store, planned)
    entry = here.entries("mine")[-1]
    assert (entry.kind, entry.prompt) == ("restore", "apply turn 1 of session theirs")
    assert entry.target is not None
    applied = entry.target["applied"]
    assert isinstance(applied, dict) and applied["session"] == "theirs"
    here.undo("mine")
    assert here.read("a.txt") == LINES and here.read("gone.txt") == "to be deleted\n"
    assert not here.path("new.txt").exists()


def test_a_file_already_as_theirs_is_left_alone(here: History, there: History) -> None:
    here.write("a.txt", there.read("a.txt"))
    assert outcomes(plan(here, there))["a.txt"] == ALREADY


def test_changes_here_to_other_lines_are_merged(here: History, there: History) -> None:
    here.write("a.txt", LINES.replace("line 9\n", "line nine\n"))
    planned = plan(here, there)
    assert outcomes(planned)["a.txt"] == MERGE
    apply_plan(here.store, planned)
    assert here.read("a.txt") == LINES.replace("line 2\n", "line two\n").replace(
        "line 9\n", "line nine\n"
    )


@pytest.mark.parametrize(
    ("name", "content", "why"),
    [
        ("a.txt", LINES.replace("line 2\n", "line deux\n"), "in the same lines or next to them"),
        ("a.txt", LINES.replace("line 3\n", "line three\n"), "in the same lines or next to them"),
        ("data.bin", b"\0mine", "a binary file changed here too"),
        ("gone.txt", "changed here\n", "the turn deleted it, and it was changed here"),
    ],
)
def test_changes_that_cannot_be_merged_are_conflicts(
    here: History, there: History, name: str, content: str | bytes, why: str
) -> None:
    here.write(name, content)
    [item] = [item for item in plan(here, there).applied if item.path == name.encode()]
    assert item.outcome == CONFLICT and why in item.reason


def test_a_file_deleted_here_that_the_turn_changed_is_a_conflict(
    here: History, there: History
) -> None:
    here.path("a.txt").unlink()
    item = plan(here, there, [b"a.txt"]).applied[0]
    assert (item.outcome, item.reason) == (CONFLICT, "the turn changed it, and it was deleted here")


def test_a_folder_here_is_refused(here: History, there: History) -> None:
    here.path("new.txt").mkdir()
    item = plan(here, there, [b"new.txt"]).applied[0]
    assert (item.outcome, item.reason) == (
        REFUSED,
        "it is a directory here, which rewind never replaces",
    )


def test_a_state_without_content_is_refused_with_why(tmp_path: Path, here: History) -> None:
    root = make_project(tmp_path, "small")
    (root / "rewind.toml").write_text("max_file_size = 8\n")
    small = History(root)
    small.write("a.txt", LINES)
    with small.turn(session="theirs") as turn:
        turn.write("a.txt", "short\n")
    head = settled_head(small.store, "theirs")
    source = Source(small.store, head, "session theirs")
    planned = plan_apply(here.store, "mine", source, turn_range(small.store, head, "1"))
    [item] = planned.applied
    assert (item.outcome, item.reason) == (
        REFUSED,
        "its content before the turn was too large to record",
    )


def test_only_the_paths_asked_for(here: History, there: History) -> None:
    assert list(outcomes(plan(here, there, [b"new.txt"]))) == ["new.txt"]
    with pytest.raises(UserError, match=r"other\.txt was not changed in turn 1 of session theirs"):
        plan(here, there, [b"other.txt"])


def test_skipping_what_cannot_be_applied_keeps_the_rest(here: History, there: History) -> None:
    here.write("data.bin", b"\0mine")
    planned = plan(here, there)
    assert [os.fsdecode(item.path) for item in planned.not_applied] == ["data.bin"]
    planned.skip_not_applied()
    apply_plan(here.store, planned)
    assert here.path("data.bin").read_bytes() == b"\0mine"
    assert here.read("new.txt") == "created there\n"


def test_turn_ranges(there: History) -> None:
    with there.turn("second", session="theirs") as turn:
        turn.write("a.txt", "second\n")
    head = settled_head(there.store, "theirs")
    assert [e.number for e in turn_range(there.store, head, "1..2")] == [1, 2]
    with pytest.raises(UserError, match=r"2\.\.1 goes backwards"):
        turn_range(there.store, head, "2..1")
    begin(there.store, "theirs")
    track(there.store, "theirs", [b"a.txt"])
    with pytest.raises(UserError, match="turn 3 of theirs is still open"):
        turn_range(there.store, there.head("theirs"), "3")


def test_content_is_checked_against_what_was_recorded(there: History) -> None:
    oid = there.store.writer.write_blob(b"recorded\n")
    good = FileState(FILE, oid, 0o644, 9, fingerprint(b"recorded\n"))
    assert verified_content(there.store, good, 100) == b"recorded\n"
    for state, why in (
        (FileState(FILE, oid, 0o644, 9, fingerprint(b"other\n")), "not what the session recorded"),
        (FileState(FILE, oid, 0o644, 9, None), "its content is not in the session"),
        (FileState(FILE, "0" * 40, 0o644, 9, "x"), "missing from the session's objects"),
        (good, r"larger than max_file_size \(5\)"),
    ):
        with pytest.raises(ContentRefused, match=why):
            verified_content(there.store, state, 5 if state is good else 100)


# paths from another session --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "why"),
    [
        (b"ok/file.txt", ""),
        (b"", "it is empty"),
        (b"a\0b", "it holds a NUL byte"),
        (b"/etc/passwd", "it is absolute"),
        (b"a//b", "it has an empty component"),
        (b"./a", "it has an empty component"),
        (b"../a", "it holds '..'"),
        (b".git/config", "inside a .git directory"),
        (b"sub/.GIT/config", "inside a .git directory"),
        (b".git./x", "inside a .git directory"),
        (b"git~1/x", "inside a .git directory"),
        (".g\u200cit/x".encode(), "inside a .git directory"),
        (b".git::$DATA/x", "inside a .git directory"),
        (b"x" * 256, "longer than 255 bytes"),
    ],
)
def test_which_paths_may_be_written(path: bytes, why: str) -> None:
    found = why_unsafe(path)
    assert (found == "") if not why else (why in found)


def test_unsafe_or_nested_paths_refuse_the_whole_set() -> None:
    with pytest.raises(UserError, match=r"turn 1, records the path b'\.\./x', which rewind never"):
        refuse_unsafe([b"ok", b"../x"], "turn 1,")
    with pytest.raises(UserError, match="records Link/file below Link, which it records as a file"):
        refuse_nested({b"link": True, b"Link/file": True}, "turn 1,")  # folded, as macOS would
    refuse_nested({b"dir": False, b"dir/file": True}, "turn 1,")  # a folder above a file is fine


def test_a_fetched_sessions_unsafe_path_refuses_the_apply(here: History, there: History) -> None:
    hostile = Entry(
        "theirs", 1, "0123456789ab", ended=1.0,
        files=[FileChange(b"../outside", FileState(ABSENT), FileState(ABSENT))],
    )  # fmt: skip
    source = Source(there.store, there.head("theirs"), "origin:m/theirs", remote="origin")
    with pytest.raises(UserError, match=r"holds '\.\.'"):
        plan_apply(here.store, "mine", source, [hostile])


# extracting ------------------------------------------------------------------------------------


def test_a_turns_files_are_extracted_as_it_left_them(there: History, tmp_path: Path) -> None:
    entry = there.entries("theirs")[0]
    folder = tmp_path / "out"
    done = extract(there.store, entry, os.fsencode(folder), trusted=True)
    assert sorted(os.fsdecode(path) for path, _ in done.written) == ["a.txt", "data.bin", "new.txt"]
    assert [os.fsdecode(path) for path in done.absent] == ["gone.txt"]
    assert (folder / "new.txt").read_text() == "created there\n"
    assert not (folder / "gone.txt").exists()


def test_a_turns_files_are_extracted_as_it_found_them(there: History, tmp_path: Path) -> None:
    entry = there.entries("theirs")[0]
    folder = tmp_path / "before"
    done = extract(
        there.store, entry, os.fsencode(folder), after=False, only=[b"gone.txt", b"new.txt"]
    )
    assert (folder / "gone.txt").read_text() == "to be deleted\n"
    assert [os.fsdecode(path) for path in done.absent] == ["new.txt"]


def test_extracting_into_a_folder_that_holds_something_is_refused(
    there: History, tmp_path: Path
) -> None:
    folder = tmp_path / "full"
    folder.mkdir()
    (folder / "mine").write_text("keep")
    with pytest.raises(UserError, match="is not empty; give a new or empty folder"):
        extract(there.store, there.entries("theirs")[0], os.fsencode(folder))
    assert [p.name for p in folder.iterdir()] == ["mine"]
