"""One file's story, in this process: its versions across sessions (sources, duplicates, changes
made outside rewind, renames, what restores put back), blame by prompt, line counts and diffs
(docs/history.md)."""

from __future__ import annotations

import os

import pytest

from rewind.errors import UserError
from rewind.history.entry import EDIT, EXTERNAL, SHELL
from rewind.history.filestate import ABSENT, FILE, FileState, fingerprint
from rewind.history.index.queries import EntryIndex
from rewind.history.insight.blame import BEFORE_RECORD, OUTSIDE_RECORD, RECORDED, blame_file
from rewind.history.insight.diffs import (
    ADDED,
    DELETED,
    MODE,
    MODIFIED,
    NO_PRE_IMAGE,
    NOT_SHARED_DIFF,
    PENDING,
    UNCHANGED,
    FileDiff,
    diff_states,
    diff_to_disk,
    entry_diffs,
)
from rewind.history.insight.file_history import (
    OUTSIDE,
    Version,
    file_versions,
    find_version,
    version_content,
)
from rewind.history.insight.line_counts import LineCounts
from rewind.history.recording.turns import begin, begin_with_drift, track
from tests.support.histories import SESSION, History

pytestmark = pytest.mark.unit


def story(history: History, path: str = "a.txt") -> list[tuple[str, str, str]]:
    """Each version, newest first: which side of which entry, its source, its content."""
    found = []
    for version in file_versions(history.store, path.encode()):
        side = f"{version.entry.session}#{version.entry.number}" + ("" if version.after else "^")
        content = version_content(history.store, version)
        found.append((side, version.source, "-" if content is None else content.decode()))
    return found


# versions --------------------------------------------------------------------------------------


def test_each_distinct_state_is_one_version_newest_first(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n", "three\n")
    assert story(history) == [
        ("s#2", EDIT, "three\n"),
        ("s#1", EDIT, "two\n"),
        ("s#1^", EDIT, "one\n"),
    ]


def test_a_version_equal_to_the_one_before_is_left_out(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n", "two\n", "three\n")
    assert [side for side, _, _ in story(history)] == ["s#3", "s#1", "s#1^"]


def test_a_change_nobody_recorded_is_a_version_of_its_own(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    with history.turn("by another session", session="other") as turn:
        history.write("a.txt", "by hand\n")  # changed before this session tracked it
        turn.write("a.txt", "three\n")
    assert story(history) == [
        ("other#1", EDIT, "three\n"),
        ("other#1^", OUTSIDE, "by hand\n"),
        ("s#1", EDIT, "two\n"),
        ("s#1^", EDIT, "one\n"),
    ]


def test_sources_say_who_recorded_each_version(history: History) -> None:
    history.write("a.txt", "one\n")
    with history.turn(source=SHELL) as turn:
        turn.write("a.txt", "by a command\n")
    history.write("a.txt", "between prompts\n")
    begin_with_drift(history.store, SESSION, prompt="next")
    history.restore("1", force=True)
    history.undo()
    sources = [source for _, source, _ in story(history)]
    assert sources == ["undo", "restore", EXTERNAL, SHELL, SHELL]


def test_a_restore_names_the_earlier_version_it_put_back(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    history.restore("1")
    history.undo()
    versions = file_versions(history.store, b"a.txt")
    undo, restore, turn, first = versions
    assert restore.same_as is first and undo.same_as is turn
    assert turn.same_as is None


def test_a_deleted_file_is_a_version_without_content(history: History) -> None:
    history.write("a.txt", "one\n")
    with history.turn() as turn:
        turn.delete("a.txt")
    newest = file_versions(history.store, b"a.txt")[0]
    assert newest.deleted and not newest.has_content
    assert version_content(history.store, newest) is None


def test_versions_from_every_session_in_the_order_they_were_touched(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n", session="first")
    history.turns("a.txt", "three\n", session="second")
    history.turns("a.txt", "four\n", session="first")
    # first's next prompt found second's change (drift, entry 2: the same content, no version)
    assert [side for side, _, _ in story(history)] == ["first#3", "second#1", "first#1", "first#1^"]


def test_an_open_turn_counts_with_what_its_journal_holds(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    history.write("b.txt", "b\n")
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"b.txt"])
    assert [side for side, _, _ in story(history, "b.txt")] == ["s#2^"]


def test_nothing_recorded_is_no_version(history: History) -> None:
    assert file_versions(history.store, b"never.txt") == []


def test_versions_are_found_by_id_or_prefix_and_side(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    versions = file_versions(history.store, b"a.txt")
    entry_id = versions[0].entry.id
    after = find_version(versions, entry_id)
    before = find_version(versions, entry_id[:6] + "^")
    assert after is not None and after.after
    assert before is not None and not before.after
    assert find_version(versions, "^") is None
    assert find_version(versions, "ffffffffffff") is None


def test_a_prefix_two_versions_share_is_refused(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n", "three\n")
    versions = file_versions(history.store, b"a.txt")
    versions[1].entry.id = versions[0].entry.id[:3] + "x" * 9  # the same start, by chance
    with pytest.raises(ValueError, match="matches more than one version"):
        find_version(versions, versions[0].entry.id[:3])


def test_line_counts_against_the_older_version(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "one\ntwo\nthree\n", "one\nTWO\n", "\0binary\n")
    versions = file_versions(history.store, b"a.txt")
    counts = [(v.added, v.removed, v.binary, v.compared) for v in versions]
    assert counts == [
        (0, 0, True, True),
        (1, 2, False, True),
        (2, 0, False, True),
        (0, 0, False, False),  # the oldest has nothing to be compared with
    ]


# renames ---------------------------------------------------------------------------------------


def test_a_move_read_by_the_quicksave_is_followed(history: History) -> None:
    history.write("old.txt", "one\n")
    history.turns("old.txt", "two\n")
    with history.turn("Rename") as turn:
        turn.move("old.txt", "new.txt")
    versions = file_versions(history.store, b"new.txt")
    assert [(os.fsdecode(v.path), v.id.endswith("^")) for v in versions] == [
        ("new.txt", False),
        ("old.txt", False),
        ("old.txt", True),
    ]
    assert versions[0].moved_from == b"old.txt"


def test_a_delete_and_create_of_the_same_content_is_a_rename(history: History) -> None:
    history.write("old.txt", "content\n")
    with history.turn() as turn:
        turn.delete("old.txt")
        turn.write("new.txt", "content\n")
    versions = file_versions(history.store, b"new.txt")
    assert [os.fsdecode(v.path) for v in versions] == ["new.txt", "old.txt"]


def test_a_new_file_with_other_content_starts_a_story_of_its_own(history: History) -> None:
    history.write("old.txt", "content\n")
    with history.turn() as turn:
        turn.delete("old.txt")
        turn.write("new.txt", "something else\n")
    versions = file_versions(history.store, b"new.txt")
    assert [os.fsdecode(v.path) for v in versions] == ["new.txt", "new.txt"]
    assert versions[-1].state.kind == ABSENT


def test_a_move_onto_a_recorded_path_is_a_version_not_followed(history: History) -> None:
    history.write("a.txt", "a\n")
    history.write("b.txt", "b\n")
    history.turns("b.txt", "b2\n")
    with history.turn() as turn:
        turn.move("a.txt", "b.txt")
    paths = [os.fsdecode(v.path) for v in file_versions(history.store, b"b.txt")]
    assert paths == ["b.txt", "b.txt", "b.txt"]


# blame -----------------------------------------------------------------------------------------


def runs(history: History, path: str = "a.txt") -> list[tuple[int, int, str, str | None]]:
    blame = blame_file(history.store, path.encode())
    return [
        (run.start, run.count, run.status, run.version.id if run.version else None)
        for run in blame.runs
    ]


def test_each_line_is_blamed_on_the_version_that_last_changed_it(history: History) -> None:
    history.write("a.txt", "kept\n")
    history.turns("a.txt", "kept\nsecond\n", "kept\nsecond\nthird\n")
    first, second = history.entries()
    assert runs(history) == [
        (1, 1, BEFORE_RECORD, None),
        (2, 1, RECORDED, first.id),
        (3, 1, RECORDED, second.id),
    ]


def test_lines_changed_since_the_last_record_are_outside(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "one\ntwo\n")
    history.write("a.txt", "one\ntwo\nby hand\n")
    assert runs(history)[-1] == (3, 1, OUTSIDE_RECORD, None)


def test_a_restore_keeps_the_origins_of_what_it_put_back(history: History) -> None:
    history.write("a.txt", "base\n")
    history.turns("a.txt", "base\nagent\n", "base\nagent\nmore\n")
    first = history.entries()[0]
    history.restore("2")
    assert runs(history) == [(1, 1, BEFORE_RECORD, None), (2, 1, RECORDED, first.id)]


def test_blame_of_what_it_cannot_read_is_refused(history: History) -> None:
    history.write("bin", b"\0\0")
    history.turns("bin", "\0x")
    history.write("a.txt", "a\n")
    history.turns("a.txt", "b\n")
    history.path("link").symlink_to("a.txt")
    history.write("unrecorded.txt", "u\n")
    for name, why in (
        ("gone.txt", "gone.txt does not exist now"),
        ("link", "link is a symbolic link"),
        ("bin", "bin is a binary file"),
        ("unrecorded.txt", "nothing is recorded for unrecorded.txt"),
    ):
        with pytest.raises(UserError, match=why):
            blame_file(history.store, name.encode())


def test_blame_is_kept_in_the_index_and_goes_on_from_there(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "one\ntwo\n")
    before = runs(history)
    with EntryIndex(history.store) as index:
        assert index.blame(b"a.txt") is not None
    history.turns("a.txt", "one\ntwo\nthree\n")
    after = runs(history)
    assert after[:-1] == before and after[-1][2] == RECORDED


# diffs and line counts -------------------------------------------------------------------------


def state(data: bytes | None, mode: int = 0o644) -> FileState:
    if data is None:
        return FileState(ABSENT)
    return FileState(FILE, None, mode, len(data), fingerprint(data))


@pytest.mark.parametrize(
    ("old", "new", "status"),
    [
        (state(b"a"), None, PENDING),
        (None, state(b"a"), NO_PRE_IMAGE),
        (FileState("unknown"), state(b"a"), NO_PRE_IMAGE),
        (FileState("not-shared"), state(b"a"), NOT_SHARED_DIFF),
        (state(None), state(b"a"), ADDED),
        (state(None), state(None), UNCHANGED),
        (state(b"a"), state(None), DELETED),
        (state(b"a"), state(b"a"), UNCHANGED),
        (state(b"a", 0o644), state(b"a", 0o755), MODE),
        (state(b"a"), state(b"b"), MODIFIED),
    ],
)
def test_how_a_path_differs_between_two_states(
    old: FileState | None, new: FileState | None, status: str
) -> None:
    assert FileDiff(b"p", old, new).status == status


def test_a_turns_diff_counts_lines_and_shows_git_text(history: History) -> None:
    history.write("a.txt", "one\ntwo\n")
    history.write("run.sh", "run\n", mode=0o644)
    with history.turn() as turn:
        turn.write("a.txt", "one\nTWO\nthree\n")
        turn.track("run.sh")
        history.path("run.sh").chmod(0o755)
        turn.write("new.txt", "n\n")
    diffs = {os.fsdecode(d.path): d for d in entry_diffs(history.store, history.entries()[0], True)}
    assert (diffs["a.txt"].added, diffs["a.txt"].removed) == (2, 1)
    assert "-two\n+TWO\n+three" in diffs["a.txt"].text
    assert diffs["run.sh"].status == MODE
    assert "old mode 100644 (644)\nnew mode 100755 (755)" in diffs["run.sh"].text
    assert (diffs["new.txt"].status, diffs["new.txt"].added) == (ADDED, 1)


def test_a_created_or_deleted_file_is_diffed_with_its_own_mode(history: History) -> None:
    history.write("old.sh", "old\n", mode=0o755)
    with history.turn() as turn:
        turn.delete("old.sh")
        turn.write("new.sh", "new\n", mode=0o755)
        turn.link("here", "new.sh")
    diffs = {os.fsdecode(d.path): d for d in entry_diffs(history.store, history.entries()[0], True)}
    assert "\ndeleted file mode 100755\n" in diffs["old.sh"].text
    assert "\nnew file mode 100755\n" in diffs["new.sh"].text
    assert "\nnew file mode 120000\n" in diffs["here"].text


def test_a_diff_against_the_file_on_disk(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    history.write("a.txt", "two\nthree\n")
    change = history.entries()[0].files[0]
    assert change.after is not None
    diff = diff_to_disk(history.store, b"a.txt", change.after)
    assert (diff.added, diff.removed, diff.status) == (1, 0, MODIFIED)
    assert diff_states(history.store, b"a.txt", change.after, change.after).text == ""


def test_line_counts_are_counted_once_and_kept_in_the_index(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "one\ntwo\n")
    entry = history.entries()[0]
    with EntryIndex(history.store) as index:
        counts = LineCounts(history.store, index)
        [diff] = counts.diffs(entry)
        assert (diff.added, diff.removed, len(counts.counted)) == (1, 0, 1)
        counts.save()
    with EntryIndex(history.store) as index:
        again = LineCounts(history.store, index, preload=True)
        assert len(again.known) == 1
        [diff] = again.diffs(entry)
        assert (diff.added, again.counted) == (1, {})


def test_a_version_keeps_what_its_entry_recorded(history: History) -> None:
    history.write("a.txt", "one\n")
    history.turns("a.txt", "two\n")
    newest: Version = file_versions(history.store, b"a.txt")[0]
    assert newest.state.oid is not None and newest.path == b"a.txt"
    assert newest.entry.prompt == "write 1" and newest.entry.agent == "tester"
    assert newest.at == newest.entry.ended
