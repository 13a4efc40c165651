"""Recording, called in this process: turns, tracked paths, after-states, changes made outside
rewind (drift), and the open turn's journal folded into its commit (docs/concepts.md)."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from rewind.errors import UserError
from rewind.history import journal
from rewind.history.entry import (
    DRIFT_PROMPT,
    EDIT,
    EXTERNAL,
    SHELL,
    TURN,
    WATCH_AGENT,
    Entry,
    FileChange,
)
from rewind.history.filestate import ABSENT, DIRECTORY, FILE, LINK, SPECIAL, TOO_LARGE, FileState
from rewind.history.recording.drift import changed_outside, recorded_states
from rewind.history.recording.turns import (
    COPY_WINDOW,
    begin,
    begin_with_drift,
    closed_head,
    is_copy_of_open_turn,
    name_open_turn,
    record_after,
    record_after_states,
    track,
)
from rewind.history.session import journal_path_of, load_head
from rewind.store.repository import JOURNAL
from tests.support.histories import SESSION, History, make_project

pytestmark = pytest.mark.unit


def blob_id(data: bytes) -> str:
    """The id git gives ``data`` as a blob: what rewind must have stored."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def only_entry(history: History, session: str = SESSION) -> Entry:
    [entry] = history.entries(session)
    return entry


def paths_of(entry: Entry) -> list[str]:
    return [os.fsdecode(path) for path in entry.paths()]


# turns -----------------------------------------------------------------------------------------


def test_begin_numbers_turns_and_keeps_prompt_agent_and_labels(history: History) -> None:
    first = begin(history.store, SESSION, prompt="Fix the bug", agent="claude", labels=["wip"])
    second = begin(history.store, SESSION, prompt="Add a test")
    assert (first.number, first.kind, first.prompt, first.labels) == (
        1,
        TURN,
        "Fix the bug",
        ["wip"],
    )
    assert (second.number, second.prompt, second.agent) == (2, "Add a test", "claude")
    assert len(first.id) == 12 and first.id != second.id


def test_a_turn_does_not_inherit_the_agent_of_a_turn_watch_mode_opened(history: History) -> None:
    begin(history.store, SESSION, agent=WATCH_AGENT)
    assert begin(history.store, SESSION).agent == ""


def test_begin_closes_the_open_turn_with_its_after_states(history: History) -> None:
    history.write("a.txt", "one\n")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"a.txt"])
    history.write("a.txt", "two\n")
    begin(history.store, SESSION)
    first = history.entries()[0]
    assert first.ended is not None
    change = first.files[0]
    assert change.before is not None and change.before.oid == blob_id(b"one\n")
    assert change.after is not None and change.after.oid == blob_id(b"two\n")


def test_end_records_after_states_and_closes_the_turn(history: History) -> None:
    history.write("a.txt", "one\n")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"a.txt"])
    history.write("a.txt", "two\n")
    ended = record_after(history.store, SESSION, close=True)
    assert ended is not None and ended.ended is not None
    assert only_entry(history).files[0].after is not None
    assert record_after(history.store, SESSION, close=True) is None  # no turn is open now


def test_after_states_of_only_the_paths_named(history: History) -> None:
    history.write("a.txt", "a\n")
    history.write("b.txt", "b\n")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"a.txt", b"b.txt"])
    history.write("a.txt", "A\n")
    record_after(history.store, SESSION, [b"a.txt"])
    entry = only_entry(history)
    afters = {os.fsdecode(c.path): c.after for c in entry.files}
    assert afters["a.txt"] is not None and afters["a.txt"].oid == blob_id(b"A\n")
    assert afters["b.txt"] is None
    assert entry.is_open


def test_track_records_content_mode_and_size_before_the_change(history: History) -> None:
    history.write("run.sh", "echo hi\n", mode=0o751)
    begin(history.store, SESSION)
    states = track(history.store, SESSION, [b"run.sh"])
    before = only_entry(history).files[0].before
    assert before is not None
    assert (before.kind, before.oid, before.mode, before.size) == (
        FILE,
        blob_id(b"echo hi\n"),
        0o751,
        8,
    )
    assert states[b"run.sh"].oid == before.oid
    assert history.store.reader.read_blob(blob_id(b"echo hi\n")) == b"echo hi\n"


def test_the_first_track_in_a_turn_wins_and_the_last_state_is_the_after(history: History) -> None:
    history.write("a.txt", "original\n")
    with history.turn() as turn:
        turn.write("a.txt", "first edit\n")
        turn.write("a.txt", "second edit\n")
    [change] = only_entry(history).files
    assert change.before is not None and change.before.oid == blob_id(b"original\n")
    assert change.after is not None and change.after.oid == blob_id(b"second edit\n")


def test_a_path_given_twice_in_one_call_is_one_record(history: History) -> None:
    history.write("a.txt", "a\n")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"a.txt", b"a.txt"])
    assert paths_of(only_entry(history)) == ["a.txt"]


def test_a_missing_path_is_absent_with_the_folders_missing_above_it(history: History) -> None:
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"new/deep/file.txt"])
    before = only_entry(history).files[0].before
    assert before is not None and (before.kind, before.missing_dirs) == (ABSENT, 2)


def test_a_symlink_is_recorded_as_its_target_never_followed(history: History) -> None:
    history.write("target.txt", "target content\n")
    history.path("link").symlink_to("target.txt")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"link"])
    before = only_entry(history).files[0].before
    assert before is not None and (before.kind, before.oid) == (LINK, blob_id(b"target.txt"))


def test_a_directory_is_returned_but_not_recorded(history: History) -> None:
    history.path("folder").mkdir()
    begin(history.store, SESSION)
    states = track(history.store, SESSION, [b"folder"])
    assert states[b"folder"].kind == DIRECTORY
    assert only_entry(history).files == []


def test_a_fifo_is_returned_but_not_recorded(history: History) -> None:
    os.mkfifo(history.path("pipe"))
    begin(history.store, SESSION)
    assert track(history.store, SESSION, [b"pipe"])[b"pipe"].kind == SPECIAL
    assert only_entry(history).files == []


def test_a_file_over_max_file_size_is_recorded_without_its_content(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / "rewind.toml").write_text("max_file_size = 10\n")
    history = History(root)
    history.write("big.bin", b"x" * 11)
    history.write("small.txt", b"x" * 10)
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"big.bin", b"small.txt"])
    states = {os.fsdecode(c.path): c.before for c in only_entry(history).files}
    big, small = states["big.bin"], states["small.txt"]
    assert big is not None and (big.kind, big.oid, big.size) == (TOO_LARGE, None, 11)
    assert small is not None and small.kind == FILE
    assert history.store.noted == {"too_large": 1}


def test_track_without_an_open_turn_opens_one(history: History) -> None:
    history.write("a.txt", "a\n")
    track(history.store, SESSION, [b"a.txt"])
    entry = only_entry(history)
    assert (entry.number, entry.prompt, entry.is_open) == (1, "", True)


def test_track_after_the_end_of_a_turn_opens_the_next(history: History) -> None:
    history.write("a.txt", "a\n")
    with history.turn("one") as turn:
        turn.write("a.txt", "A\n")
    track(history.store, SESSION, [b"a.txt"])
    assert [(e.number, e.is_open) for e in history.entries()] == [(1, False), (2, True)]


def test_the_source_of_the_first_record_is_kept(history: History) -> None:
    history.write("a.txt", "a\n")
    history.write("b.txt", "b\n")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"a.txt"], source=SHELL)
    track(history.store, SESSION, [b"a.txt", b"b.txt"])
    record_after(history.store, SESSION, close=True)
    sources = [(os.fsdecode(c.path), c.source) for c in only_entry(history).files]
    assert sources == [("a.txt", SHELL), ("b.txt", EDIT)]


def test_a_move_is_kept_with_its_destination(history: History) -> None:
    history.write("old.txt", "moving\n")
    with history.turn() as turn:
        turn.move("old.txt", "new.txt")
    entry = only_entry(history)
    new, old = entry.file(b"new.txt"), entry.file(b"old.txt")
    assert new is not None and new.moved_from == b"old.txt"
    assert old is not None and old.moved_from is None
    assert old.after is not None and old.after.kind == ABSENT


def test_a_state_reported_afterwards_is_the_before_only_of_a_path_not_yet_recorded(
    history: History,
) -> None:
    history.write("a.txt", "a\n")
    history.write("b.txt", "b now\n")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"a.txt"])
    history.write("a.txt", "a now\n")
    reported = FileState(FILE, blob_id(b"b was\n"), 0o644, 6)
    candidates = {b"a.txt": FileState(ABSENT), b"b.txt": reported}
    assert record_after_states(history.store, SESSION, [b"a.txt", b"b.txt"], candidates)
    entry = only_entry(history)
    a, b = entry.file(b"a.txt"), entry.file(b"b.txt")
    assert a is not None and a.before is not None and a.before.oid == blob_id(b"a\n")
    assert b is not None and b.before is not None and b.before.oid == blob_id(b"b was\n")
    assert b.after is not None and b.after.oid == blob_id(b"b now\n")


def test_after_states_without_an_open_turn_record_nothing(history: History) -> None:
    history.write("a.txt", "a\n")
    assert not record_after_states(history.store, SESSION, [b"a.txt"])
    assert history.entries() == []


def test_a_prompt_delivered_twice_starts_one_turn(history: History) -> None:
    first = begin(history.store, SESSION, prompt="same", merge_copies=True)
    again = begin(history.store, SESSION, prompt="same", merge_copies=True)
    other = begin(history.store, SESSION, prompt="another", merge_copies=True)
    assert again.id == first.id
    assert other.number == 2


def test_a_prompt_sent_again_after_the_turn_changed_files_is_a_new_turn(history: History) -> None:
    history.write("a.txt", "a\n")
    begin(history.store, SESSION, prompt="same", merge_copies=True)
    track(history.store, SESSION, [b"a.txt"])
    again = begin(history.store, SESSION, prompt="same", merge_copies=True)
    assert again.number == 2


def test_a_copy_is_only_a_copy_within_the_window(history: History) -> None:
    begin(history.store, SESSION, prompt="same")
    head = load_head(history.store, SESSION)
    assert head.current is not None
    started = head.current.started
    assert is_copy_of_open_turn(head, "same", now=started + COPY_WINDOW)
    assert not is_copy_of_open_turn(head, "same", now=started + COPY_WINDOW + 1)
    assert not is_copy_of_open_turn(head, "other", now=started)


def test_an_open_turn_without_a_prompt_is_named_once(history: History) -> None:
    turn = begin(history.store, SESSION)
    assert name_open_turn(history.store, SESSION, turn.id, "Told later")
    assert not name_open_turn(history.store, SESSION, turn.id, "Told again")
    assert only_entry(history).prompt == "Told later"


def test_a_closed_turn_is_never_renamed(history: History) -> None:
    turn = begin(history.store, SESSION)
    record_after(history.store, SESSION, close=True)
    assert not name_open_turn(history.store, SESSION, turn.id, "Too late")
    assert only_entry(history).prompt == ""


def test_closing_a_session_that_does_not_exist_is_refused(history: History) -> None:
    with pytest.raises(UserError, match="there is no session 'nope'"):
        closed_head(history.store, "nope")


def test_no_turn_starts_while_a_restore_of_the_session_waits(history: History) -> None:
    begin(history.store, SESSION)
    restore_journal = history.store.state_path(JOURNAL)
    Path(restore_journal).write_text('{"session": "s", "entry": "0123456789ab"}')
    with pytest.raises(UserError, match="was interrupted and waits to be finished"):
        begin(history.store, SESSION)
    begin(history.store, "other")  # another session is not held up


# changes made outside rewind -------------------------------------------------------------------


def test_a_file_changed_between_turns_is_kept_as_an_entry_before_the_next(
    history: History,
) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    history.write("a.txt", "by hand\n")
    turn, drift = begin_with_drift(history.store, SESSION, prompt="next")
    assert drift is not None
    assert (drift.number, drift.prompt, turn.number) == (2, DRIFT_PROMPT, 3)
    assert drift.is_outside_agent and drift.ended is not None
    [change] = drift.files
    assert change.source == EXTERNAL
    assert change.before is not None and change.before.oid == blob_id(b"two\n")
    assert change.after is not None and change.after.oid == blob_id(b"by hand\n")


def test_a_file_deleted_between_turns_is_kept_as_absent(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    history.path("a.txt").unlink()
    _, drift = begin_with_drift(history.store, SESSION)
    assert drift is not None
    after = drift.files[0].after
    assert after is not None and after.kind == ABSENT


def test_nothing_is_kept_when_nothing_changed_outside(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    history.write("other.txt", "never recorded\n")
    _, drift = begin_with_drift(history.store, SESSION)
    assert drift is None
    assert [e.number for e in history.entries()] == [1, 2]


def test_a_change_during_the_open_turn_is_its_after_state_not_drift(history: History) -> None:
    history.write("a.txt", "one\n")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"a.txt"])
    history.write("a.txt", "changed before the turn ended\n")
    _, drift = begin_with_drift(history.store, SESSION)
    assert drift is None
    after = history.entries()[0].files[0].after
    assert after is not None and after.oid == blob_id(b"changed before the turn ended\n")


def test_a_path_that_now_leads_out_of_the_project_is_not_drift(
    history: History, tmp_path: Path
) -> None:
    history.write("sub/a.txt", "one\n")
    history.turns("sub/a.txt", "two\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_text("not the project's\n")
    history.path("sub/a.txt").unlink()
    history.path("sub").rmdir()
    history.path("sub").symlink_to(outside)
    _, drift = begin_with_drift(history.store, SESSION)
    assert drift is None


def test_the_last_recorded_states_are_cached_and_a_damaged_cache_is_rebuilt(
    history: History,
) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n", "three\n")
    head = load_head(history.store, SESSION)
    states = recorded_states(history.store, head)
    assert states[b"a.txt"].oid == blob_id(b"three\n")
    cache = Path(history.store.state_path("sessions", "s.latest.json"))
    assert cache.is_file()
    cache.write_text("{damaged")
    assert recorded_states(history.store, head)[b"a.txt"].oid == blob_id(b"three\n")


def test_changed_outside_compares_only_the_recorded_paths_but_those_skipped(
    history: History,
) -> None:
    history.write("a.txt", "one\n")
    history.write("b.txt", "one\n")
    with history.turn() as turn:
        turn.write("a.txt", "two\n")
        turn.write("b.txt", "two\n")
    history.write("a.txt", "three\n")
    history.write("b.txt", "three\n")
    recorded = recorded_states(history.store, load_head(history.store, SESSION))
    found = changed_outside(history.store, recorded, skip={b"b.txt"})
    assert list(found) == [b"a.txt"]
    assert found[b"a.txt"].oid == blob_id(b"three\n")  # its content is stored
    assert history.store.reader.read_blob(blob_id(b"three\n")) == b"three\n"


# the open turn's journal -----------------------------------------------------------------------


def test_records_of_an_open_turn_wait_in_its_journal_and_readers_merge_them(
    history: History,
) -> None:
    history.write("a.txt", "a\n")
    begin(history.store, SESSION)
    tip = history.store.read_ref("refs/rewind/sessions/s")
    track(history.store, SESSION, [b"a.txt"])
    assert history.store.read_ref("refs/rewind/sessions/s") == tip  # no commit per record
    path = journal_path_of(history.store, SESSION)
    assert Path(path).read_text().count("\n") == 2  # the header and one record
    assert paths_of(only_entry(history)) == ["a.txt"]  # merged when read


def test_closing_the_turn_folds_its_journal_into_the_commit_and_removes_it(
    history: History,
) -> None:
    history.write("a.txt", "a\n")
    history.write("b.txt", "b\n")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"a.txt"])
    track(history.store, SESSION, [b"b.txt"])
    record_after(history.store, SESSION, close=True)
    assert not os.path.exists(journal_path_of(history.store, SESSION))
    entry = only_entry(history)
    assert entry.journal is not None and entry.journal["lines"] == 2
    assert paths_of(entry) == ["a.txt", "b.txt"]


def test_a_spooled_record_is_picked_up_by_the_next_fold(history: History) -> None:
    history.write("a.txt", "a\n")
    history.write("late.txt", "late\n")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"a.txt"])
    path = journal_path_of(history.store, SESSION)
    late = FileState(FILE, blob_id(b"late\n"), 0o644, 5)
    spooled = journal.spool(path, journal.before_record([FileChange(b"late.txt", late, None, 1.0)]))
    assert set(paths_of(only_entry(history))) == {"a.txt", "late.txt"}  # read before the fold
    record_after(history.store, SESSION, close=True)
    assert not os.path.exists(spooled)
    entry = only_entry(history)
    assert entry.journal is not None
    assert entry.journal["spooled"] == [os.path.basename(spooled)]
    assert set(paths_of(entry)) == {"a.txt", "late.txt"}


def test_a_journal_of_no_open_turn_is_set_aside_never_applied(history: History) -> None:
    history.write("a.txt", "a\n")
    with history.turn() as turn:
        turn.write("a.txt", "A\n")
    path = journal_path_of(history.store, SESSION)
    journal.create(path, "0123456789ab")  # a turn this session never had
    stray = FileState(FILE, blob_id(b"stray\n"), 0o644, 6)
    journal.append(path, journal.before_record([FileChange(b"stray.txt", stray, None, 1.0)]))
    begin(history.store, SESSION)
    orphans = Path(path).parent / journal.ORPHAN_DIR
    kept = [name for name in os.listdir(orphans) if not name.endswith(".why")]
    assert len(kept) == 1
    assert (orphans / (kept[0] + ".why")).read_text().startswith("journal of entry 0123456789ab")
    assert all(b"stray.txt" not in list(entry.paths()) for entry in history.entries())
    log = Path(history.store.state_path("rewind.log")).read_text()
    assert "set aside" in log


def test_records_appended_after_a_killed_fold_become_the_next_turn(history: History) -> None:
    history.write("a.txt", "a\n")
    history.write("b.txt", "b\n")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"a.txt"])
    path = journal_path_of(history.store, SESSION)
    kept = Path(path).read_bytes()
    record_after(history.store, SESSION, close=True)
    Path(path).write_bytes(kept)  # the fold was killed before it removed the journal
    late = FileChange(b"b.txt", FileState(FILE, blob_id(b"b\n"), 0o644, 2), None, time.time())
    journal.append(path, journal.before_record([late]))
    begin(history.store, SESSION, prompt="next")
    entries = history.entries()
    assert [(e.number, paths_of(e)) for e in entries] == [
        (1, ["a.txt"]),
        (2, ["b.txt"]),
        (3, []),
    ]
