"""Undo and redo, in this process: the two stacks a session's restores make, and what each step
puts back (docs/restore.md, "Undo, and undo of undo")."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewind.errors import ConflictError, UserError
from rewind.history.entry import REDO, RESTORE, TURN, UNDO, Entry
from rewind.history.restoring.undo_stack import UndoStack
from tests.support.histories import History, make_project

pytestmark = pytest.mark.unit


def entry(number: int, kind: str = TURN, reverses: int | None = None) -> Entry:
    target = {"entry": f"e{reverses}", "number": reverses} if reverses is not None else None
    if kind == RESTORE:
        target = {"entry": "e1", "number": 1}
    return Entry("s", number, f"e{number}", kind=kind, target=target, ended=1.0)


def numbers(entries: list[Entry]) -> list[int]:
    return [e.number for e in entries]


# the stacks, from entries ------------------------------------------------------------------------


def test_no_restore_leaves_nothing_to_undo_or_redo() -> None:
    stack = UndoStack([entry(1), entry(2)])
    assert (stack.next_undo(), stack.next_redo()) == (None, None)


def test_undo_takes_back_the_newest_restore_then_the_ones_before() -> None:
    entries = [entry(1), entry(2, RESTORE), entry(3), entry(4, RESTORE)]
    stack = UndoStack(entries)
    assert numbers(stack.applied) == [2, 4]
    undone = UndoStack([*entries, entry(5, UNDO, reverses=4)])
    next_undo = undone.next_undo()
    assert next_undo is not None and next_undo.number == 2
    assert numbers(undone.undone) == [5]
    assert undone.undone_restores() == {4}


def test_redo_puts_back_the_last_undone_first() -> None:
    entries = [
        entry(1),
        entry(2, RESTORE),
        entry(3, RESTORE),
        entry(4, UNDO, reverses=3),
        entry(5, UNDO, reverses=2),
    ]
    stack = UndoStack(entries)
    assert (stack.applied, numbers(stack.undone)) == ([], [4, 5])
    redone = UndoStack([*entries, entry(6, REDO, reverses=5)])
    assert numbers(redone.applied) == [6] and numbers(redone.undone) == [4]
    assert redone.restore_of(redone.applied[0]).number == 2


def test_a_new_restore_empties_what_redo_would_put_back() -> None:
    stack = UndoStack([entry(1, RESTORE), entry(2, UNDO, reverses=1), entry(3, RESTORE)])
    assert numbers(stack.applied) == [3]
    assert stack.next_redo() is None


def test_an_undo_of_an_undo_counts_as_a_redo() -> None:
    # What an earlier rewind recorded when its second undo undid the first ('undo undo 2').
    stack = UndoStack([entry(1), entry(2, RESTORE), entry(3, UNDO, reverses=2), entry(4, UNDO, 3)])
    assert numbers(stack.applied) == [4] and stack.undone == []
    assert stack.restore_of(stack.applied[0]).number == 2


def test_an_undo_naming_an_entry_not_on_top_changes_nothing() -> None:
    stack = UndoStack([entry(1, RESTORE), entry(2, RESTORE), entry(3, UNDO, reverses=1)])
    assert numbers(stack.applied) == [1, 2] and stack.undone == []


def test_a_redo_without_a_target_changes_nothing() -> None:
    stack = UndoStack([entry(1, RESTORE), entry(2, UNDO, reverses=1), entry(3, REDO)])
    assert numbers(stack.undone) == [2] and stack.applied == []


def test_the_chain_of_targets_ends_at_the_restore() -> None:
    stack = UndoStack(
        [entry(1, RESTORE), entry(2, UNDO, reverses=1), entry(3, REDO, 2), entry(4, UNDO, 3)]
    )
    assert [stack.restore_of(e).number for e in stack.by_number.values()] == [1, 1, 1, 1]


def test_a_chain_that_loops_or_breaks_off_stops() -> None:
    looping = UndoStack([entry(1, UNDO, reverses=2), entry(2, UNDO, reverses=1)])
    assert looping.restore_of(looping.by_number[1]).kind == UNDO
    broken = UndoStack([entry(5, UNDO, reverses=99)])
    assert broken.restore_of(broken.by_number[5]).number == 5


def test_a_target_number_that_is_not_an_integer_is_no_target() -> None:
    odd = Entry("s", 2, "e2", kind=UNDO, target={"number": True}, ended=1.0)
    stack = UndoStack([entry(1, RESTORE), odd])
    assert numbers(stack.applied) == [1]


# stepping through a real session ---------------------------------------------------------------


@pytest.fixture
def history(tmp_path: Path) -> History:
    """Turn 1 writes two, turn 2 three, turn 3 four, into a.txt (one before)."""
    history = History(make_project(tmp_path))
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n", "three\n", "four\n")
    return history


def test_undo_without_a_restore_says_so(history: History) -> None:
    with pytest.raises(UserError, match="there is no restore to undo in this session"):
        history.undo_plan()


def test_undo_steps_back_through_every_restore_then_redo_forward(history: History) -> None:
    history.restore("3")  # entry 4: back to three
    history.restore("2")  # entry 5: back to two
    history.undo()  # 6 takes back 5
    assert history.read("a.txt") == "three\n"
    history.undo()  # 7 takes back 4
    assert history.read("a.txt") == "four\n"
    with pytest.raises(
        UserError, match="its restores are all undone; 'rewind redo' puts restore 4"
    ):
        history.undo_plan()
    history.redo()  # 8 puts back 4
    assert history.read("a.txt") == "three\n"
    history.redo()  # 9 puts back 5
    assert history.read("a.txt") == "two\n"
    with pytest.raises(UserError, match="there is nothing to redo in session s"):
        history.redo_plan()
    kinds = [(e.number, e.kind, e.prompt) for e in history.entries()[3:]]
    assert kinds == [
        (4, RESTORE, "restore to before turn 3"),
        (5, RESTORE, "restore to before turn 2"),
        (6, UNDO, "undo restore 5"),
        (7, UNDO, "undo restore 4"),
        (8, REDO, "redo restore 4"),
        (9, REDO, "redo restore 5"),
    ]


def test_the_undo_plan_names_the_restore_it_takes_back(history: History) -> None:
    history.restore("2")
    plan = history.undo_plan()
    assert plan.title() == "undo restore 4 of session s"
    assert plan.subject.number == 4 and plan.restore.number == 4
    history.undo()
    redo = history.redo_plan()
    assert redo.title() == "redo restore 4 of session s"
    assert (redo.subject.kind, redo.restore.number) == (UNDO, 4)


def test_a_new_restore_after_an_undo_leaves_nothing_to_redo(history: History) -> None:
    history.restore("2")
    history.undo()
    history.restore("3")
    with pytest.raises(UserError, match="nothing to redo"):
        history.redo_plan()


def test_undo_puts_back_exactly_what_the_restore_overwrote(history: History) -> None:
    history.write("a.txt", "edited by hand\n")
    history.restore("1", force=True)
    history.undo()
    assert history.read("a.txt") == "edited by hand\n"


def test_a_file_changed_since_the_restore_is_an_undo_conflict(history: History) -> None:
    history.restore("2")
    history.write("a.txt", "changed after the restore\n")
    with pytest.raises(ConflictError):
        history.undo()
    assert history.read("a.txt") == "changed after the restore\n"
    history.undo(force=True)
    assert history.read("a.txt") == "four\n"
    history.redo()  # puts back what the undo overwrote: the change made after the restore
    assert history.read("a.txt") == "changed after the restore\n"


def test_a_turn_after_the_undo_leaves_nothing_to_redo(history: History) -> None:
    history.restore("2")
    history.undo()
    with history.turn() as turn:
        turn.write("a.txt", "the agent went on\n")
    with pytest.raises(UserError, match="an undo can be redone until something else happens"):
        history.redo()
    assert history.read("a.txt") == "the agent went on\n"


def test_new_work_between_entries_empties_the_redo_stack() -> None:
    undos = [entry(1), entry(2, RESTORE), entry(3, UNDO, reverses=2)]
    assert numbers(UndoStack(undos).undone) == [3]
    assert UndoStack(undos, newest=4).undone == []  # entry 4: a turn, not read here
    assert UndoStack([*undos, entry(4)]).undone == []  # the same, read
    # Restores and undos read alone (the index's): a number skipped is another entry.
    alone = [
        entry(2, RESTORE),
        entry(3, UNDO, reverses=2),
        entry(5, RESTORE),
        entry(6, UNDO, reverses=5),
    ]
    stack = UndoStack(alone, newest=6)
    assert numbers(stack.undone) == [6] and stack.undone_restores() == {2, 5}


def test_undo_never_undoes_a_turn(history: History) -> None:
    history.restore("3")
    history.undo()
    with pytest.raises(UserError, match="its restores are all undone"):
        history.undo_plan()
    assert history.read("a.txt") == "four\n"
