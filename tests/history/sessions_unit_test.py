"""Sessions, labels and finding entries, in this process: listing and forgetting sessions, the
session ids git would refuse, labels given later, turns by number or id, and entries found in
any session of the project (docs/concepts.md, docs/store.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rewind.errors import UserError
from rewind.history.insight.labels import add_label, check_label_name, remove_label
from rewind.history.lookup import (
    changes_by_other_sessions,
    entries_between,
    entry_in_project,
    find,
    locate,
    newest,
    newest_changes,
)
from rewind.history.recording.turns import begin
from rewind.history.session import (
    forget_session,
    kept_cut_path,
    last_known_tip,
    load_head,
    recent_session,
    require_existing,
)
from rewind.history.sessions import all_labels, labels_of, list_sessions
from tests.support.histories import SESSION, History, make_project

pytestmark = pytest.mark.unit


@pytest.fixture
def history(tmp_path: Path) -> History:
    """Session s: three turns of a.txt."""
    history = History(make_project(tmp_path))
    history.write("a.txt", "0\n")
    history.turns("a.txt", "1\n", "2\n", "3\n")
    return history


# finding entries -------------------------------------------------------------------------------


def test_a_turn_by_number_or_by_id_or_a_unique_prefix(history: History) -> None:
    head = history.head()
    entries = history.entries()
    assert find(history.store, head, "2").id == entries[1].id
    assert find(history.store, head, entries[2].id).number == 3
    assert find(history.store, head, entries[0].id[:7]).number == 1
    assert find(history.store, head, " 3 ").number == 3


@pytest.mark.parametrize(
    ("wanted", "why"),
    [
        ("", "TURN is empty; give a turn's number or id"),
        ("   ", "TURN is empty"),
        ("9", "there is no turn '9' in session s; turns go from 1 to 3"),
        ("0", "there is no turn '0'"),
        ("zzzzzzz", "there is no turn 'zzzzzzz'"),
    ],
)
def test_a_turn_that_is_not_there_is_refused(history: History, wanted: str, why: str) -> None:
    with pytest.raises(UserError, match=why):
        find(history.store, history.head(), wanted)


def test_entries_between_two_numbers_and_the_newest(history: History) -> None:
    head = history.head()
    assert [e.number for e in entries_between(history.store, head, 2, 3)] == [2, 3]
    assert [e.number for e in newest(history.store, head, 2)] == [2, 3]
    assert [e.number for e in newest(history.store, head, None)] == [1, 2, 3]


def test_an_entry_of_another_session_is_not_located_in_this_one(history: History) -> None:
    with history.turn(session="other") as turn:
        turn.write("b.txt", "b\n")
    theirs = history.entries("other")[0]
    with pytest.raises(UserError, match=f"there is no turn '{theirs.id}' in session s"):
        locate(history.store, history.head(), theirs.id)


def test_an_entry_by_id_prefix_in_any_session(history: History) -> None:
    with history.turn(session="other") as turn:
        turn.write("b.txt", "b\n")
    theirs = history.entries("other")[0]
    found = entry_in_project(history.store, theirs.id[:6])
    assert found is not None and (found.session, found.number) == ("other", 1)
    assert entry_in_project(history.store, "ffffffffffff") is None


def test_the_newest_change_of_each_path_in_any_session(history: History) -> None:
    with history.turn(session="other") as turn:
        turn.write("a.txt", "theirs\n")
    newest_of = newest_changes(history.store, {b"a.txt", b"never.txt"})
    assert list(newest_of) == [b"a.txt"]
    owner, change = newest_of[b"a.txt"]
    assert owner == "other" and change.after is not None
    by_others = changes_by_other_sessions(history.store, "other", {b"a.txt"})
    assert by_others[b"a.txt"][0] == SESSION


# sessions --------------------------------------------------------------------------------------


def test_sessions_are_listed_least_recently_active_first(history: History) -> None:
    with history.turn(session="other"):
        pass
    listed = list_sessions(history.store)
    assert [(s.head.session_id, s.is_recent) for s in listed] == [(SESSION, False), ("other", True)]
    assert recent_session(history.store) == "other"


def test_a_session_id_git_would_refuse_gets_a_hashed_ref_and_keeps_its_name(
    history: History,
) -> None:
    name = "my session/with: odd chars"
    with history.turn(session=name) as turn:
        turn.write("b.txt", "b\n")
    [entry] = history.entries(name)
    assert entry.session == name
    refs = history.store.ref_names("refs/rewind/sessions/")
    assert any(ref.rsplit("/", 1)[1].startswith("x-") for ref in refs)
    assert name in [s.head.session_id for s in list_sessions(history.store)]


def test_forgetting_a_session_removes_its_ref_labels_and_caches(history: History) -> None:
    add_label(history.store, SESSION, "2", "keep")
    with history.turn(session="other"):
        pass
    head = load_head(history.store, SESSION)
    ref = head.ref
    assert forget_session(history.store, head) == 1
    assert history.store.read_ref(ref) is None
    assert not os.path.exists(history.store.state_path("sessions", "s.json"))
    assert not os.path.exists(kept_cut_path(history.store, SESSION))
    assert [s.head.session_id for s in list_sessions(history.store)] == ["other"]
    with pytest.raises(UserError, match="there is no session 's'"):
        require_existing(history.store, SESSION)


def test_the_last_known_tip_is_kept_for_repairing_a_ref(history: History) -> None:
    head = history.head()
    assert last_known_tip(history.store, head.ref) == head.tip


def test_the_newest_entry_is_read_from_the_commit_when_its_cache_is_damaged(
    history: History,
) -> None:
    Path(history.store.state_path("sessions", "s.json")).write_text("{damaged")
    assert history.head().current is not None
    assert [e.number for e in history.entries()] == [1, 2, 3]


# labels ----------------------------------------------------------------------------------------


def test_a_label_names_one_entry(history: History) -> None:
    second = add_label(history.store, SESSION, "2", "good")
    assert add_label(history.store, SESSION, "2", "good").id == second.id  # again: no change
    assert labels_of(history.store, SESSION) == {second.id: ["good"]}
    with pytest.raises(UserError, match="label 'good' already names turn 2 of session s"):
        add_label(history.store, SESSION, "3", "good")
    remove_label(history.store, SESSION, "2", "good")
    assert labels_of(history.store, SESSION) == {}


def test_a_label_given_at_begin_cannot_be_removed(tmp_path: Path) -> None:
    history = History(make_project(tmp_path))
    begin(history.store, SESSION, labels=["wip"])
    begin(history.store, SESSION)
    first = history.entries()[0]
    assert all_labels(first, {first.id: ["later", "wip"]}) == ["wip", "later"]
    with pytest.raises(UserError, match="was given when turn 1 began"):
        remove_label(history.store, SESSION, "1", "wip")


def test_removing_a_label_from_the_wrong_entry_is_refused(history: History) -> None:
    add_label(history.store, SESSION, "2", "good")
    with pytest.raises(UserError, match="label 'good' is on turn 2, not on turn 3"):
        remove_label(history.store, SESSION, "3", "good")
    with pytest.raises(UserError, match="turn 3 has no label 'other'"):
        remove_label(history.store, SESSION, "3", "other")


def test_an_open_turn_is_labelled_once_it_ends(history: History) -> None:
    begin(history.store, SESSION)
    with pytest.raises(UserError, match="turn 4 is still open"):
        add_label(history.store, SESSION, "4", "early")


@pytest.mark.parametrize("name", ["", "-x", "a b", "a..b", "end.", "x.lock", "a/b", "é"])
def test_names_git_would_refuse_are_no_labels(name: str) -> None:
    with pytest.raises(UserError, match="cannot be a label"):
        check_label_name(name)


def test_a_label_that_names_no_commit_is_left_out(history: History) -> None:
    add_label(history.store, SESSION, "1", "old")
    assert len(labels_of(history.store, SESSION)) == 1
    label = Path(history.store.git_dir, "refs/rewind/labels/s/old")
    blob = history.store.writer.write_blob(b"not a commit")
    label.write_text(blob + "\n")
    assert labels_of(history.store, SESSION) == {}
