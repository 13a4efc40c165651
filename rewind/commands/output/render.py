"""Text for people: times, colours, file summaries and restore plans."""

from __future__ import annotations

import os
import sys
import time

from rewind.actions.changes import (
    CANNOT,
    DELETE,
    RECREATE,
    RESTORE_FILE,
    PlannedFile,
    RestorePlan,
)
from rewind.history.entry import EDIT, EXTERNAL, PROGRAM, SHELL
from rewind.history.insight.diffs import (
    ADDED,
    DELETED,
    MODE,
    MODIFIED,
    NO_PRE_IMAGE,
    NOT_SHARED_DIFF,
    PENDING,
    FileDiff,
)
from rewind.store.repository import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

_CODES = {"red": "31", "green": "32", "yellow": "33", "cyan": "36", "bold": "1", "dim": "2"}
STATUS_LETTER = {
    ADDED: "A",
    DELETED: "D",
    MODIFIED: "M",
    MODE: "T",
    PENDING: "~",
    NO_PRE_IMAGE: "?",
}


def use_colour(stream: TextIO = sys.stdout) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    return stream.isatty() and os.environ.get("TERM") != "dumb"


def paint(text: str, colour: str, enabled: bool) -> str:
    return f"\033[{_CODES[colour]}m{text}\033[0m" if enabled else text


PROMPT_WIDTH = 72  # a prompt's first line in log and show


def local_time(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))


SOURCE_NOTES = {SHELL: "(shell quicksave)", EXTERNAL: "(external)", PROGRAM: "(program)"}


def file_summary(
    store: Store, diff: FileDiff, source: str = EDIT, renamed_from: bytes | None = None
) -> str:
    """One file's line of ``rewind log``: its letter, name, +/- and how rewind learnt of it;
    ``renamed_from``: a rename, ``R OLD -> NEW``, ``diff`` taken from the old name's content."""
    if renamed_from is not None:
        counts = "binary" if diff.binary else f"+{diff.added} -{diff.removed}"
        names = f"{store.root.display(renamed_from)} -> {store.root.display(diff.path)}"
        return f"R {names}  {counts}  {SOURCE_NOTES.get(source, '')}".rstrip()
    letter = STATUS_LETTER.get(diff.status, " ")
    counts = ""
    if diff.binary:
        counts = "binary"
    elif diff.status in (ADDED, DELETED, MODIFIED):
        counts = f"+{diff.added} -{diff.removed}"
    elif diff.status == NO_PRE_IMAGE:
        counts = "no pre-image: not rewindable"
    elif diff.status == PENDING:
        counts = "tracked (turn still open)"
    elif diff.status == NOT_SHARED_DIFF:
        counts = "content not shared (private on the machine that recorded it)"
    note = SOURCE_NOTES.get(source, "")
    return f"{letter} {store.root.display(diff.path)}  {counts}  {note}".rstrip()


def colour_diff(text: str, enabled: bool) -> str:
    if not enabled:
        return text
    lines = []
    for line in text.splitlines():
        if line.startswith(("+++", "---", "diff ", "old mode", "new mode", "index ")):
            lines.append(paint(line, "bold", True))
        elif line.startswith("+"):
            lines.append(paint(line, "green", True))
        elif line.startswith("-"):
            lines.append(paint(line, "red", True))
        elif line.startswith("@@"):
            lines.append(paint(line, "cyan", True))
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


_ACTION_WORDS = {
    RESTORE_FILE: "restore ",
    DELETE: "delete  ",
    RECREATE: "recreate",
    CANNOT: "skip    ",
}


# On a terminal, a plan longer than this is summarised (--list shows every file).
PLAN_LINES_SHOWN = 20


def plan_text(store: Store, plan: RestorePlan, colour: bool, full: bool = True) -> str:
    """The plan, one line per file; unless ``full``, a long plan as counts per action, then
    the files that need attention (conflicts, skipped) and the first of the others."""
    lines = [f"{plan.title()}:"]
    listed = [planned for planned in plan.files if planned.action in _ACTION_WORDS]
    if not full and len(listed) > PLAN_LINES_SHOWN:
        lines.append("  " + _counts(listed))
        noted = [p for p in listed if p.conflict or p.action == CANNOT]
        others = [p for p in listed if not (p.conflict or p.action == CANNOT)]
        room = max(PLAN_LINES_SHOWN - len(noted[:PLAN_LINES_SHOWN]), 5)
        shown = noted[:PLAN_LINES_SHOWN] + others[:room]
        listed_lines = [_plan_line(store, planned, colour) for planned in shown]
        lines += listed_lines
        hidden = len(listed) - len(shown)
        if hidden:
            lines.append(f"  ... and {hidden} more file(s); --list shows them all.")
    else:
        lines += [_plan_line(store, planned, colour) for planned in listed]
    if not plan.files:
        lines.append("  nothing to change: no turn from there on touched a file.")
    elif not plan.changes and not plan.blocked:
        lines.append("  nothing to change: every file is already as it was.")
    elif not plan.changes:
        lines.append("  nothing can be changed: every file left is skipped (see above).")
    return "\n".join(lines)


def _plan_line(store: Store, planned: PlannedFile, colour: bool) -> str:
    line = f"  {_ACTION_WORDS[planned.action]}  {store.root.display(planned.path)}"
    reason = planned.reason()
    if reason:
        line += f"  ({reason})"
    if planned.conflict or planned.action == CANNOT:
        line = paint(line, "yellow", colour)
    return line


def _counts(listed: list[PlannedFile]) -> str:
    """``1000 file(s): 990 to restore, 10 to delete; 3 changed outside rewind``."""
    by_action: dict[str, int] = {}
    for planned in listed:
        word = _ACTION_WORDS[planned.action].strip()
        by_action[word] = by_action.get(word, 0) + 1
    conflicts = sum(1 for planned in listed if planned.conflict and planned.action != CANNOT)
    text = f"{len(listed)} file(s): " + ", ".join(
        f"{count} to {word}" if word != "skip" else f"{count} skipped"
        for word, count in by_action.items()
    )
    return text + (f"; {conflicts} changed outside rewind" if conflicts else "")
