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
callers read the contents (:mod:`rewind.history.restoring.partial`). The diffs themselves, B -> A
and A -> C, are libgit2's (:func:`rewind.store.line_diffs.line_hunks`, as ``git diff`` and ``rewind
blame`` make them): near linear, where a longest-common-run matcher is cubic on files with many
repeated lines.

A choice written as ``--hunks`` takes it (``1-3,5:2``) is parsed into ranges
(:func:`parse_ranges`) and checked against the diff before anything is expanded
(:func:`resolve_choice`), so no choice costs more than the diff's own size and its text's length,
whatever numbers it holds.
"""

from __future__ import annotations

from rewind.errors import UserError
from rewind.store.line_diffs import line_hunks

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


def hunks_between(before: bytes, after: bytes) -> list[Hunk]:
    """The hunks of the diff ``before`` -> ``after``, numbered from 1."""
    old, new = split_lines(before), split_lines(after)
    hunks = [
        Hunk(number, a, old[a : a + removed], b, new[b : b + added])
        for number, (a, removed, b, added) in enumerate(line_hunks(before, after), 1)
    ]
    for position, hunk in enumerate(hunks):
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

# A ``--hunks`` list as written, item by item: the hunks it names (one, or a range) and, for
# ``N:L-M``, the lines of that hunk (None: the whole hunks). It costs what its text does,
# whatever numbers the text holds; :func:`resolve_choice` checks it against a diff, then expands
# it into a Selection.
Ranges = list[tuple[range, range | None]]

# What a caller may give as a choice: ranges as parsed, or a Selection built by hand (the TUI).
Choice = Selection | Ranges

# No diff has this many hunks or lines: longer numbers are refused before int() reads them.
_MAX_DIGITS = 18
_HOW = "give hunk numbers (1,3 or 2-4) or lines of a hunk (2:1-3)"


def parse_ranges(text: str, turn: int | str = "TURN", name: str = "P") -> Ranges:
    """``--hunks`` as given: comma-separated items, each ``N`` (hunk N), ``N-M`` (hunks N to M),
    ``N:L`` (changed line L of hunk N) or ``N:L-M`` (its lines L to M); numbers are written with
    the ASCII digits 0-9, and spaces around them are allowed. ``turn`` and ``name``, the entry
    and the file, go into the hint of a refusal."""
    hint = f"'rewind show {turn} --path {name}' numbers them."
    items = text.split(",")
    try:
        if any(not item.strip(" ") for item in items):
            raise _not_a_choice(text, f"an item between commas is empty; {_HOW}")
        return [_item(item) for item in items]
    except UserError as error:
        raise UserError(str(error).replace(_HINT, hint)) from None


def _item(item: str) -> tuple[range, range | None]:
    hunk_part, colon, line_part = item.partition(":")
    hunks = _range(item, hunk_part)
    if not colon:
        return hunks, None
    if len(hunks) > 1:
        raise _not_a_choice(
            item, f"lines belong to one hunk, so write {hunks.start}:{line_part.strip()}"
        )
    return hunks, _range(item, line_part)


def _range(item: str, text: str) -> range:
    low, dash, high = text.partition("-")
    first = _number(item, low)
    last = _number(item, high) if dash else first
    if last < first:
        raise _not_a_choice(item, f"write a range from low to high ({last}-{first})")
    return range(first, last + 1)


def _number(item: str, text: str) -> int:
    digits = text.strip(" ")
    if not (digits.isascii() and digits.isdigit()):  # not "", "+1", "1_0", other scripts' digits
        raise _not_a_choice(item, f"write its numbers with the digits 0-9 only; {_HOW}")
    if len(digits.lstrip("0")) > _MAX_DIGITS:
        raise _not_a_choice(item, "no diff has that many hunks or lines")
    if int(digits) == 0:
        raise _not_a_choice(item, "hunks and their changed lines are numbered from 1")
    return int(digits)


_HINT = "'rewind show TURN --path P' numbers them."


def _not_a_choice(item: str, advice: str) -> UserError:
    shown = item if len(item) <= 40 else item[:37] + "..."
    return UserError(f"{shown!r} is not a hunk choice: {advice}; {_HINT}")


def resolve_choice(
    hunks: list[Hunk], choice: Choice, name: str, turn: int | str = "TURN"
) -> Selection:
    """The hunks and lines ``choice`` names in the diff ``hunks`` (of the file ``name``, as
    entry ``turn`` changed it: the hint names it).

    Raises UserError for a hunk or a line the diff does not have. Every number is checked
    before any range is expanded, and overlapping ranges are joined first, so the work is
    bounded by the diff's size and the choice's length, not by the numbers it holds."""
    if isinstance(choice, dict):
        for number, numbers in choice.items():
            _check(hunks, number, name, max(numbers) if numbers else None, turn)
            if numbers is not None and (not numbers or min(numbers) < 1):
                raise UserError(
                    f"choose changed lines of hunk {number} by their numbers, from 1 (or None "
                    "for the whole hunk)."
                )
        return choice
    for chosen, lines in choice:
        _check(hunks, chosen[-1], name, lines[-1] if lines is not None else None, turn)
    whole = _union([chosen for chosen, lines in choice if lines is None])
    selection: Selection = dict.fromkeys(number for chosen in whole for number in chosen)
    by_hunk: dict[int, list[range]] = {}
    for chosen, lines in choice:
        if lines is not None and chosen.start not in selection:
            by_hunk.setdefault(chosen.start, []).append(lines)
    for number, parts in by_hunk.items():
        selection[number] = frozenset(line for part in _union(parts) for line in part)
    return selection


def _check(hunks: list[Hunk], number: int, name: str, line: int | None, turn: int | str) -> None:
    """Refuses hunk ``number`` (and its changed line ``line``) unless the diff has them."""
    if number < 1:
        raise UserError(f"hunks are numbered from 1, not {number}.")
    if number > len(hunks):
        raise UserError(
            f"the diff of {name} has {len(hunks)} hunk(s), not {number}; "
            f"'rewind show {turn} --path {name}' numbers them."
        )
    count = len(hunks[number - 1].removed) + len(hunks[number - 1].added)
    if line is not None and line > count:
        raise UserError(
            f"hunk {number} of {name} has {count} changed line(s), not {line}; "
            f"'rewind show {turn} --path {name}' numbers them."
        )


def _union(parts: list[range]) -> list[range]:
    """The numbers of ``parts`` (ranges of step 1) as disjoint ranges, in order."""
    joined: list[range] = []
    for part in sorted(parts, key=lambda part: part.start):
        if joined and part.start <= joined[-1].stop:
            if part.stop > joined[-1].stop:
                joined[-1] = range(joined[-1].start, part.stop)
        else:
            joined.append(part)
    return joined


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
    return _place(current, after, hunks, selection)[1]


def put_back_hunks(current: bytes, after: bytes, hunks: list[Hunk], selection: Selection) -> bytes:
    """``current`` with the chosen hunks of the diff (which led to ``after``) put back.

    Raises :class:`HunksDoNotApply` (listing every hunk that does not apply) and changes
    nothing unless every chosen hunk applies.
    """
    placed, refused = _place(current, after, hunks, selection)
    if refused:
        numbers = ", ".join(str(refusal.hunk.number) for refusal in refused)
        raise HunksDoNotApply(refused, f"hunk(s) {numbers} no longer apply ({refused[0].reason})")
    now = split_lines(current)
    for start, end, lines in sorted(placed, key=lambda piece: piece[0], reverse=True):
        now[start:end] = lines
    return b"".join(now)


def _place(
    current: bytes, after: bytes, hunks: list[Hunk], selection: Selection
) -> tuple[list[tuple[int, int, list[bytes]]], list[Refusal]]:
    """Where each chosen hunk goes in ``current``'s lines (start, end, the lines put there
    instead), and the hunks that do not apply."""
    where, now_size = _alignment(after, current)
    placed = []
    refused = []
    for number, lines in sorted(selection.items()):
        hunk = hunks[number - 1]
        start, end = hunk.new_start, hunk.new_start + len(hunk.added)
        reason = _why_not(where, start, end, len(where), now_size)
        if reason:
            refused.append(Refusal(hunk, reason))
            continue
        anchor = _mapped(where, start - 1, len(where), now_size)
        assert anchor is not None  # _why_not found it
        begin = anchor + 1
        placed.append((begin, begin + (end - start), hunk.put_back(lines)))
    return placed, refused


def _alignment(after: bytes, current: bytes) -> tuple[list[int | None], int]:
    """For each line of ``after``, where the same unchanged line is in ``current`` (None: gone),
    and how many lines ``current`` has."""
    after_size, now_size = _line_count(after), _line_count(current)
    where: list[int | None] = [None] * after_size
    i = j = 0
    for a, removed, b, added in [*line_hunks(after, current), (after_size, 0, now_size, 0)]:
        where[i:a] = range(j, b)  # the unchanged lines between two hunks
        i, j = a + removed, b + added
    return where, now_size


def _line_count(data: bytes) -> int:
    """How many lines :func:`split_lines` finds in ``data``."""
    return data.count(b"\n") + (not data.endswith(b"\n") and bool(data))


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
