"""Retention, in this process: which old entries gc drops ([retention] keep_days, keep_last,
labels, max_size_mb), and the cut it makes, after which every kept entry stays restorable
(docs/store.md, "Retention")."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from rewind.history.index.queries import EntryIndex
from rewind.history.insight.labels import add_label
from rewind.history.recording.turns import begin, record_after
from rewind.history.session import forget_session
from rewind.history.upkeep import retention
from rewind.store.config import Retention
from rewind.store.objects import SHALLOW
from tests.support.histories import History, make_project

pytestmark = pytest.mark.unit

DAY = 86400.0
LATER = time.time() + 40 * DAY  # every entry recorded now is older than 30 days then


@pytest.fixture
def history(tmp_path: Path) -> History:
    """Session "old" with five turns, then session "new" with one: the newest session."""
    history = History(make_project(tmp_path))
    history.write("a.txt", "0\n")
    history.turns("a.txt", "1\n", "2\n", "3\n", "4\n", "5\n", session="old")
    history.turns("b.txt", "new\n", session="new")
    return history


def policy(keep_last: int = 2, keep_days: float = 30, max_size_mb: int = 0) -> Retention:
    return Retention(keep_days=keep_days, keep_last=keep_last, max_size_mb=max_size_mb)


def cut_at(history: History, rules: Retention, now: float = LATER) -> dict[str, int]:
    return {cut.session: cut.keep_from for cut in retention.plan(history.store, rules, now)}


def test_entries_older_than_keep_days_go_but_the_last_keep_last(history: History) -> None:
    [cut] = retention.plan(history.store, policy(keep_last=2), LATER)
    assert (cut.session, cut.keep_from, cut.dropped) == ("old", 4, 3)
    entries = history.entries("old")
    assert cut.dropped_ids == {entry.id for entry in entries[:3]}
    with EntryIndex(history.store) as index:
        assert cut.commit == index.commit_of(history.head("old"), 4)


def test_nothing_goes_before_keep_days(history: History) -> None:
    assert cut_at(history, policy(keep_last=1), now=time.time() + 29 * DAY) == {}


def test_the_newest_session_is_kept_whole(history: History) -> None:
    assert "new" not in cut_at(history, policy(keep_last=1))
    assert cut_at(History(make_project(history.root.parent, "alone")), policy(keep_last=1)) == {}


def test_a_disabled_policy_drops_nothing(history: History) -> None:
    off = Retention(enabled=False, keep_days=0, keep_last=1)
    assert retention.plan(history.store, off, LATER) == []


def test_a_label_given_at_begin_keeps_its_turn_and_everything_after(tmp_path: Path) -> None:
    history = History(make_project(tmp_path))
    for number in range(1, 6):
        begin(history.store, "old", prompt=str(number), labels=["keep"] if number == 2 else None)
        record_after(history.store, "old", close=True)
    history.turns("b.txt", "new\n", session="new")
    assert cut_at(history, policy(keep_last=1)) == {"old": 2}


def test_a_label_attached_later_keeps_its_turn_too(history: History) -> None:
    add_label(history.store, "old", "3", "keep")
    assert cut_at(history, policy(keep_last=1)) == {"old": 3}


def test_the_cut_is_listed_in_shallow_and_the_history_starts_there(history: History) -> None:
    made = retention.apply(history.store, retention.plan(history.store, policy(), LATER))
    assert [cut.keep_from for cut in made] == [4]
    shallow = Path(history.store.git_dir, SHALLOW).read_text().split()
    assert shallow == [made[0].commit]
    assert history.store.reader.cut_points() == frozenset(shallow)
    assert [entry.number for entry in history.entries("old")] == [4, 5]
    log = Path(history.store.state_path("rewind.log")).read_text()
    assert "retention dropped session old: entries before 4 (3, the newest from" in log


def test_every_kept_entry_stays_restorable(history: History) -> None:
    retention.apply(history.store, retention.plan(history.store, policy(), LATER))
    history.restore("4", session="old", force=True)
    assert history.read("a.txt") == "3\n"
    history.undo(session="old")
    assert history.read("a.txt") == "5\n"


def test_a_second_cut_replaces_the_first_of_the_same_session(history: History) -> None:
    retention.apply(history.store, retention.plan(history.store, policy(keep_last=3), LATER))
    retention.apply(history.store, retention.plan(history.store, policy(keep_last=1), LATER))
    shallow = Path(history.store.git_dir, SHALLOW).read_text().split()
    assert len(shallow) == 1
    assert [entry.number for entry in history.entries("old")] == [5]


def test_a_label_given_between_plan_and_cut_keeps_its_turn(history: History) -> None:
    planned = retention.plan(history.store, policy(keep_last=1), LATER)
    assert planned[0].keep_from == 5
    add_label(history.store, "old", "2", "late")
    [made] = retention.apply(history.store, planned)
    assert made.keep_from == 2
    assert [entry.number for entry in history.entries("old")] == [2, 3, 4, 5]


def test_a_cut_of_a_session_forgotten_since_is_not_made(history: History) -> None:
    planned = retention.plan(history.store, policy(), LATER)
    forget_session(history.store, history.head("old"))
    assert retention.apply(history.store, planned) == []
    assert not os.path.exists(os.path.join(history.store.git_dir, SHALLOW))


def test_more_of_the_oldest_go_while_the_store_is_over_its_size(tmp_path: Path) -> None:
    history = History(make_project(tmp_path))
    history.write("big.bin", b"")
    for number in range(3):  # content that does not compress: about 1.8 MB on disk
        with history.turn(str(number), session="old") as turn:
            turn.write("big.bin", os.urandom(600_000))
    history.turns("b.txt", "new\n", session="new")
    keep_age = policy(keep_last=1, keep_days=365)
    assert cut_at(history, keep_age) == {}  # nothing is old enough
    squeezed = cut_at(history, policy(keep_last=1, keep_days=365, max_size_mb=1))
    assert squeezed["old"] >= 2  # the oldest went first, the last one stays


def test_a_cut_says_what_it_drops_and_frees(history: History) -> None:
    [cut] = retention.plan(history.store, policy(), LATER)
    assert cut.freed == len("0\n") + len("1\n") + len("2\n")  # only they name these contents
    assert cut.describe().startswith("session old: entries before 4 (3, the newest from ")
    assert cut.describe().endswith("about 0.0 MB")
