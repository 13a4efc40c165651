"""Hunks of a file's diff, and putting some of them back into the file as it is now.

A turn changed a file from B (its before-state) to A (its after-state). The diff B -> A is cut
into **hunks**: each is one run of consecutive changed lines (the lines B had there, then the
lines A has instead), numbered 1..n from the top. Hunks separated by even one unchanged line
are separate (unlike git's diff, which joins changes less than 7 lines apart), so each can be
chosen alone. Within a hunk the changed lines are numbered 1..k in the order they are shown:
the removed lines first, then the added ones.

Putting hunks back is a three-way merge, never an overwrite: the file as it is now (C) is
aligned with A, and each chosen hunk's A-side lines are replaced by its B-side lines where they
are in C. A hunk applies only when its A-side lines are all in C, consecutive, with the
unchanged line just before and just after it (or the start or end of the file) still next to
them; otherwise it is refused with the reason, and nothing is applied (all or nothing). Later
edits elsewhere in the file survive.

Everything here works on bytes, line by line (a line keeps its newline), with no store: the
callers read the contents (:mod:`rewind.history.partial`).
"""

from __future__ import annotations

from difflib import SequenceMatcher

from rewind.errors import UserError

# Unchanged lines shown around a hunk (for people; the merge checks one on each side).
CONTEXT_LINES = 3

REMOVED = "-"
ADDED = "+"


class Hunk:
    """One run of changed lines of the diff B -> A; line indexes are 0-based."""

    __slots__ = (
        "added",
        "context_after",
        "context_before",
        "new_start",
        "number",
        "old_start",
        "removed",
    )

    def __init__(
        self, number: int, old_start: int, removed: list[bytes], new_start: int, added: list[bytes]
    ) -> None:
        self.number = number
        self.old_start = old_start  # where ``removed`` starts in B
        self.removed = removed  # the lines B had here (put back when the hunk is)
        self.new_start = new_start  # where ``added`` starts in A
        self.added = added  # the lines A has instead (taken out when the hunk is put back)
        self.context_before: list[bytes] = []  # up to CONTEXT_LINES unchanged lines, for people
        self.context_after: list[bytes] = []

    def __repr__(self) -> str:
        return f"Hunk({self.number}, -{len(self.removed)} +{len(self.added)})"

    @property
    def changed(self) -> list[tuple[str, bytes]]:
        """The changed lines as shown and numbered (1..k): removed ones, then added ones."""
        return [(REMOVED, line) for line in self.removed] + [(ADDED, line) for line in self.added]

    def header(self) -> str:
        """The unified diff's ``@@ -l,s +l,s @@`` line for the hunk shown with its context."""
        before = len(self.context_before)
        old_count = before + len(self.removed) + len(self.context_after)
        new_count = before + len(self.added) + len(self.context_after)
        return (
            f"@@ -{_start(self.old_start - before, old_count)},{old_count} "
            f"+{_start(self.new_start - before, new_count)},{new_count} @@"
        )

    def put_back(self, lines: frozenset[int] | None) -> list[bytes]:
        """What replaces the hunk's A-side lines when it is put back: all of it (``lines`` is
        None), or only the changed lines numbered in ``lines`` (a removed line chosen comes
        back, an added line chosen goes; the others stay as A has them)."""
        if lines is None:
            return list(self.removed)
        kept = [line for i, line in enumerate(self.removed, 1) if i in lines]
        first_added = len(self.removed) + 1
        kept += [line for i, line in enumerate(self.added, first_added) if i not in lines]
        return kept


def _start(index: int, count: int) -> int:
    """A unified diff's 1-based start line (the line before, for an empty side)."""
    return index + 1 if count else index


def split_lines(data: bytes) -> list[bytes]:
    """The lines of ``data``, each with its newline (the last one may have none)."""
    lines = data.split(b"\n")
    result = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        result.append(lines[-1])
    return result


def is_binary(data: bytes) -> bool:
    """Binary as git decides it: a NUL byte in the first 8000 bytes."""
    return b"\0" in data[:8000]


def matching_blocks(old: list[bytes], new: list[bytes]) -> list[tuple[int, int, int]]:
    """The runs of lines ``old`` and ``new`` share, as (start in old, start in new, length),
    in order. The common head and tail are matched first, so that the matcher (quadratic at
    worst) sees only the part that changed: an edit of a few lines of a long file is cheap."""
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    middle = SequenceMatcher(
        None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False
    )
    blocks = [(0, 0, head)] if head else []
    blocks += [(a + head, b + head, size) for a, b, size in middle.get_matching_blocks() if size]
    if tail:
        blocks.append((len(old) - tail, len(new) - tail, tail))
    return blocks


def hunks_between(before: bytes, after: bytes) -> list[Hunk]:
    """The hunks of the diff ``before`` -> ``after``, numbered from 1."""
    old, new = split_lines(before), split_lines(after)
    hunks = []
    i = j = 0
    for a, b, size in [*matching_blocks(old, new), (len(old), len(new), 0)]:
        if a > i or b > j:
            hunks.append(Hunk(0, i, old[i:a], j, new[j:b]))
        i, j = a + size, b + size
    for position, hunk in enumerate(hunks):
        hunk.number = position + 1
        previous_end = (
            0 if position == 0 else hunks[position - 1].new_start + len(hunks[position - 1].added)
        )
        next_start = hunks[position + 1].new_start if position + 1 < len(hunks) else len(new)
        end = hunk.new_start + len(hunk.added)
        hunk.context_before = new[
            max(previous_end, hunk.new_start - CONTEXT_LINES) : hunk.new_start
        ]
        hunk.context_after = new[end : min(next_start, end + CONTEXT_LINES)]
    return hunks


# choosing hunks --------------------------------------------------------------------------------

# Chosen hunks by number: None for the whole hunk, else the numbers of its changed lines.
Selection = dict[int, frozenset[int] | None]


def parse_selection(text: str) -> Selection:
    """``--hunks`` as given: comma-separated items, each ``N`` (hunk N), ``N-M`` (hunks N to M),
    ``N:L`` (changed line L of hunk N) or ``N:L-M`` (its lines L to M)."""
    selection: Selection = {}
    for item in text.split(","):
        item = item.strip()
        hunk_part, colon, line_part = item.partition(":")
        try:
            if not colon:
                low, high = _range(hunk_part)
                for number in range(low, high + 1):
                    selection[number] = None
                continue
            number = int(hunk_part)
            low, high = _range(line_part)
        except ValueError:
            raise UserError(
                f"{item!r} is not a hunk choice: give hunk numbers (1,3 or 2-4) or lines of a "
                "hunk (2:1-3); 'rewind show TURN --path P' numbers them."
            ) from None
        if selection.get(number, frozenset()) is None:
            continue  # the whole hunk is chosen already
        chosen = selection.get(number) or frozenset()
        selection[number] = chosen | frozenset(range(low, high + 1))
    return selection


def _range(text: str) -> tuple[int, int]:
    low, dash, high = text.strip().partition("-")
    first = int(low)
    last = int(high) if dash else first
    if first < 1 or last < first:
        raise ValueError(text)
    return first, last


def merge_selections(selections: list[Selection]) -> Selection:
    """Several ``--hunks`` options as one choice (a whole hunk wins over lines of it)."""
    merged: Selection = {}
    for selection in selections:
        for number, lines in selection.items():
            if number in merged and merged[number] is None:
                continue
            if lines is None:
                merged[number] = None
            else:
                merged[number] = (merged.get(number) or frozenset()) | lines
    return merged


def check_selection(hunks: list[Hunk], selection: Selection, name: str) -> None:
    """Refuses a choice that names a hunk or a line the diff does not have."""
    for number, lines in sorted(selection.items()):
        if number > len(hunks):
            raise UserError(
                f"the diff of {name} has {len(hunks)} hunk(s), not {number}; "
                f"'rewind show TURN --path {name}' numbers them."
            )
        if lines is not None:
            count = len(hunks[number - 1].changed)
            if max(lines) > count:
                raise UserError(
                    f"hunk {number} of {name} has {count} changed line(s), not {max(lines)}; "
                    f"'rewind show TURN --path {name}' numbers them."
                )


# putting hunks back ---------------------------------------------------------------------------


class Refusal:
    """A chosen hunk that does not apply to the file as it is now, and why."""

    __slots__ = ("hunk", "reason")

    def __init__(self, hunk: Hunk, reason: str) -> None:
        self.hunk = hunk
        self.reason = reason


class HunksDoNotApply(UserError):
    """Some chosen hunks no longer apply: nothing was put back."""

    def __init__(self, refusals: list[Refusal], message: str) -> None:
        super().__init__(message)
        self.refusals = refusals


def refusals(
    current: bytes, after: bytes, hunks: list[Hunk], selection: Selection
) -> list[Refusal]:
    """The chosen hunks that do not apply to ``current`` (none: they all do)."""
    return _place(split_lines(current), split_lines(after), hunks, selection)[1]


def put_back_hunks(current: bytes, after: bytes, hunks: list[Hunk], selection: Selection) -> bytes:
    """``current`` with the chosen hunks of the diff (which led to ``after``) put back.

    Raises :class:`HunksDoNotApply` (listing every hunk that does not apply) and changes
    nothing unless every chosen hunk applies.
    """
    now = split_lines(current)
    placed, refused = _place(now, split_lines(after), hunks, selection)
    if refused:
        numbers = ", ".join(str(refusal.hunk.number) for refusal in refused)
        raise HunksDoNotApply(refused, f"hunk(s) {numbers} no longer apply ({refused[0].reason})")
    for start, end, lines in sorted(placed, key=lambda piece: piece[0], reverse=True):
        now[start:end] = lines
    return b"".join(now)


def _place(
    now: list[bytes], after: list[bytes], hunks: list[Hunk], selection: Selection
) -> tuple[list[tuple[int, int, list[bytes]]], list[Refusal]]:
    """Where each chosen hunk goes in ``now`` (start, end, the lines put there instead), and
    the hunks that do not apply."""
    where = _alignment(after, now)
    placed = []
    refused = []
    for number, lines in sorted(selection.items()):
        hunk = hunks[number - 1]
        start, end = hunk.new_start, hunk.new_start + len(hunk.added)
        reason = _why_not(where, start, end, len(after), len(now))
        if reason:
            refused.append(Refusal(hunk, reason))
            continue
        anchor = _mapped(where, start - 1, len(after), len(now))
        assert anchor is not None  # _why_not found it
        begin = anchor + 1
        placed.append((begin, begin + (end - start), hunk.put_back(lines)))
    return placed, refused


def _alignment(after: list[bytes], now: list[bytes]) -> list[int | None]:
    """For each line of ``after``, where the same unchanged line is in ``now`` (None: gone)."""
    where: list[int | None] = [None] * len(after)
    for a, b, size in matching_blocks(after, now):
        for offset in range(size):
            where[a + offset] = b + offset
    return where


def _mapped(where: list[int | None], index: int, after_size: int, now_size: int) -> int | None:
    """Where line ``index`` of A is in C; the start (-1) and the end of the files always match."""
    if index < 0:
        return -1
    if index >= after_size:
        return now_size
    return where[index]


def _why_not(where: list[int | None], start: int, end: int, after_size: int, now_size: int) -> str:
    """Why the hunk whose A-side lines are ``start``..``end`` cannot be put back ("" if it can):
    those lines and the one on each side must be in C, one after the other."""
    if any(where[index] is None for index in range(start, end)):
        return "its lines were changed since"
    for index in range(start - 1, end):
        here = _mapped(where, index, after_size, now_size)
        following = _mapped(where, index + 1, after_size, now_size)
        if here is None or following is None or following != here + 1:
            return "the lines next to it were changed since"
    return ""


def describe_selection(selection: Selection) -> str:
    """A choice written back as ``--hunks`` takes it (``1,2:1-3``)."""
    items = []
    for number, lines in sorted(selection.items()):
        if lines is None:
            items.append(str(number))
            continue
        ordered = sorted(lines)
        start = previous = ordered[0]
        for line in [*ordered[1:], None]:
            if line is not None and line == previous + 1:
                previous = line
                continue
            items.append(f"{number}:{start}" + (f"-{previous}" if previous != start else ""))
            if line is not None:
                start = previous = line
    return ",".join(items)
