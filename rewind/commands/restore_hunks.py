"""``rewind restore TURN --path P --hunks 1,2:1-3`` and ``--patch``: putting back some hunks, or
some lines, of what a turn did to files (rewind.history.restoring.partial), as one restore entry."""

from __future__ import annotations

import sys
from collections.abc import Mapping

from rewind.actions.changes import (
    Choice,
    PartialPlan,
    PartialRefused,
    Selection,
    hunks_of,
    parse_hunks,
    plan_hunks,
    still_apply,
    turn_of,
)
from rewind.commands.output.hunk_text import hunk_text
from rewind.commands.output.render import use_colour
from rewind.history.entry import Entry
from rewind.store.repository import Store

HELP = """\
y - put back this hunk
n - do not put back this hunk
q - quit; do not put back this hunk or any of the remaining ones
a - put back this hunk and all later hunks in the file
d - do not put back this hunk or any of the later hunks in the file
? - print help"""


def partial_plan(
    store: Store, session: str | None, turn: str, paths: list[bytes], hunks: list[str] | None
) -> PartialPlan | None:
    """The plan for ``--hunks`` (the hunks given, of the one path) or ``--patch`` (the hunks
    chosen by answering for each, file by file); None when no hunk was chosen. Hunks that no
    longer apply are shown, then PartialRefused is raised."""
    entry = turn_of(store, session, turn)
    chosen: Mapping[bytes, Choice]
    if hunks:
        shown = store.root.display(paths[0])
        chosen = {
            paths[0]: [item for text in hunks for item in parse_hunks(text, entry.number, shown)]
        }
    else:
        chosen = _ask(store, entry, paths)
        if not chosen:
            return None
    try:
        return plan_hunks(store, session, entry.id, dict(chosen))
    except PartialRefused as refused:
        colour = use_colour()
        for path, refusal in refused.refused:
            count = len(hunks_of(store, entry, path).hunks)
            print(hunk_text(refusal.hunk, count, store.root.display(path), colour))
            print(f"  (no longer applies: {refusal.reason})")
        raise


def _ask(store: Store, entry: Entry, paths: list[bytes]) -> dict[bytes, Selection]:
    """Shows each hunk of each file and asks whether to put it back, like ``git checkout -p``;
    the answers come from standard input (end of input means q)."""
    colour = use_colour()
    chosen: dict[bytes, Selection] = {}
    for path in paths:
        found = hunks_of(store, entry, path)
        blocked = still_apply(store, found)
        name = store.root.display(path)
        selection: Selection = {}
        rest: bool | None = None  # a / d: the answer for the file's later hunks
        for hunk in found.hunks:
            print(hunk_text(hunk, len(found.hunks), name, colour))
            if hunk.number in blocked:
                print(f"  (no longer applies: {blocked[hunk.number]}; left out)")
                continue
            answer = "y" if rest is True else "n" if rest is False else _answer()
            if answer == "q":
                if selection:
                    chosen[path] = selection
                return chosen
            if answer in ("a", "d"):
                rest = answer == "a"
            if answer in ("y", "a"):
                selection[hunk.number] = None
        if selection:
            chosen[path] = selection
    return chosen


def _answer() -> str:
    while True:
        try:
            answer = input("Put back this hunk [y,n,q,a,d,?]? ").strip().lower()
        except EOFError:
            print()
            return "q"
        if not sys.stdin.isatty():
            print(answer)  # a terminal echoes it; answers read from a pipe are shown too
        if answer in ("y", "n", "q", "a", "d"):
            return answer
        print(HELP)
        sys.stdout.flush()
