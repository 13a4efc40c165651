"""The history's records, in this process: file states and when two are the same, entries and
their JSON, the ranges a record's numbers must lie in, checkpoints, session names, damaged
entries, and the open turn's journal file (docs/concepts.md, docs/store.md)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from rewind.errors import StoreError
from rewind.history import journal
from rewind.history.bounds import MAX_TIME, integer, seconds
from rewind.history.checkpoint import checkpoint_states, latest_states, states_between
from rewind.history.entry import (
    DAMAGED,
    EXTERNAL,
    SHELL,
    Entry,
    FileChange,
    damaged_entry,
    entry_from_record,
    first_line,
    valid_text,
)
from rewind.history.filestate import (
    ABSENT,
    DIRECTORY,
    FILE,
    LINK,
    TOO_LARGE,
    UNKNOWN,
    UNREADABLE,
    FileState,
    absent_before_creation,
    capture,
    fingerprint,
)
from rewind.history.session import ref_leaf, usable_as_ref
from rewind.history.sessions import number_damaged, refuse_damaged, resolve_session
from rewind.store.objects import MODE_EXECUTABLE, MODE_FILE, MODE_LINK
from tests.support.histories import SESSION, History, make_project

pytestmark = pytest.mark.unit


def file_state(data: bytes, mode: int = 0o644) -> FileState:
    return FileState(FILE, None, mode, len(data), fingerprint(data))


# file states -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        (file_state(b"a"), file_state(b"a"), True),
        (file_state(b"a"), file_state(b"b"), False),
        (file_state(b"a", 0o644), file_state(b"a", 0o755), False),  # permission bits count
        (FileState(ABSENT), FileState(ABSENT, missing_dirs=3), True),
        (FileState(LINK, xxh="1", size=1), FileState(LINK, xxh="1", size=1), True),
        (FileState(LINK, xxh="1"), FileState(LINK, xxh="2"), False),
        (FileState(LINK, xxh="1"), file_state(b"a"), False),
        (FileState(TOO_LARGE, size=9, mtime_ns=5), FileState(TOO_LARGE, size=9, mtime_ns=5), True),
        (FileState(TOO_LARGE, size=9, mtime_ns=5), FileState(TOO_LARGE, size=9, mtime_ns=6), False),
        (FileState(UNKNOWN), FileState(UNKNOWN), False),  # an unknown state is never the same
        (FileState(UNREADABLE), FileState(UNREADABLE), False),
        (FileState(DIRECTORY), FileState(DIRECTORY), True),
    ],
)
def test_when_two_states_are_the_same(one: FileState, other: FileState, same: bool) -> None:
    assert one.same_as(other) is same
    assert other.same_as(one) is same


@pytest.mark.parametrize(
    ("state", "restorable", "git_mode"),
    [
        (file_state(b"a", 0o644), True, MODE_FILE),
        (file_state(b"a", 0o755), True, MODE_EXECUTABLE),
        (file_state(b"a", 0o700), True, MODE_EXECUTABLE),
        (FileState(LINK, xxh="1"), True, MODE_LINK),
        (FileState(ABSENT), True, MODE_FILE),
        (FileState(TOO_LARGE), False, MODE_FILE),
        (FileState(UNREADABLE), False, MODE_FILE),
        (FileState(UNKNOWN), False, MODE_FILE),
        (FileState(DIRECTORY), False, MODE_FILE),
    ],
)
def test_which_states_are_restorable_and_their_git_modes(
    state: FileState, restorable: bool, git_mode: int
) -> None:
    assert state.restorable is restorable
    assert state.git_mode == git_mode


@pytest.mark.parametrize(
    "state",
    [
        FileState(FILE, "ab" * 20, 0o4755, 12, "00ff", 0),
        FileState(LINK, "cd" * 20, 0, 3, "11"),
        FileState(ABSENT, missing_dirs=2),
        FileState(TOO_LARGE, None, 0o600, 1 << 40, None, mtime_ns=-5),
        FileState(UNKNOWN),
    ],
)
def test_a_state_reads_back_as_written(state: FileState) -> None:
    again = FileState.from_json(state.to_json())
    assert (again.kind, again.oid, again.mode, again.size, again.xxh) == (
        state.kind,
        state.oid,
        state.mode,
        state.size,
        state.xxh,
    )
    assert (again.mtime_ns, again.missing_dirs) == (state.mtime_ns, state.missing_dirs)


@pytest.mark.parametrize(
    ("record", "key"),
    [
        ({"kind": "file", "mode": 0o10000}, "mode"),
        ({"kind": "file", "mode": -1}, "mode"),
        ({"kind": "file", "size": 2**63}, "size"),
        ({"kind": "file", "size": True}, "size"),
        ({"kind": "file", "size": 1.5}, "size"),
        ({"kind": "absent", "missing_dirs": 5000}, "missing_dirs"),
        ({"kind": "too-large", "mtime_ns": 2**64}, "mtime_ns"),
    ],
)
def test_a_state_with_a_number_out_of_range_is_refused(record: dict[str, object], key: str) -> None:
    with pytest.raises(ValueError, match=f'"{key}" holds'):
        FileState.from_json(record)


def test_a_boolean_is_no_time() -> None:
    with pytest.raises(ValueError, match="not a time from 1970"):
        seconds({"at": True}, "at")


def test_a_state_without_a_kind_is_unknown() -> None:
    assert FileState.from_json({}).kind == UNKNOWN


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, 0), (0, 0), (7, 7), (True, ValueError), ("7", ValueError), (8, ValueError)],
)
def test_integer_bounds(value: object, expected: int | type[Exception]) -> None:
    data = {"n": value}
    if isinstance(expected, int):
        assert integer(data, "n", 0, 7) == expected
    else:
        with pytest.raises(expected):
            integer(data, "n", 0, 7)


@pytest.mark.parametrize(
    ("value", "good"),
    [
        (None, True),
        (0, True),
        (1.5, True),
        (MAX_TIME, True),
        (MAX_TIME + 1, False),
        (-1, False),
        (math.nan, False),
        (math.inf, False),
    ],
)
def test_seconds_are_times_from_1970_to_the_year_9999(value: float | None, good: bool) -> None:
    if good:
        assert seconds({"at": value}, "at") == (None if value is None else float(value))
    else:
        with pytest.raises(ValueError, match="not a time from 1970"):
            seconds({"at": value}, "at")


def test_capture_reads_files_links_absences_and_directories(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"data")
    (tmp_path / "f").chmod(0o640)
    (tmp_path / "l").symlink_to("nowhere")
    (tmp_path / "d").mkdir()
    found = {name: capture(os.fsencode(tmp_path / name), 100) for name in ("f", "l", "d", "gone")}
    assert (found["f"].kind, found["f"].mode, found["f"].size) == (FILE, 0o640, 4)
    assert found["f"].xxh == fingerprint(b"data") and found["f"].oid is None  # no writer
    assert (found["l"].kind, found["l"].size, found["l"].xxh) == (LINK, 7, fingerprint(b"nowhere"))
    assert found["d"].kind == DIRECTORY
    assert (found["gone"].kind, found["gone"].missing_dirs) == (ABSENT, 0)
    assert capture(os.fsencode(tmp_path / "f"), 3).kind == TOO_LARGE


def test_capture_under_a_file_counts_no_missing_folder_above_it(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"data")
    state = capture(os.fsencode(tmp_path / "f" / "x" / "y"), 100)
    assert state.kind == ABSENT


def test_a_created_file_counts_the_folders_that_hold_only_it(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "new.txt").write_text("new")
    (root / "kept.txt").write_text("kept")
    state = absent_before_creation(os.fsencode(root / "a" / "b" / "new.txt"), os.fsencode(root))
    assert (state.kind, state.missing_dirs) == (ABSENT, 2)
    (root / "a" / "other.txt").write_text("other")  # a/ held something else: only b/ was made
    state = absent_before_creation(os.fsencode(root / "a" / "b" / "new.txt"), os.fsencode(root))
    assert state.missing_dirs == 1


# entries ---------------------------------------------------------------------------------------


def an_entry() -> Entry:
    change = FileChange(
        b"caf\xc3\xa9/\xff.txt",  # names need not be UTF-8
        file_state(b"before"),
        FileState(ABSENT, missing_dirs=1),
        at=12.5,
        source=SHELL,
        moved_from=b"old.txt",
    )
    return Entry(
        "s", 3, "0123456789ab", prompt="Fix it", agent="codex", started=10.0, ended=20.0,
        labels=["wip"], files=[change],
        journal={"id": "j", "lines": 4}, conversation={"transcript": "t", "offset": 1},
    )  # fmt: skip


def test_an_entry_reads_back_as_written() -> None:
    entry = an_entry()
    again = Entry.from_json(entry.to_json())
    assert again.to_json() == entry.to_json()
    [change] = again.files
    assert (change.path, change.source, change.moved_from) == (
        b"caf\xc3\xa9/\xff.txt",
        SHELL,
        b"old.txt",
    )


def test_older_records_without_source_or_move_read_as_edits() -> None:
    data: dict[str, object] = {"path": "a.txt", "before": None, "after": None, "at": 1.0}
    change = FileChange.from_json(data)
    assert (change.source, change.moved_from) == ("edit", None)
    assert change.to_json() == data
    assert FileChange.from_json({**data, "source": "nonsense"}).source == "edit"
    assert FileChange.from_json({**data, "source": EXTERNAL}).source == EXTERNAL


@pytest.mark.parametrize(
    ("record", "why"),
    [
        (b"\xff\xfe", "not UTF-8"),
        (b"[1, 2]", "not a JSON object"),
        (b"{not json", "not a JSON object"),
        (b'{"session": "s"}', "it has no number"),
        (b'{"number": 0}', '"number" holds 0'),
        (b'{"number": 1, "files": {}}', "its files are not a list"),
        (b'{"number": 1, "files": [{"path": 3}]}', "not an object with a path"),
        (b'{"number": 1, "files": [{"path": "a", "before": 3}]}', "are not objects"),
        (b'{"number": 1, "started": 1e300}', '"started" holds'),
        (b'{"number": 1, "target": {"number": 1.5}}', '"number" holds'),
        (b'{"number": 1, "journal": {"lines": -1}}', '"lines" holds'),
    ],
)
def test_a_record_of_the_wrong_shape_says_what_is_wrong(record: bytes, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        entry_from_record(record)


def test_an_entry_is_open_until_it_ends_and_only_a_turn_is() -> None:
    turn = Entry("s", 1, "id")
    assert turn.is_open
    turn.ended = 1.0
    assert not turn.is_open
    assert not Entry("s", 2, "id", kind="restore").is_open


def test_the_commit_message_names_the_kind_number_and_first_line() -> None:
    message = Entry("s", 4, "0123456789ab", prompt="\n  Fix the bug\nmore").commit_message()
    assert message.splitlines()[:4] == [
        "turn 4: Fix the bug",
        "",
        "session: s",
        "entry: 0123456789ab",
    ]


@pytest.mark.parametrize(
    ("text", "width", "line"),
    [
        ("one\ntwo", None, "one"),
        ("  \n\n  padded  \n", None, "padded"),
        ("", None, ""),
        ("abcdef", 4, "abc…"),
        ("abcd", 4, "abcd"),
    ],
)
def test_first_line(text: str, width: int | None, line: str) -> None:
    assert first_line(text, width) == line


def test_text_that_is_not_unicode_is_stored_with_replacement_characters() -> None:
    assert valid_text("ok \ud800 ok") == "ok \ufffd ok"
    assert valid_text("café") == "café"
    assert Entry("s", 1, "id", prompt="\udcff").prompt == "\ufffd"


def test_a_damaged_entry_stands_in_with_its_reason() -> None:
    stand_in = damaged_entry("s", "f" * 40, "its turn.json is not UTF-8 text")
    assert (stand_in.kind, stand_in.number, stand_in.id) == (DAMAGED, 0, "f" * 12)
    assert stand_in.is_damaged and stand_in.files == []
    assert "not UTF-8" in stand_in.prompt


def test_damaged_entries_are_numbered_after_their_neighbours() -> None:
    entries = [
        damaged_entry("s", "a" * 40, "x"),
        Entry("s", 5, "b"),
        damaged_entry("s", "c" * 40, "x"),
    ]
    number_damaged(entries)
    assert [entry.number for entry in entries] == [4, 5, 6]
    alone = [damaged_entry("s", "a" * 40, "x"), damaged_entry("s", "b" * 40, "x")]
    number_damaged(alone)
    assert [entry.number for entry in alone] == [1, 2]


def test_an_action_crossing_a_damaged_entry_is_refused(tmp_path: Path) -> None:
    store = History(make_project(tmp_path)).store
    entries = [Entry("s", 1, "a"), damaged_entry("s", "b" * 40, "x"), Entry("s", 3, "c")]
    number_damaged(entries)
    refuse_damaged(store, entries, 2, "restoring")  # after it: allowed
    with pytest.raises(StoreError, match="restoring would cross damaged entry 2 of session s"):
        refuse_damaged(store, entries, 0, "restoring")


# checkpoints -----------------------------------------------------------------------------------


def change(path: str, before: bytes | None, after: bytes | None) -> FileChange:
    def state(data: bytes | None) -> FileState:
        return FileState(ABSENT) if data is None else file_state(data)

    return FileChange(path.encode(), state(before), state(after))


def three_turns() -> list[Entry]:
    """notes.txt changed in turns 1 and 3, todo.txt created in 1, run.sh changed in 2."""
    return [
        Entry(
            "s", 1, "1", files=[change("notes.txt", b"", b"one"), change("todo.txt", None, b"x")]
        ),
        Entry("s", 2, "2", files=[change("run.sh", b"a", b"b")]),
        Entry("s", 3, "3", files=[change("notes.txt", b"one", b"one two")]),
    ]


def test_a_checkpoint_holds_each_path_before_its_first_change_at_or_after_it() -> None:
    entries = three_turns()
    at_two = checkpoint_states(entries, 1)
    assert sorted(at_two) == [b"notes.txt", b"run.sh"]  # todo.txt was touched only before
    assert at_two[b"notes.txt"].xxh == fingerprint(b"one")  # before turn 3, not before turn 1
    assert at_two[b"run.sh"].xxh == fingerprint(b"a")
    at_one = checkpoint_states(entries, 0)
    assert at_one[b"notes.txt"].xxh == fingerprint(b"")
    assert at_one[b"todo.txt"].kind == ABSENT


def test_a_change_recorded_without_a_before_state_checkpoints_as_unknown() -> None:
    entries = [Entry("s", 1, "1", files=[FileChange(b"a", None, file_state(b"x"))])]
    assert checkpoint_states(entries, 0)[b"a"].kind == UNKNOWN


def test_the_latest_state_of_each_path() -> None:
    latest = latest_states(three_turns())
    assert latest[b"notes.txt"].xxh == fingerprint(b"one two")
    open_turn = Entry("s", 4, "4", files=[FileChange(b"new", file_state(b"n"), None)])
    assert latest_states([*three_turns(), open_turn])[b"new"].xxh == fingerprint(b"n")


def test_states_between_two_checkpoints() -> None:
    between = states_between(three_turns(), 1, 2)  # what turn 2 did
    assert list(between) == [b"run.sh"]
    old, new = between[b"run.sh"]
    assert (old.xxh, new.xxh) == (fingerprint(b"a"), fingerprint(b"b"))
    last = states_between(three_turns(), 0, 3)
    assert last[b"notes.txt"][1].xxh == fingerprint(b"one two")


# sessions --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "usable"),
    [
        ("20261130-005232-e21f5d", True),
        ("a.b_c-d", True),
        ("", False),
        ("-leading", False),
        ("has space", False),
        ("two..dots", False),
        ("ends.", False),
        ("ends.lock", False),
        ("x" * 100, True),
        ("x" * 101, False),
        ("café", False),
        ("a/b", False),
    ],
)
def test_which_session_ids_name_their_own_ref(name: str, usable: bool) -> None:
    assert usable_as_ref(name) is usable
    leaf = ref_leaf(name)
    if usable:
        assert leaf == name
    else:
        assert leaf.startswith("x-") and len(leaf) == 22 and usable_as_ref(leaf)


def test_two_unusable_ids_get_two_refs() -> None:
    assert ref_leaf("a b") != ref_leaf("a  b")


def test_the_session_is_the_one_named_else_the_environment_else_the_most_recent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = History(make_project(tmp_path))
    with history.turn(session="first"):
        pass
    with history.turn(session="second"):
        pass
    assert resolve_session(history.store, "named") == "named"
    assert resolve_session(history.store, None) == "second"
    monkeypatch.setenv("REWIND_SESSION", "from-env")
    assert resolve_session(history.store, None) == "from-env"


def test_a_project_without_sessions_has_none_to_choose(tmp_path: Path) -> None:
    history = History(make_project(tmp_path))
    with pytest.raises(Exception, match="this project has no sessions yet"):
        resolve_session(history.store, None)
    assert len(resolve_session(history.store, None, create=True)) == len("20261130-005232-e21f5d")


# the journal file ------------------------------------------------------------------------------


def before(path: str, data: bytes, at: float) -> dict[str, object]:
    return journal.before_record([FileChange(path.encode(), file_state(data), None, at)])


def test_the_journal_is_created_once_and_appended_to(tmp_path: Path) -> None:
    path = str(tmp_path / "journal" / SESSION)
    assert not journal.append(path, before("a", b"x", 1.0))  # no journal: no open turn
    journal.create(path, "entry-1")
    journal.create(path, "entry-2")  # never overwrites
    assert journal.append(path, before("a", b"x", 1.0))
    records = journal.read(path)
    assert records is not None
    assert (records.entry, records.lines, len(records.records)) == ("entry-1", 1, 1)


def test_a_line_cut_short_is_skipped_and_the_next_record_lands(tmp_path: Path) -> None:
    path = str(tmp_path / SESSION)
    journal.create(path, "e")
    with open(path, "a") as handle:
        handle.write('{"before": [{"path": "cut')  # a writer killed mid-line
    journal.append(path, before("b", b"x", 1.0))
    records = journal.read(path)
    assert records is not None
    assert (records.lines, records.damaged) == (2, 1)
    entry = Entry("s", 1, "e")
    journal.apply(entry, records, 0)
    assert list(entry.paths()) == [b"b"]


def test_a_line_still_being_written_is_not_read(tmp_path: Path) -> None:
    path = str(tmp_path / SESSION)
    journal.create(path, "e")
    with open(path, "a") as handle:
        handle.write('{"before": []}')  # no newline yet
    records = journal.read(path)
    assert records is not None and records.lines == 0


def test_applying_records_keeps_the_earliest_before_and_the_latest_after(tmp_path: Path) -> None:
    path = str(tmp_path / SESSION)
    journal.create(path, "e")
    journal.append(path, before("a", b"second", 2.0))
    journal.append(path, {"after": journal.after_record({b"a": file_state(b"after 1")})})
    journal.append(path, {"after": journal.after_record({b"a": file_state(b"after 2")})})
    journal.spool(path, before("a", b"first", 1.0))  # spooled, but taken earlier
    records = journal.read(path)
    assert records is not None
    entry = Entry("s", 1, "e")
    journal.apply(entry, records, 0)
    [only] = entry.files
    assert only.before is not None and only.before.xxh == fingerprint(b"first")
    assert only.after is not None and only.after.xxh == fingerprint(b"after 2")


def test_records_already_absorbed_are_not_applied_again(tmp_path: Path) -> None:
    path = str(tmp_path / SESSION)
    journal.create(path, "e")
    journal.append(path, before("a", b"x", 1.0))
    journal.append(path, before("b", b"x", 1.0))
    records = journal.read(path)
    assert records is not None
    entry = Entry("s", 1, "e")
    journal.apply(entry, records, 1)
    assert list(entry.paths()) == [b"b"]
    assert journal.records_after(records, 1) == {
        "before": before("b", b"x", 1.0)["before"],
        "after": [],
    }
    assert journal.records_after(records, 2) is None


def test_spool_files_already_absorbed_are_spent_not_read(tmp_path: Path) -> None:
    path = str(tmp_path / SESSION)
    spooled = journal.spool(path, before("a", b"x", 1.0))
    fresh = journal.read(path)
    assert fresh is not None and fresh.spool_files == [spooled] and fresh.spent == []
    spent = journal.read(path, absorbed={os.path.basename(spooled)})
    assert spent is not None and spent.spent == [spooled] and spent.records == []


def test_a_damaged_record_leaves_the_others_applying(tmp_path: Path) -> None:
    path = str(tmp_path / SESSION)
    journal.create(path, "e")
    journal.append(path, {"before": [{"path": 3}, "junk"]})
    journal.append(path, {"before": [{"path": "a", "before": {"kind": "file", "mode": -1}}]})
    journal.append(path, before("b", b"x", 1.0))
    records = journal.read(path)
    assert records is not None
    entry = Entry("s", 1, "e")
    journal.apply(entry, records, 0)
    assert list(entry.paths()) == [b"b"]


def test_the_objects_journals_name_are_found_for_gc(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    path = str(folder / SESSION)
    journal.create(path, "e")
    named = FileState(FILE, "1" * 40, 0o644, 1, "x")
    journal.append(path, journal.before_record([FileChange(b"a", named, None, 1.0)]))
    after = FileState(FILE, "2" * 40, 0o644, 1, "y")
    journal.append(path, {"after": journal.after_record({b"a": after})})
    journal.spool(
        str(folder / "other"),
        journal.before_record([FileChange(b"b", FileState(FILE, "3" * 40), None)]),
    )
    aside = journal.set_aside(path, "a test")
    assert Path(aside + ".why").read_text() == "a test\n"
    assert journal.objects_named(str(folder)) == {"1" * 40, "2" * 40, "3" * 40}
