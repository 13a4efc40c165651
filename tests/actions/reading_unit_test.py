"""The action layer's reading side, in this process: a log with its labels and what an undo
took back, one entry shown, a diff, a file's history, blame, the project's status, and the
one record of each that ``--json`` prints and the MCP server answers (rewind.actions.reading,
status, records)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rewind.actions import records
from rewind.actions.changes import UNDO_STEP, carry_out, plan_step, plan_turn
from rewind.actions.reading import (
    DiffRequest,
    LoggedEntry,
    LogRequest,
    Shown,
    ShownHunks,
    ShowRequest,
    blame,
    diff,
    file_history,
    read_log,
    show,
)
from rewind.actions.status import project_status
from rewind.errors import UserError
from rewind.history.entry import RESTORE, TURN
from rewind.history.insight.labels import add_label
from tests.support.histories import SESSION, History, make_project

pytestmark = pytest.mark.unit


@pytest.fixture
def history(tmp_path: Path) -> History:
    """Turn 1 writes a.txt (two lines) and b.txt; turn 2 changes a.txt's second line."""
    history = History(make_project(tmp_path))
    with history.turn("write the notes") as turn:
        turn.write("a.txt", "one\ntwo\n")
        turn.write("b.txt", "b\n")
    with history.turn("shout the second line") as turn:
        turn.write("a.txt", "one\nTWO\n")
    return history


def cwd(history: History) -> bytes:
    return os.fsencode(history.root)


def logged(history: History, **asked: object) -> list[LoggedEntry]:
    with read_log(LogRequest(session=SESSION, cwd=cwd(history), **asked)) as log:  # type: ignore[arg-type]
        return list(log.entries)


def test_the_log_lists_each_entry_with_its_line_counts(history: History) -> None:
    rows = logged(history)
    assert [(row.entry.number, row.entry.prompt) for row in rows] == [
        (1, "write the notes"),
        (2, "shout the second line"),
    ]
    [change] = rows[1].entry.files
    counted = rows[1].diff(change)
    assert (counted.added, counted.removed) == (1, 1)


def test_the_log_finds_a_prompt_or_a_label_and_keeps_the_newest(history: History) -> None:
    add_label(history.store, SESSION, history.entries()[0].id, "start")
    assert [row.entry.number for row in logged(history, grep="shout")] == [2]
    assert [row.entry.number for row in logged(history, grep="START")] == [1]
    assert [row.entry.number for row in logged(history, max_count=1)] == [2]
    assert logged(history, grep="start")[0].labels == ["start"]


def test_the_log_marks_a_restore_an_undo_took_back_and_what_redo_would_do(
    history: History,
) -> None:
    carry_out(history.store, plan_turn(history.store, SESSION, "2"))
    carry_out(history.store, plan_step(history.store, SESSION, UNDO_STEP))
    with read_log(LogRequest(session=SESSION, cwd=cwd(history))) as log:
        rows = list(log.entries)
        redo = log.redo()
    assert [(row.entry.kind, row.undone) for row in rows][2:] == [(RESTORE, True), ("undo", False)]
    assert redo is not None and redo[0].number == 3


def test_a_path_log_lists_every_entry_that_recorded_it(history: History) -> None:
    with read_log(LogRequest(path="b.txt", cwd=cwd(history))) as log:
        assert log.head is None
        assert [row.entry.number for row in log.entries] == [1]


def test_nothing_recorded_is_an_empty_log_when_that_is_fine(tmp_path: Path) -> None:
    root = make_project(tmp_path, "empty")
    with read_log(LogRequest(cwd=os.fsencode(root), missing_ok=True)) as log:
        assert log.store is None and list(log.entries) == []


def test_show_has_each_files_diff_text_and_its_record(history: History) -> None:
    shown = show(ShowRequest("2", SESSION, cwd=cwd(history)))
    assert isinstance(shown, Shown)
    assert [d.path for d in shown.diffs] == [b"a.txt"]
    record = records.shown_json(shown)
    assert record["format"] == records.FORMAT and record["turn"] == 2
    assert "+TWO" in str(record)


def test_show_of_one_path_is_its_numbered_hunks(history: History) -> None:
    shown = show(ShowRequest("2", SESSION, path="a.txt", cwd=cwd(history)))
    assert isinstance(shown, ShownHunks)
    assert [hunk.number for hunk in shown.hunks.hunks] == [1]
    assert records.shown_hunks_json(shown)["path"] == "a.txt"


def test_a_turn_that_does_not_exist_is_one_sentence(history: History) -> None:
    with pytest.raises(UserError, match="9"):
        show(ShowRequest("9", SESSION, cwd=cwd(history)))


def test_the_diff_runs_from_before_a_turn_to_the_files_now(history: History) -> None:
    history.write("b.txt", "b by hand\n")
    found = diff(DiffRequest("1", session=SESSION, cwd=cwd(history)))
    assert found.stop is None
    assert sorted(d.path for d in found.files) == [b"a.txt", b"b.txt"]
    between = diff(DiffRequest("1", "2", SESSION, cwd=cwd(history)))  # what turn 1 did
    assert (between.start.number, between.stop.number if between.stop else None) == (1, 2)
    assert sorted(d.path for d in between.files) == [b"a.txt", b"b.txt"]
    assert records.diff_between_json(between)["format"] == records.FORMAT


def test_a_files_history_is_newest_first(history: History) -> None:
    found = file_history("a.txt", cwd=cwd(history))
    # Each turn's after-state, newest first, then the state before the first (no file).
    sides = [(version.entry.number, version.after) for version in found.versions]
    assert sides == [(2, True), (1, True), (1, False)]
    assert len(file_history("a.txt", max_count=1, cwd=cwd(history)).versions) == 1
    assert records.history_json(found)["path"] == "a.txt"


def test_blame_names_the_turn_of_each_line(history: History) -> None:
    blamed = blame("a.txt", cwd(history))
    record = records.blame_json(blamed)
    assert record["lines"] == 2
    runs = record["runs"]
    assert isinstance(runs, list)
    assert [(run["start"], run["origin"]["turn"]) for run in runs] == [(1, 1), (2, 2)]


def test_the_status_names_the_session_and_its_newest_turn(history: History) -> None:
    status = project_status(cwd(history))
    assert status.session == SESSION
    assert status.newest is not None and status.newest.kind == TURN
    record = records.status_json(status)
    assert record["session"] == SESSION and record["format"] == records.FORMAT


def test_a_project_with_nothing_recorded_has_a_status_too(tmp_path: Path) -> None:
    status = project_status(os.fsencode(make_project(tmp_path, "empty")))
    assert status.store is None and status.session is None and status.newest is None
