"""Comparing two points of a session: what a run of entries changed together.

The timeline's ``m`` marks one entry and ``c`` compares it with the selected one: every file the
entries from the earlier to the later (both included) touched, from its state just before the
earlier to its state just after the later (``rewind diff A B+1`` on the command line). The
states come from :func:`rewind.history.checkpoint.states_between`, the diffs from the engine's
:func:`rewind.history.insight.diffs.diff_states`, as everywhere else.
"""

from __future__ import annotations

from rewind.history.checkpoint import states_between
from rewind.history.entry import FileChange
from rewind.history.insight.diffs import FileDiff, diff_states
from rewind.tui.timeline_data import DiffText, FileRow, SessionHistory, diff_text_of, no_diff_note


def span(first: int, second: int) -> tuple[int, int]:
    """The entries compared, as a slice: from the earlier to the later, both included."""
    return min(first, second), max(first, second) + 1


def span_title(history: SessionHistory, start: int, stop: int) -> str:
    first, last = history.entries[start], history.entries[stop - 1]
    return f"from before {first.kind} {first.number} to after {last.kind} {last.number}"


def compared_files(history: SessionHistory, start: int, stop: int) -> list[FileRow]:
    """One row per file touched in ``entries[start:stop]``."""
    rows = []
    for path, (old, new) in states_between(history.entries, start, stop).items():
        diff = FileDiff(path, old, new)
        rows.append(
            FileRow(
                path,
                history.store.root.display(path),
                diff.status,
                history.change_counts(FileChange(path, old, new)),
                no_diff_note(old, new, diff),
            )
        )
    return rows


def compared_diff(history: SessionHistory, start: int, stop: int, path: bytes) -> DiffText:
    """The diff of one file over ``entries[start:stop]``."""
    shown = history.store.root.display(path)
    title = f"{shown}: {span_title(history, start, stop)}"
    states = states_between(history.entries, start, stop).get(path)
    if states is None:
        return DiffText(title, "", "these entries did not touch the file")
    old, new = states
    diff = diff_states(history.store, path, old, new, with_text=True)
    return diff_text_of(title, old, new, diff)
