"""The action layer's rules for putting files back, in this process: who asks (a person's
request closes the open turn first; the agent's, mid-turn, is refused on a file its turn
touched and its turn goes on after the restore), conflicts refused and counted whoever asks,
force, and the outcome of carrying a plan out (rewind.actions.changes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rewind.actions.changes import (
    UNDO_STEP,
    Conflicts,
    Policy,
    carry_out,
    plan_step,
    plan_turn,
    plan_version,
    restore_counts,
)
from rewind.errors import UserError
from rewind.history.entry import RESTORE, TURN
from rewind.history.recording.turns import begin, track
from tests.support.histories import SESSION, History, make_project

pytestmark = pytest.mark.unit

AGENT = Policy(agent=True)


@pytest.fixture
def history(tmp_path: Path) -> History:
    """Two turns: turn 1 writes a.txt and b.txt, turn 2 rewrites a.txt."""
    history = History(make_project(tmp_path))
    with history.turn("one") as turn:
        turn.write("a.txt", "a1\n")
        turn.write("b.txt", "b1\n")
    with history.turn("two") as turn:
        turn.write("a.txt", "a2\n")
    return history


def name(text: str) -> bytes:
    return os.fsencode(text)


def test_a_persons_restore_puts_back_every_file_from_the_turn_on(history: History) -> None:
    outcome = carry_out(history.store, plan_turn(history.store, SESSION, "1"))
    assert not history.path("a.txt").exists() and not history.path("b.txt").exists()
    assert outcome.entry is not None and outcome.entry.kind == RESTORE
    assert outcome.written == 2 and outcome.failed == [] and outcome.skipped == []


def test_a_restore_of_some_paths_leaves_the_others(history: History) -> None:
    plan = plan_turn(history.store, SESSION, "1", [name("b.txt")])
    carry_out(history.store, plan)
    assert history.read("a.txt") == "a2\n" and not history.path("b.txt").exists()


def test_a_persons_restore_closes_the_open_turn_first(history: History) -> None:
    begin(history.store, SESSION, prompt="three", agent="tester")
    track(history.store, SESSION, [name("a.txt")])
    history.write("a.txt", "a3\n")
    carry_out(history.store, plan_turn(history.store, SESSION, "2"))
    assert history.read("a.txt") == "a1\n"
    entries = history.entries()
    assert [entry.kind for entry in entries] == [TURN, TURN, TURN, RESTORE]
    assert entries[2].ended is not None  # closed with a.txt's change recorded
    assert entries[2].file(name("a.txt")) is not None


def test_the_agent_mid_turn_is_refused_a_file_its_turn_touched(history: History) -> None:
    begin(history.store, SESSION, prompt="three", agent="tester")
    track(history.store, SESSION, [name("a.txt")])
    history.write("a.txt", "a3\n")
    with pytest.raises(UserError, match=r"turn 3 is still open and has changed a\.txt"):
        plan_turn(history.store, SESSION, "1", policy=AGENT)
    # Asking changed nothing: the turn is still open and holds its file.
    current = history.head().current
    assert current is not None and current.is_open
    assert history.read("a.txt") == "a3\n"


def test_the_agents_restore_of_other_files_goes_on_in_its_turn(history: History) -> None:
    begin(history.store, SESSION, prompt="three", agent="tester")
    track(history.store, SESSION, [name("a.txt")])
    history.write("a.txt", "a3\n")
    plan = plan_turn(history.store, SESSION, "1", [name("b.txt")], policy=AGENT)
    carry_out(history.store, plan, AGENT)
    assert not history.path("b.txt").exists() and history.read("a.txt") == "a3\n"
    current = history.head().current
    assert current is not None and current.is_open and current.kind == TURN
    assert current.prompt == "three"  # the continuation: the same prompt, after the restore
    assert [entry.kind for entry in history.entries()][-2:] == [RESTORE, TURN]


def test_a_conflict_is_refused_counted_and_changes_nothing(history: History) -> None:
    history.write("a.txt", "by hand\n")
    before = restore_counts(history.store).refused
    plan = plan_turn(history.store, SESSION, "1")
    with pytest.raises(Conflicts, match=r"a\.txt") as refused:
        carry_out(history.store, plan)
    assert refused.value.plan is plan
    assert history.read("a.txt") == "by hand\n" and history.read("b.txt") == "b1\n"
    assert restore_counts(history.store).refused == before + 1


def test_the_agents_conflict_is_counted_too(history: History) -> None:
    history.write("b.txt", "by hand\n")
    with pytest.raises(Conflicts):
        carry_out(history.store, plan_turn(history.store, SESSION, "1", policy=AGENT), AGENT)
    assert restore_counts(history.store).refused == 1


def test_force_overwrites_a_conflict_and_an_undo_brings_it_back(history: History) -> None:
    history.write("a.txt", "by hand\n")
    carry_out(history.store, plan_turn(history.store, SESSION, "1"), Policy(force=True))
    assert not history.path("a.txt").exists()
    carry_out(history.store, plan_step(history.store, SESSION, UNDO_STEP))
    assert history.read("a.txt") == "by hand\n"


def test_undo_then_redo(history: History) -> None:
    carry_out(history.store, plan_turn(history.store, SESSION, "2"))
    assert history.read("a.txt") == "a1\n"
    carry_out(history.store, plan_step(history.store, SESSION, UNDO_STEP))
    assert history.read("a.txt") == "a2\n"
    carry_out(history.store, plan_step(history.store, SESSION, "redo"))
    assert history.read("a.txt") == "a1\n"


def test_a_plan_with_nothing_to_change_records_nothing(history: History) -> None:
    carry_out(history.store, plan_turn(history.store, SESSION, "2"))
    count = len(history.entries())
    outcome = carry_out(history.store, plan_turn(history.store, SESSION, "2"))
    assert outcome.entry is None and len(history.entries()) == count


def test_a_version_of_one_file(history: History) -> None:
    entries = history.entries()
    plan = plan_version(history.store, SESSION, name("a.txt"), entries[0].id)
    carry_out(history.store, plan)
    assert history.read("a.txt") == "a1\n" and history.read("b.txt") == "b1\n"


def test_the_agent_is_refused_a_version_of_a_file_its_turn_touched(history: History) -> None:
    begin(history.store, SESSION, prompt="three", agent="tester")
    track(history.store, SESSION, [name("a.txt")])
    with pytest.raises(UserError, match="still open"):
        plan_version(history.store, SESSION, name("a.txt"), history.entries()[0].id, AGENT)


def test_an_undo_asked_by_the_agent_over_its_open_turns_file_is_refused(
    history: History,
) -> None:
    carry_out(history.store, plan_turn(history.store, SESSION, "2"))
    begin(history.store, SESSION, prompt="three", agent="tester")
    track(history.store, SESSION, [name("a.txt")])
    with pytest.raises(UserError, match="still open"):
        plan_step(history.store, SESSION, UNDO_STEP, AGENT)
