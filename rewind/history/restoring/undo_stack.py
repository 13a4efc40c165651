"""Where a session stands among its restores: what ``rewind undo`` takes back next, and what
``rewind redo`` puts back, the way an editor steps through its edits.

Every restore, undo and redo is an entry of the session (nothing is ever lost); this module
reads them, oldest first, as two stacks:

- **applied**: the restores in effect, newest last. A restore is pushed; so is a redo (it puts
  one back). ``undo`` reverses the top one: the newest restore, then the one before it, and so
  on back through every restore of the session.
- **undone**: the undos that can be redone, newest last. ``redo`` reverses the top one. New
  work empties it, as a new edit empties an editor's redo list: a new restore, and any entry
  that is not an undo or a redo (a turn, what the watcher recorded between turns).

What is **in effect** is one rule for every reader (``rewind log`` and ``--json``, the TUI, the
MCP server): a restore is in effect while it, or a redo of it, is on the applied stack; a
restore, or an entry that put one back (a redo), whose restore is not in effect is marked
*undone*, for as long as that lasts (new work does not make it in effect again); what ``redo``
would put back is the restore of the top of the undone stack.

Each undo and redo records the entry it reversed (its ``target``). An undo whose target is an
undo (what ``undo`` did before it stepped: undo toggled) re-applied a restore, and counts as a
redo. An entry whose target is not where the stacks say (a damaged or foreign record) changes
nothing; a damaged entry at or after the one to reverse refuses the command (its kind is
unknown: it may be the restore to undo).
"""

from __future__ import annotations

from rewind.history.entry import REDO, RESTORE, UNDO, Entry
from rewind.history.index.queries import EntryIndex
from rewind.history.session import SessionHead
from rewind.store.repository import Store


class UndoStack:
    """The two stacks of a session (see the module's doc)."""

    __slots__ = ("applied", "by_number", "puts_back", "undone")

    def __init__(self, entries: list[Entry], newest: int | None = None) -> None:
        """``entries``: the session's restores, undos and redos, oldest first (numbered as in
        the session: a number skipped is another entry, new work); ``newest``: the number of
        the session's newest entry, whatever its kind."""
        self.applied: list[Entry] = []  # restores and redos in effect
        self.undone: list[Entry] = []  # undos that can be redone
        self.puts_back: list[Entry] = []  # every entry that applied a restore: restores, redos
        self.by_number = {entry.number: entry for entry in entries}
        previous: int | None = None
        for entry in entries:
            if previous is not None and entry.number > previous + 1:
                self.undone.clear()  # other work in between
            previous = entry.number
            reversed_number = _target_number(entry)
            if entry.kind == RESTORE:
                self.applied.append(entry)
                self.puts_back.append(entry)
                self.undone.clear()
            elif entry.kind not in (UNDO, REDO):
                self.undone.clear()  # new work: a turn, what the watcher recorded
            elif entry.kind == UNDO and self.applied and reversed_number == self.applied[-1].number:
                self.undone.append(entry)  # an undo of the newest restore (or redo)
                self.applied.pop()
            elif self.undone and reversed_number == self.undone[-1].number:
                self.applied.append(entry)  # a redo (or an undo of an undo: the same)
                self.puts_back.append(entry)
                self.undone.pop()
        if previous is not None and newest is not None and newest > previous:
            self.undone.clear()  # work since the last undo or redo

    def next_undo(self) -> Entry | None:
        """The restore or redo ``undo`` reverses next."""
        return self.applied[-1] if self.applied else None

    def next_redo(self) -> Entry | None:
        """The undo ``redo`` reverses next."""
        return self.undone[-1] if self.undone else None

    def restore_of(self, entry: Entry) -> Entry:
        """The restore that ``entry`` (a restore, an undo or a redo) undid or put back, through
        the chain of targets; ``entry`` itself for a restore (or a chain that breaks off)."""
        seen = set()
        while entry.kind != RESTORE and entry.number not in seen:
            seen.add(entry.number)
            found = self.by_number.get(_target_number(entry) or 0)
            if found is None:
                break
            entry = found
        return entry

    def undone_restores(self) -> set[int]:
        """The numbers of the restores, and of the redos, whose restore is not in effect now
        (the module's rule: every reader marks them *undone*)."""
        in_effect = {self.restore_of(entry).number for entry in self.applied}
        return {
            entry.number
            for entry in self.puts_back
            if self.restore_of(entry).number not in in_effect
        }


def undo_stack(store: Store, head: SessionHead) -> UndoStack:
    with EntryIndex(store) as index:
        return session_undo_stack(index, head)


def session_undo_stack(index: EntryIndex, head: SessionHead) -> UndoStack:
    """The session's stacks, read through an open index."""
    newest = head.current.number if head.current is not None else None
    return UndoStack(index.restoring_entries(head), newest)


def damaged_from(store: Store, head: SessionHead, number: int) -> list[int]:
    """The damaged entries of the session numbered ``number`` or more."""
    with EntryIndex(store) as index:
        return index.damaged_numbers(head, number)


def _target_number(entry: Entry) -> int | None:
    """The number of the entry an undo or redo reversed (None for a restore, or a record
    without one)."""
    if entry.kind == RESTORE or entry.target is None:
        return None
    number = entry.target.get("number")
    return number if isinstance(number, int) and not isinstance(number, bool) else None
