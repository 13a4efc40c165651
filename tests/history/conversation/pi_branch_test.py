"""The copy a resume gives Pi (``pi --fork COPY``): the session file's header, then the entries
from the root to the one the turn followed, whatever other branches the file holds; a file that
is not Pi's, or lacks the way to the entry, is refused in one sentence."""

from __future__ import annotations

import json

import pytest

from rewind.errors import UserError
from rewind.history.conversation.pi import branch_to

pytestmark = pytest.mark.unit

HEADER = {"type": "session", "version": 3, "id": "0199", "cwd": "/p"}


def lines(*records: dict[str, object]) -> bytes:
    return b"".join(json.dumps(record).encode() + b"\n" for record in records)


def entry(key: str, parent: str | None, text: str = "") -> dict[str, object]:
    return {"type": "message", "id": key, "parentId": parent, "text": text}


# A tree: a -> b -> c (the first answer), and b -> d -> e (a branch made with /tree), whose last
# entry, e, is the file's last.
TREE = lines(
    HEADER,
    entry("a", None, "model"),
    entry("b", "a", "first prompt"),
    entry("c", "b", "first answer"),
    entry("d", "b", "another answer"),
    entry("e", "d", "after it"),
)


def ids(copy: bytes) -> list[object]:
    return [json.loads(line).get("id") for line in copy.splitlines()]


def test_the_copy_is_the_branch_to_the_entry_the_turn_followed() -> None:
    assert ids(branch_to(TREE, "c", 2)) == ["0199", "a", "b", "c"]
    assert ids(branch_to(TREE, "e", 2)) == ["0199", "a", "b", "d", "e"]
    assert branch_to(TREE, "c", 2).splitlines(keepends=True)[1] == TREE.splitlines(True)[1]


@pytest.mark.parametrize(
    ("data", "leaf", "says"),
    [
        (TREE, "zz", "has no whole branch to the entry the turn followed (zz)"),
        (lines(HEADER, entry("a", "gone")), "a", "has no whole branch"),
        (lines(HEADER, entry("a", "b"), entry("b", "a")), "a", "has no whole branch"),
        (lines(entry("a", None)), "a", "is not in Pi's format"),
        (b"not json\n", "a", "is not in Pi's format"),
    ],
    ids=["unknown entry", "missing parent", "a loop", "no header", "not JSON"],
)
def test_what_cannot_be_a_branch_is_refused_in_one_sentence(
    data: bytes, leaf: str, says: str
) -> None:
    with pytest.raises(UserError) as refused:
        branch_to(data, leaf, 4)
    message = str(refused.value)
    assert says in message and "'rewind restore 4'" in message and "\n" not in message
