"""Restoring one version of one file, in this process: ``ID`` and ``ID^``, looked up in every
session, renames followed, and the conflict check against what rewind last recorded
(docs/restore.md, "Restoring one version of one file")."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewind.errors import ConflictError, UserError
from rewind.history.entry import RESTORE
from rewind.history.recording.turns import begin, track
from rewind.history.restoring.restore import apply_plan
from rewind.history.restoring.restore_plan import RESTORE_FILE
from rewind.history.restoring.versions import describe, find_version, parse_version, plan_version
from tests.support.histories import SESSION, History, make_project

pytestmark = pytest.mark.unit


@pytest.fixture
def history(tmp_path: Path) -> History:
    """a.txt: one, then two (turn 1), then three (turn 2)."""
    history = History(make_project(tmp_path))
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n", "three\n")
    return history


def ids(history: History, session: str = SESSION) -> list[str]:
    return [entry.id for entry in history.entries(session)]


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("0123456789ab", ("0123456789ab", False)),
        ("0123456789AB^", ("0123456789ab", True)),
        (" abcd ", ("abcd", False)),
        ("f" * 40, ("f" * 40, False)),
    ],
)
def test_a_version_is_an_id_or_a_prefix_with_a_caret_for_before(
    text: str, parsed: tuple[str, bool]
) -> None:
    assert parse_version(text) == parsed


@pytest.mark.parametrize("text", ["abc", "xyz0", "abcd^^", "^abcd", "f" * 41, "3", ""])
def test_anything_else_is_not_a_version(text: str) -> None:
    with pytest.raises(UserError, match="is not a version: give an entry id"):
        parse_version(text)


def test_the_after_and_before_states_of_an_entry(history: History) -> None:
    first, second = ids(history)
    assert history.store.reader.read_blob(
        find_version(history.store, b"a.txt", first).state.oid or ""
    ) == (b"two\n")
    before = find_version(history.store, b"a.txt", first + "^")
    assert history.store.reader.read_blob(before.state.oid or "") == b"one\n"
    assert describe(before) == "before turn 1 of session s"
    assert (
        describe(find_version(history.store, b"a.txt", second[:6])) == "after turn 2 of session s"
    )


def test_an_entry_that_changed_nothing_of_its_own_still_names_its_state(
    history: History,
) -> None:
    second = ids(history)[1]
    version = find_version(history.store, b"a.txt", second + "^")  # the same as turn 1's after
    assert history.store.reader.read_blob(version.state.oid or "") == b"two\n"


def test_an_id_of_no_entry_or_of_an_entry_that_left_the_file_alone_is_refused(
    history: History,
) -> None:
    with pytest.raises(UserError, match="no entry of this project has an id starting with 'ffff'"):
        find_version(history.store, b"a.txt", "ffff")
    with history.turn() as turn:
        turn.write("b.txt", "b\n")
    other = ids(history)[-1]
    with pytest.raises(UserError, match=r"turn 3 of session s \(.*\) did not change a\.txt"):
        find_version(history.store, b"a.txt", other)


def test_the_after_state_of_an_open_turn_is_not_recorded_yet(history: History) -> None:
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"a.txt"])
    history.write("a.txt", "four\n")
    open_turn = ids(history)[-1]
    with pytest.raises(UserError, match=r"still open, so a\.txt as it leaves it is not recorded"):
        find_version(history.store, b"a.txt", open_turn)
    assert find_version(history.store, b"a.txt", open_turn + "^").state.oid is not None


def test_restoring_a_version_is_a_restore_of_the_current_session(history: History) -> None:
    first = ids(history)[0]
    version = find_version(history.store, b"a.txt", first + "^")
    plan = plan_version(history.store, SESSION, version)
    assert [item.action for item in plan.files] == [RESTORE_FILE]
    assert plan.conflicts == []
    assert plan.title() == f"restore a.txt to version {first}^ (before turn 1 of session s)"
    apply_plan(history.store, plan)
    assert history.read("a.txt") == "one\n"
    entry = history.entries()[-1]
    assert (entry.kind, entry.prompt) == (RESTORE, f"restore a.txt to version {first}^")
    assert entry.target is not None and entry.target["version"] == first + "^"
    history.undo()
    assert history.read("a.txt") == "three\n"


def test_a_version_from_another_session_can_be_restored(history: History) -> None:
    with history.turn(session="other") as turn:
        turn.write("a.txt", "other's\n")
    theirs = ids(history, "other")[0]
    plan = plan_version(history.store, SESSION, find_version(history.store, b"a.txt", theirs + "^"))
    apply_plan(history.store, plan)
    assert history.read("a.txt") == "three\n"
    assert history.entries(SESSION)[-1].kind == RESTORE


def test_a_file_changed_since_rewind_last_recorded_it_is_a_conflict(history: History) -> None:
    first = ids(history)[0]
    history.write("a.txt", "by hand\n")
    plan = plan_version(history.store, SESSION, find_version(history.store, b"a.txt", first))
    assert len(plan.conflicts) == 1
    assert plan.review_hint() == "rewind history a.txt"
    with pytest.raises(ConflictError):
        apply_plan(history.store, plan)
    apply_plan(history.store, plan, force=True)
    assert history.read("a.txt") == "two\n"


def test_a_version_recorded_under_an_earlier_name_is_written_at_the_name_now(
    history: History,
) -> None:
    first = ids(history)[0]
    with history.turn() as turn:
        turn.move("a.txt", "b.txt")
    version = find_version(history.store, b"b.txt", first)
    assert version.path == b"a.txt"
    plan = plan_version(history.store, SESSION, version, b"b.txt")
    assert "then named a.txt" in plan.title()
    apply_plan(history.store, plan)
    assert history.read("b.txt") == "two\n"
    assert not history.path("a.txt").exists()
