"""A cut point as a turn's record keeps it: whatever the record holds, it reads as a cut point
or as none, never as an error that would make the entry unreadable."""

from __future__ import annotations

import pytest

from rewind.history.conversation.cut_point import TAIL, CutPoint, fingerprint
from rewind.history.entry import Entry, entry_from_record
from rewind.store.fastjson import dumps

pytestmark = pytest.mark.unit

FULL = CutPoint("claude-code", "s1", "/home/me/t.jsonl", 120, "ab" * 20, "p1", "2.1.332")


def test_a_cut_point_goes_through_json_unchanged() -> None:
    assert CutPoint.from_json(FULL.to_json()) == FULL
    bare = CutPoint("copilot", "s", "/x/events.jsonl", None, "", "1796300308820")
    assert "offset" not in bare.to_json() and "fingerprint" not in bare.to_json()
    assert CutPoint.from_json(bare.to_json()) == bare


@pytest.mark.parametrize(
    "data",
    [
        None,
        "a string",
        [1, 2],
        {},
        {**FULL.to_json(), "agent": ""},
        {**FULL.to_json(), "session": 7},
        {**FULL.to_json(), "offset": -1},
        {**FULL.to_json(), "offset": 2**63},
        {**FULL.to_json(), "offset": True},
        {**FULL.to_json(), "offset": "12"},
        {**FULL.to_json(), "transcript": "x" * 5000},
    ],
)
def test_what_is_not_a_cut_point_reads_as_none(data: object) -> None:
    assert CutPoint.from_json(data) is None


def test_a_turn_keeps_its_cut_point_and_a_wrong_one_leaves_the_entry_readable() -> None:
    entry = Entry("s1", 3, "0123456789ab", prompt="p", started=1.0, conversation=FULL.to_json())
    read = entry_from_record(dumps(entry.to_json()).encode())
    assert CutPoint.from_json(read.conversation) == FULL
    wrong = {**entry.to_json(), "conversation": {"offset": "nonsense"}}
    read = entry_from_record(dumps(wrong).encode())
    assert read.number == 3 and not read.is_damaged
    assert CutPoint.from_json(read.conversation) is None
    assert "conversation" not in Entry("s1", 1, "x").to_json()  # only turns that have one


def test_the_fingerprint_covers_the_last_tail_bytes_only() -> None:
    data = b"x" * 10 + b"y" * TAIL
    assert fingerprint(data) == fingerprint(data[-TAIL:])
    assert fingerprint(data) != fingerprint(b"z" + data[1 - TAIL :])
