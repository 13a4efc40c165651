"""Partial rewinds, in this process: a turn's diff cut into hunks, choices of hunks and lines
(``--hunks``), the three-way merge that puts them back into the file as it is now, and the plan
that records it as a restore (docs/restore.md, "Partial rewinds: hunks and lines")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rewind.errors import ConflictError, UserError
from rewind.history.filestate import FileState
from rewind.history.recording.turns import begin, track
from rewind.history.restoring.hunks import (
    HunksDoNotApply,
    Selection,
    describe_selection,
    hunks_between,
    is_binary,
    parse_ranges,
    put_back_hunks,
    refusals,
    resolve_choice,
    split_lines,
)
from rewind.history.restoring.partial import (
    NoHunks,
    PartialRefused,
    applicable,
    file_hunks,
    plan_partial,
    turn_hunks,
)
from rewind.history.restoring.restore import apply_plan
from tests.support.histories import SESSION, History, make_project

pytestmark = pytest.mark.unit

# The example of docs/restore.md: turn 1 of app.py, three hunks.
BEFORE = (
    b"import os\n\ndef load():\n    return {}\n\n"
    b'def save(data):\n    pass\n\ndef main():\n    print("hi")\n'
)
AFTER = (
    b'import os\nimport json\n\ndef load():\n    return json.load(open("data.json"))\n\n'
    b'def save(data):\n    pass\n\ndef main():\n    print("hello")\n'
)


def whole(*numbers: int) -> Selection:
    return dict.fromkeys(numbers)


# the diff in hunks -----------------------------------------------------------------------------


def test_the_example_has_three_hunks_numbered_from_the_top() -> None:
    hunks = hunks_between(BEFORE, AFTER)
    assert [(h.number, h.removed, h.added) for h in hunks] == [
        (1, [], [b"import json\n"]),
        (2, [b"    return {}\n"], [b'    return json.load(open("data.json"))\n']),
        (3, [b'    print("hi")\n'], [b'    print("hello")\n']),
    ]
    assert [h.header() for h in hunks] == [
        "@@ -1,3 +1,4 @@",
        "@@ -2,6 +3,6 @@",
        "@@ -7,4 +8,4 @@",
    ]


def test_changes_one_unchanged_line_apart_are_two_hunks() -> None:
    hunks = hunks_between(b"a\nb\nc\n", b"A\nb\nC\n")
    assert [(h.removed, h.added) for h in hunks] == [([b"a\n"], [b"A\n"]), ([b"c\n"], [b"C\n"])]


def test_context_stops_at_the_next_hunk() -> None:
    hunks = hunks_between(b"1\n2\n3\n4\n5\n6\n7\n8\n", b"1\nX\n3\n4\n5\n6\nY\n8\n")
    first, second = hunks
    assert (first.context_before, first.context_after) == ([b"1\n"], [b"3\n", b"4\n", b"5\n"])
    assert (second.context_before, second.context_after) == ([b"4\n", b"5\n", b"6\n"], [b"8\n"])


def test_a_created_file_is_one_hunk_of_all_its_lines() -> None:
    [hunk] = hunks_between(b"", b"a\nb\n")
    assert (hunk.removed, hunk.added, hunk.header()) == ([], [b"a\n", b"b\n"], "@@ -0,0 +1,2 @@")


def test_a_last_line_without_its_newline_differs_from_one_with_it() -> None:
    [hunk] = hunks_between(b"a\nb", b"a\nb\n")
    assert (hunk.removed, hunk.added) == ([b"b"], [b"b\n"])


def test_the_changed_lines_are_numbered_removed_first() -> None:
    hunk = hunks_between(BEFORE, AFTER)[1]
    assert [sign for sign, _ in hunk.changed] == ["-", "+"]
    assert hunk.put_back(None) == [b"    return {}\n"]
    assert hunk.put_back(frozenset({2})) == []  # takes the added line out
    assert hunk.put_back(frozenset({1})) == [b"    return {}\n", hunk.added[0]]  # brings it back


@pytest.mark.parametrize(
    ("data", "lines"),
    [(b"", []), (b"a", [b"a"]), (b"a\n", [b"a\n"]), (b"a\n\nb", [b"a\n", b"\n", b"b"])],
)
def test_split_lines_keeps_each_newline(data: bytes, lines: list[bytes]) -> None:
    assert split_lines(data) == lines
    assert b"".join(lines) == data


@pytest.mark.parametrize(
    ("data", "binary"),
    [(b"text", False), (b"a\0b", True), (b"x" * 8000 + b"\0", False), (b"x" * 7999 + b"\0", True)],
)
def test_binary_as_git_decides_it(data: bytes, binary: bool) -> None:
    assert is_binary(data) is binary


# choosing hunks --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ranges"),
    [
        ("3", [(range(3, 4), None)]),
        ("2-4", [(range(2, 5), None)]),
        ("2:1", [(range(2, 3), range(1, 2))]),
        ("2:1-3", [(range(2, 3), range(1, 4))]),
        (" 1 , 3 ", [(range(1, 2), None), (range(3, 4), None)]),
        ("1,2:1-3", [(range(1, 2), None), (range(2, 3), range(1, 4))]),
        ("007", [(range(7, 8), None)]),
    ],
)
def test_a_choice_as_written(text: str, ranges: list[tuple[range, range | None]]) -> None:
    assert parse_ranges(text) == ranges


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "an item between commas is empty"),
        ("1,,2", "an item between commas is empty"),
        ("+1", "with the digits 0-9 only"),
        ("1_0", "with the digits 0-9 only"),
        ("\u0661", "with the digits 0-9 only"),  # ARABIC-INDIC DIGIT ONE
        ("a", "with the digits 0-9 only"),
        ("0", "numbered from 1"),
        ("4-2", r"from low to high \(2-4\)"),
        ("1-3:2", "lines belong to one hunk, so write 1:2"),
        ("1" * 19, "no diff has that many hunks or lines"),
        ("2:", "with the digits 0-9 only"),
    ],
)
def test_a_choice_that_is_not_one_says_what_to_write(text: str, why: str) -> None:
    with pytest.raises(UserError, match=why) as refused:
        parse_ranges(text, turn=3, name="app.py")
    assert str(refused.value).endswith("'rewind show 3 --path app.py' numbers them.")


def test_a_choice_is_checked_against_the_diff_whatever_its_numbers() -> None:
    hunks = hunks_between(BEFORE, AFTER)
    with pytest.raises(UserError, match=r"the diff of app.py has 3 hunk\(s\), not 30000000"):
        resolve_choice(hunks, parse_ranges("1-30000000"), "app.py", 1)
    with pytest.raises(UserError, match=r"hunk 2 of app.py has 2 changed line\(s\), not 99"):
        resolve_choice(hunks, parse_ranges("2:1-99"), "app.py", 1)


def test_overlapping_ranges_are_joined_and_whole_hunks_win() -> None:
    hunks = hunks_between(b"a\nb\nc\nd\ne\n", b"A\nb\nC\nd\nE\n")
    chosen = resolve_choice(hunks, parse_ranges("1-2,2-3,3:1,1:2"), "f")
    assert chosen == {1: None, 2: None, 3: None}
    lines = resolve_choice(hunks, parse_ranges("1:1,1:2"), "f")
    assert lines == {1: frozenset({1, 2})}


def test_a_selection_built_by_hand_is_checked_too() -> None:
    hunks = hunks_between(BEFORE, AFTER)
    assert resolve_choice(hunks, {2: frozenset({1})}, "f") == {2: frozenset({1})}
    with pytest.raises(UserError, match="hunks are numbered from 1, not 0"):
        resolve_choice(hunks, {0: None}, "f")
    with pytest.raises(UserError, match="choose changed lines of hunk 2 by their numbers"):
        resolve_choice(hunks, {2: frozenset()}, "f")


@pytest.mark.parametrize(
    ("selection", "written"),
    [
        ({3: None}, "3"),
        ({1: None, 2: None}, "1,2"),
        ({2: frozenset({1, 2, 3})}, "2:1-3"),
        ({2: frozenset({1, 3, 4})}, "2:1,2:3-4"),
        ({2: frozenset({1}), 1: None}, "1,2:1"),
    ],
)
def test_a_selection_is_written_back_as_hunks_takes_it(selection: Selection, written: str) -> None:
    assert describe_selection(selection) == written


# putting hunks back ----------------------------------------------------------------------------


def test_a_whole_hunk_put_back_into_the_file_as_the_turn_left_it() -> None:
    hunks = hunks_between(BEFORE, AFTER)
    merged = put_back_hunks(AFTER, AFTER, hunks, whole(3))
    assert merged == AFTER.replace(b'print("hello")', b'print("hi")')
    assert put_back_hunks(AFTER, AFTER, hunks, whole(1, 2, 3)) == BEFORE


def test_edits_made_since_elsewhere_in_the_file_survive() -> None:
    hunks = hunks_between(BEFORE, AFTER)
    now = AFTER.replace(b"    pass\n", b'    json.dump(data, open("data.json", "w"))\n')
    merged = put_back_hunks(now, AFTER, hunks, whole(3))
    assert b"json.dump" in merged and b'print("hi")' in merged and b"import json" in merged


def test_lines_of_a_hunk_one_at_a_time() -> None:
    hunks = hunks_between(BEFORE, AFTER)
    taken_out = put_back_hunks(AFTER, AFTER, hunks, {2: frozenset({2})})
    assert b"json.load" not in taken_out and b"return {}" not in taken_out
    brought_back = put_back_hunks(AFTER, AFTER, hunks, {2: frozenset({1})})
    assert brought_back.index(b"return {}") < brought_back.index(b"json.load")


def test_a_hunk_whose_lines_changed_since_is_refused() -> None:
    hunks = hunks_between(BEFORE, AFTER)
    now = AFTER.replace(b'print("hello")', b'print("bonjour")')
    [refusal] = refusals(now, AFTER, hunks, whole(3))
    assert (refusal.hunk.number, refusal.reason) == (3, "its lines were changed since")


def test_a_hunk_whose_neighbour_lines_changed_is_refused() -> None:
    hunks = hunks_between(BEFORE, AFTER)
    now = AFTER.replace(b"def main():\n", b"def main(argv):\n")
    [refusal] = refusals(now, AFTER, hunks, whole(3))
    assert refusal.reason == "the lines next to it were changed since"


def test_a_hunk_at_the_end_of_the_file_applies_while_it_stays_last() -> None:
    hunks = hunks_between(b"a\nb\n", b"a\nB\n")
    assert put_back_hunks(b"x\na\nB\n", b"a\nB\n", hunks, whole(1)) == b"x\na\nb\n"
    assert refusals(b"a\nB\ntail\n", b"a\nB\n", hunks, whole(1))


def test_it_is_all_or_nothing() -> None:
    hunks = hunks_between(BEFORE, AFTER)
    now = AFTER.replace(b'print("hello")', b'print("bonjour")')
    with pytest.raises(HunksDoNotApply, match=r"hunk\(s\) 3 no longer apply") as refused:
        put_back_hunks(now, AFTER, hunks, whole(1, 3))
    assert [r.hunk.number for r in refused.value.refusals] == [3]


def test_a_hunk_already_put_back_no_longer_applies() -> None:
    hunks = hunks_between(BEFORE, AFTER)
    once = put_back_hunks(AFTER, AFTER, hunks, whole(2))
    assert refusals(once, AFTER, hunks, whole(2))


def test_putting_back_a_created_files_hunk_leaves_it_empty() -> None:
    hunks = hunks_between(b"", b"a\nb\n")
    assert put_back_hunks(b"a\nb\n", b"a\nb\n", hunks, whole(1)) == b""


# the plan, on a real store ---------------------------------------------------------------------


@pytest.fixture
def history(tmp_path: Path) -> History:
    """app.py as the example's turn 1 left it."""
    history = History(make_project(tmp_path))
    history.write("app.py", BEFORE, mode=0o640)
    history.turns("app.py", AFTER.decode())
    return history


def test_the_hunks_of_what_a_turn_did_to_a_file(history: History) -> None:
    entry = history.entries()[0]
    found = turn_hunks(history.store, entry, b"app.py")
    assert (found.before, found.after, len(found.hunks)) == (BEFORE, AFTER, 3)


def test_hunks_of_a_file_the_turn_did_not_change_are_refused(history: History) -> None:
    with pytest.raises(UserError, match=r"turn 1 did not change other\.py; 'rewind show 1'"):
        turn_hunks(history.store, history.entries()[0], b"other.py")


def test_a_partial_restore_puts_back_the_chosen_hunks_and_records_them(history: History) -> None:
    entry = history.entries()[0]
    by_hand = AFTER.replace(b"    pass\n", b"    json.dump(data)\n")
    history.write("app.py", by_hand, mode=0o640)
    plan = plan_partial(history.store, SESSION, entry, {b"app.py": parse_ranges("2,3")})
    assert plan.title() == "put back hunks of turn 1 of session s"
    assert plan.prompt() == "put back hunks of turn 1: app.py 2,3"
    assert plan.conflicts == []
    assert "+    return {}" in plan.resulting_diff(plan.files[0])
    apply_plan(history.store, plan)
    now = history.path("app.py").read_bytes()
    assert b"import json" in now and b"return {}" in now and b'print("hi")' in now
    assert b"json.dump(data)" in now
    assert oct(history.path("app.py").stat().st_mode & 0o777) == oct(0o640)
    recorded = history.entries()[-1]
    assert recorded.target is not None and recorded.target["hunks"] == {"app.py": "2,3"}
    history.undo()
    assert history.path("app.py").read_bytes() == by_hand


def test_a_chosen_hunk_that_no_longer_applies_refuses_the_whole_plan(history: History) -> None:
    entry = history.entries()[0]
    history.write("app.py", AFTER.replace(b'"hello"', b'"bonjour"'))
    with pytest.raises(PartialRefused, match=r"1 chosen hunk\(s\) no longer apply \(app.py hunk 3"):
        plan_partial(history.store, SESSION, entry, {b"app.py": whole(1, 3)})
    assert applicable(history.store, turn_hunks(history.store, entry, b"app.py")) == {
        3: "its lines were changed since"
    }


def test_the_file_changed_after_the_merge_was_computed_stops_the_write(history: History) -> None:
    entry = history.entries()[0]
    plan = plan_partial(history.store, SESSION, entry, {b"app.py": whole(1)})
    history.write("app.py", AFTER + b"# meanwhile\n")
    with pytest.raises(ConflictError, match="changed while the restore was being prepared"):
        apply_plan(history.store, plan, force=True)


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda h: h.path("app.py").unlink(), "app.py does not exist now"),
        (lambda h: h.write("app.py", b"binary\0now"), "app.py is a binary file now"),
    ],
)
def test_a_file_with_no_hunks_to_put_back_into_is_refused(
    history: History, make: Callable[[History], object], why: str
) -> None:
    make(history)
    with pytest.raises(NoHunks, match=why):
        plan_partial(history.store, SESSION, history.entries()[0], {b"app.py": whole(1)})


def test_a_binary_or_link_or_unrecorded_state_has_no_hunks(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / "rewind.toml").write_text("max_file_size = 100\n")
    history = History(root)
    history.write("data.bin", b"\0\1\2")
    history.path("link").symlink_to("a")
    history.write("big.txt", "x" * 200)
    with history.turn() as turn:
        turn.write("data.bin", b"\0\1\3")
        turn.link("link", "b")
        turn.write("big.txt", "small\n")
    entry = history.entries()[0]
    for name, why in (
        (b"data.bin", "data.bin is a binary file"),
        (b"link", "link is a symlink there"),
        (b"big.txt", r"the content of big.txt was not recorded there \(too-large\)"),
    ):
        with pytest.raises(NoHunks, match=why):
            turn_hunks(history.store, entry, name)


def test_the_hunks_between_any_two_recorded_states(history: History) -> None:
    change = history.entries()[0].files[0]
    backwards = file_hunks(history.store, b"app.py", change.after, change.before)
    assert [(h.removed, h.added) for h in backwards.hunks][2] == (
        [b'    print("hello")\n'],
        [b'    print("hi")\n'],
    )
    created = file_hunks(history.store, b"app.py", FileState("absent"), change.before)
    assert len(created.hunks) == 1 and created.before == b""


def test_an_open_turn_has_no_hunks_yet(history: History) -> None:
    begin(history.store, SESSION)
    track(history.store, SESSION, [b"app.py"])
    with pytest.raises(UserError, match="turn 2 is still open"):
        turn_hunks(history.store, history.entries()[-1], b"app.py")
