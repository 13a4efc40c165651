"""Restore plans and the restore engine, in this process: targets, conflicts (changes made
outside rewind, by other sessions, between the agent's turns), the open turn, what a restore
records, and finishing one a killed process left (docs/restore.md)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from rewind.errors import ConflictError, StoreError, UserError
from rewind.history.entry import RESTORE
from rewind.history.filestate import ABSENT, FILE, LINK, TOO_LARGE, UNKNOWN, FileState
from rewind.history.recording.turns import begin, begin_with_drift, record_after_states, track
from rewind.history.restoring.restore import (
    apply_plan,
    conflict_message,
    finish_interrupted_restore,
)
from rewind.history.restoring.restore_plan import (
    CANNOT,
    DELETE,
    RECREATE,
    RESTORE_FILE,
    UNCHANGED,
    RestorePlan,
)
from rewind.store.repository import JOURNAL
from tests.support.histories import SESSION, History, make_project

pytestmark = pytest.mark.unit


def actions(plan: RestorePlan) -> dict[str, str]:
    return {os.fsdecode(item.path): item.action for item in plan.files}


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def worked_example(history: History) -> None:
    """The three turns of docs/restore.md's worked example, and a file edited by hand."""
    history.write("notes.txt", "one\n")
    history.write("run.sh", "echo run\n", mode=0o644)
    history.write("old.txt", "keep me\n")
    history.write("config.v1", "v1\n")
    history.write("config.v2", "v2\n")
    history.path("config").symlink_to("config.v1")
    with history.turn("Start the notes") as turn:
        turn.write("notes.txt", "one\ntwo\n")
        turn.write("todo.txt", "buy milk\n")
    with history.turn("Tidy up") as turn:
        turn.track("run.sh")
        history.path("run.sh").chmod(0o755)
        turn.link("config", "config.v2")
        turn.delete("old.txt")
    with history.turn("Write the guide") as turn:
        turn.write("notes.txt", "one\ntwo\nthree\n")
        turn.write("docs/guide.md", "# Guide\n")
    history.write("other.txt", "changed by hand\n")


# the plan --------------------------------------------------------------------------------------


def test_the_worked_example_plans_each_file_as_the_rules_say(history: History) -> None:
    worked_example(history)
    plan = history.restore_plan("2")
    assert actions(plan) == {
        "run.sh": RESTORE_FILE,
        "config": RESTORE_FILE,
        "old.txt": RECREATE,
        "notes.txt": RESTORE_FILE,
        "docs/guide.md": DELETE,
    }
    assert plan.conflicts == [] and plan.blocked == []
    assert plan.title() == "restore session s to before turn 2"


def test_the_worked_example_restores_content_bits_links_and_folders(history: History) -> None:
    worked_example(history)
    result = history.restore("2")
    assert result.entry is not None and result.failed == []
    assert mode_of(history.path("run.sh")) == 0o644
    assert os.readlink(history.path("config")) == "config.v1"
    assert history.read("old.txt") == "keep me\n"
    assert history.read("notes.txt") == "one\ntwo\n"  # before turn 3, not before turn 1
    assert not history.path("docs").exists()  # the folder turn 3 made for the guide
    assert history.read("todo.txt") == "buy milk\n"  # touched only before turn 2
    assert history.read("other.txt") == "changed by hand\n"  # no turn touched it


def test_the_restore_is_an_entry_that_records_what_it_overwrote(history: History) -> None:
    worked_example(history)
    history.restore("2")
    entry = history.entries()[-1]
    assert (entry.number, entry.kind, entry.prompt, entry.agent) == (
        4,
        RESTORE,
        "restore to before turn 2",
        "tester",
    )
    assert entry.target is not None and entry.target["number"] == 2
    notes = entry.file(b"notes.txt")
    assert notes is not None and notes.before is not None and notes.after is not None
    assert history.store.reader.read_blob(notes.before.oid or "") == b"one\ntwo\nthree\n"
    assert history.store.reader.read_blob(notes.after.oid or "") == b"one\ntwo\n"
    assert not os.path.exists(history.store.state_path(JOURNAL))


def test_a_path_already_at_its_target_is_left_out(history: History) -> None:
    history.write("a.txt", "one\n")
    history.write("b.txt", "one\n")
    with history.turn() as turn:
        turn.write("a.txt", "two\n")
        turn.write("b.txt", "two\n")
    history.write("b.txt", "one\n")
    history.turns("c.txt", "new\n")  # b.txt now holds its target: unchanged, no conflict
    plan = history.restore_plan("1")
    assert actions(plan)["b.txt"] == UNCHANGED
    assert [os.fsdecode(item.path) for item in plan.changes] == ["a.txt", "c.txt"]
    assert [os.fsdecode(item.path) for item in plan.conflicts] == []


def test_a_restore_with_nothing_to_change_records_nothing(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    history.restore("1")
    result = history.restore("1")
    assert result.entry is None
    assert [entry.kind for entry in history.entries()] == ["turn", "restore"]


def test_only_the_paths_asked_for(history: History) -> None:
    history.write("a.txt", "one\n")
    history.write("b.txt", "one\n")
    with history.turn() as turn:
        turn.write("a.txt", "two\n")
        turn.write("b.txt", "two\n")
    history.restore("1", only=["b.txt"])
    assert (history.read("a.txt"), history.read("b.txt")) == ("two\n", "one\n")


def test_a_path_no_entry_from_the_turn_on_changed_is_refused(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    with pytest.raises(UserError, match=r"other.txt was not changed in turns 1\.\.1"):
        history.restore_plan("1", only=["other.txt"])


def test_a_turn_that_does_not_exist_is_refused(history: History) -> None:
    history.turns("a.txt", "two\n")
    with pytest.raises(UserError, match="there is no turn '9' in session s; turns go from 1 to 1"):
        history.restore_plan("9")


def test_the_open_turn_is_closed_first_and_its_changes_are_restored(history: History) -> None:
    history.write("a.txt", "one\n")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"a.txt"])
    history.write("a.txt", "two\n")  # the turn never ended
    plan = history.restore_plan("1")
    assert actions(plan) == {"a.txt": RESTORE_FILE} and plan.conflicts == []
    assert not history.entries()[0].is_open
    history.restore("1")
    assert history.read("a.txt") == "one\n"


# what a restore never writes -------------------------------------------------------------------


def test_a_state_that_was_not_recorded_is_skipped_with_why(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / "rewind.toml").write_text("max_file_size = 8\n")
    history = History(root)
    history.write("big.txt", "too large to keep\n")
    history.turns("big.txt", "small\n")
    plan = history.restore_plan("1")
    [item] = plan.files
    assert item.target.kind == TOO_LARGE
    assert (item.action, item.reason()) == (
        CANNOT,
        "its earlier state was not recorded (too-large)",
    )
    assert plan.blocked == [item] and plan.changes == []


def test_a_file_reported_only_after_its_change_is_not_rewindable(history: History) -> None:
    history.write("a.txt", "one\n")
    begin(history.store, SESSION)
    record_after_states(history.store, SESSION, [b"a.txt"], {b"a.txt": FileState(UNKNOWN)})
    history.write("a.txt", "two\n")
    [item] = history.restore_plan("1").files
    assert item.action == CANNOT
    assert item.reason() == "no state from before its change was recorded: not rewindable"


def test_a_path_that_is_now_a_directory_is_never_replaced(history: History) -> None:
    history.write("a", "one\n")
    history.turns("a", "two\n")
    history.path("a").unlink()
    history.path("a").mkdir()
    [item] = history.restore_plan("1").files
    assert (item.action, item.reason()) == (
        CANNOT,
        "it is now a directory, which rewind never replaces",
    )


def test_a_path_whose_folder_now_leads_out_of_the_project_is_never_written(
    history: History, tmp_path: Path
) -> None:
    history.write("sub/a.txt", "one\n")
    history.turns("sub/a.txt", "two\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    history.path("sub/a.txt").unlink()
    history.path("sub").rmdir()
    history.path("sub").symlink_to(outside)
    [item] = history.restore_plan("1").files
    assert item.action == CANNOT
    assert "resolves outside the project root" in item.reason()
    history.restore("1", force=True)
    assert list(outside.iterdir()) == []


# conflicts -------------------------------------------------------------------------------------


def test_a_file_changed_since_rewind_last_recorded_it_is_a_conflict(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    history.write("a.txt", "by hand\n")
    plan = history.restore_plan("1")
    [item] = plan.conflicts
    assert item.reason() == "changed outside rewind since it last recorded it"
    with pytest.raises(ConflictError, match=r"1 file\(s\) changed outside rewind since"):
        apply_plan(history.store, plan)
    assert history.read("a.txt") == "by hand\n"  # nothing was written
    assert [entry.kind for entry in history.entries()] == ["turn"]


def test_force_overwrites_a_conflict_and_undo_brings_the_work_back(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    history.write("a.txt", "by hand\n")
    history.restore("1", force=True)
    assert history.read("a.txt") == "one\n"
    history.undo()
    assert history.read("a.txt") == "by hand\n"


def test_the_refusal_says_how_to_review_and_how_to_go_on(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n", "three\n")
    history.write("a.txt", "by hand\n")
    plan = history.restore_plan("2")
    message = conflict_message(history.store, plan)
    assert "(a.txt)" in message and "'rewind diff 2'" in message and "--force" in message
    for_tool = conflict_message(history.store, plan, for_tool=True)
    assert "rewind_diff turn='2'" in for_tool and "force=true" in for_tool


def test_a_change_kept_between_the_agents_turns_is_a_conflict_to_restore_across(
    history: History,
) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    history.write("a.txt", "by hand\n")
    _, drift = begin_with_drift(history.store, SESSION, prompt="next")
    assert drift is not None
    plan = history.restore_plan("1")
    [item] = plan.conflicts
    assert item.reason() == f"changed outside the agent, kept as entry {drift.number}"
    assert "between the agent's turns" in conflict_message(history.store, plan)
    assert history.restore_plan(str(drift.number + 1)).files == []  # restoring the next keeps it


def test_a_file_another_session_changed_since_is_a_conflict(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n", session="mine")
    with history.turn(session="theirs") as turn:
        turn.write("a.txt", "theirs\n")
    [item] = history.restore_plan("1", session="mine").conflicts
    assert item.changed_by == "theirs"
    assert item.reason() == "changed by session theirs since this session recorded it"


def test_a_change_another_session_made_before_is_no_conflict(history: History) -> None:
    history.write("a.txt", "one\n")
    with history.turn(session="theirs") as turn:
        turn.write("a.txt", "theirs\n")
    history.turns("a.txt", "mine\n", session="mine")
    plan = history.restore_plan("1", session="mine")
    assert plan.conflicts == [] and actions(plan) == {"a.txt": RESTORE_FILE}


def test_a_file_changed_while_the_restore_was_prepared_stops_it(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    plan = history.restore_plan("1")
    history.write("a.txt", "meanwhile\n")
    with pytest.raises(ConflictError, match="changed while the restore was being prepared"):
        apply_plan(history.store, plan, force=True)
    assert history.read("a.txt") == "meanwhile\n"


def test_a_content_missing_from_the_store_refuses_the_whole_restore(history: History) -> None:
    history.write("a.txt", "one\n")
    history.write("b.txt", "one\n")
    with history.turn() as turn:
        turn.write("a.txt", "two\n")
        turn.write("b.txt", "three\n")
    plan = history.restore_plan("1")
    oid = plan.files[1].target.oid  # b.txt's "one\n": the same blob as a.txt's
    assert oid is not None
    os.unlink(history.store.writer.path_of(oid))
    with pytest.raises(StoreError, match="missing from the store"):
        apply_plan(history.store, plan)
    assert (history.read("a.txt"), history.read("b.txt")) == ("two\n", "three\n")
    assert [entry.kind for entry in history.entries()] == ["turn"]


# recreating and deleting -----------------------------------------------------------------------


def test_a_deleted_file_comes_back_with_its_bits(history: History) -> None:
    history.write("run.sh", "#!/bin/sh\n", mode=0o750)
    with history.turn() as turn:
        turn.delete("run.sh")
    history.restore("1")
    assert history.read("run.sh") == "#!/bin/sh\n"
    assert mode_of(history.path("run.sh")) == 0o750


def test_deleting_a_created_file_keeps_folders_that_hold_other_files(history: History) -> None:
    with history.turn() as turn:
        turn.write("new/deep/a.txt", "a\n")
    history.write("new/other.txt", "made by hand in a folder the turn made\n")
    history.restore("1")
    assert not history.path("new/deep").exists()
    assert history.read("new/other.txt").startswith("made by hand")


def test_a_link_replaced_by_a_file_is_a_link_again(history: History) -> None:
    history.path("config").symlink_to("elsewhere")
    with history.turn() as turn:
        turn.track("config")
        history.path("config").unlink()
        history.write("config", "a file now\n")
    history.restore("1")
    assert os.readlink(history.path("config")) == "elsewhere"


def test_states_restored_match_what_was_recorded(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    history.restore("1")
    entry = history.entries()[-1]
    [change] = entry.files
    assert change.after is not None and change.after.kind == FILE
    assert change.before is not None and change.before.kind == FILE
    with history.turn() as turn:
        turn.delete("a.txt")
    history.restore("3")
    assert history.entries()[-1].files[0].before is not None
    state = history.entries()[-1].files[0].before
    assert state is not None and state.kind == ABSENT


# finishing a restore a killed process left ----------------------------------------------------


def interrupted(history: History) -> None:
    """A restore recorded, its journal left, and its files never written (killed at once)."""
    history.write("a.txt", "one\n")
    history.write("b.txt", "one\n")
    with history.turn() as turn:
        turn.write("a.txt", "two\n")
        turn.write("b.txt", "two\n")
    history.restore("1")
    entry = history.entries()[-1]
    history.write("a.txt", "two\n")
    history.write("b.txt", "two\n")
    Path(history.store.state_path(JOURNAL)).write_text(
        f'{{"session": "s", "entry": "{entry.id}", "pid": 1}}'
    )


def test_an_interrupted_restore_is_finished_by_the_next_command(
    history: History, capsys: pytest.CaptureFixture[str]
) -> None:
    interrupted(history)
    finish_interrupted_restore(history.store)
    assert (history.read("a.txt"), history.read("b.txt")) == ("one\n", "one\n")
    assert not os.path.exists(history.store.state_path(JOURNAL))
    said = capsys.readouterr().err
    assert said == "rewind: finished restore 2 of session s, which was interrupted.\n"


def test_finishing_leaves_alone_a_file_changed_meanwhile(
    history: History, capsys: pytest.CaptureFixture[str]
) -> None:
    interrupted(history)
    history.write("b.txt", "changed meanwhile\n")
    finish_interrupted_restore(history.store, wait=False)
    assert (history.read("a.txt"), history.read("b.txt")) == ("one\n", "changed meanwhile\n")
    assert capsys.readouterr().err == ""  # a hook prints nothing
    log = Path(history.store.state_path("rewind.log")).read_text()
    assert "left alone because they changed meanwhile: b.txt" in log


def test_a_journal_naming_no_entry_is_dropped_and_nothing_written(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    Path(history.store.state_path(JOURNAL)).write_text('{"session": "s", "entry": "000000000000"}')
    finish_interrupted_restore(history.store, wait=False)
    assert history.read("a.txt") == "two\n"
    assert not os.path.exists(history.store.state_path(JOURNAL))


def test_an_undo_takes_back_a_restore_that_waits_to_be_finished(history: History) -> None:
    interrupted(history)
    history.undo()
    assert (history.read("a.txt"), history.read("b.txt")) == ("two\n", "two\n")
    assert not os.path.exists(history.store.state_path(JOURNAL))


def test_a_restore_of_a_link_keeps_its_target_as_recorded(history: History) -> None:
    history.path("l").symlink_to("a/../b")
    with history.turn() as turn:
        turn.link("l", "c")
    [item] = history.restore_plan("1").files
    assert item.target.kind == LINK
    history.restore("1")
    assert os.readlink(history.path("l")) == "a/../b"
