"""Where a session stands among its restores: what ``rewind undo`` takes back next, and what
``rewind redo`` puts back, the way an editor steps through its edits.

Every restore, undo and redo is an entry of the session (nothing is ever lost); this module
reads them, oldest first, as two stacks:

- **applied**: the restores in effect, newest last. A restore is pushed; so is a redo (it puts
  one back). ``undo`` reverses the top one: the newest restore, then the one before it, and so
  on back through every restore of the session.
- **undone**: the undos that can be redone, newest last. ``redo`` reverses the top one. A new
  restore empties it, as a new edit empties an editor's redo list.

Each undo and redo records the entry it reversed (its ``target``). An undo whose target is an
undo (what ``undo`` did before it stepped: undo toggled) re-applied a restore, and counts as a
redo. An entry whose target is not where the stacks say (a damaged or foreign record) changes
nothing; a damaged entry at or after the one to reverse refuses the command (its kind is
unknown: it may be the restore to undo).
"""

from __future__ import annotations

from rewind.history.entry import RESTORE, UNDO, Entry
from rewind.history.index.queries import EntryIndex
from rewind.history.session import SessionHead
from rewind.store.repository import Store


class UndoStack:
    """The two stacks of a session (see the module's doc)."""

    __slots__ = ("applied", "by_number", "undone")

    def __init__(self, entries: list[Entry]) -> None:
        self.applied: list[Entry] = []  # restores and redos in effect
        self.undone: list[Entry] = []  # undos that can be redone
        self.by_number = {entry.number: entry for entry in entries}
        for entry in entries:
            reversed_number = _target_number(entry)
            if entry.kind == RESTORE:
                self.applied.append(entry)
                self.undone.clear()
            elif entry.kind == UNDO and self.applied and reversed_number == self.applied[-1].number:
                self.undone.append(entry)  # an undo of the newest restore (or redo)
                self.applied.pop()
            elif self.undone and reversed_number == self.undone[-1].number:
                self.applied.append(entry)  # a redo (or an undo of an undo: the same)
                self.undone.pop()

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
        """The numbers of the restores and redos whose effect is undone now (``rewind log``
        marks them)."""
        return {
            number
            for undo in self.undone
            if (number := _target_number(undo)) is not None and number in self.by_number
        }


def undo_stack(store: Store, head: SessionHead) -> UndoStack:
    with EntryIndex(store) as index:
        return UndoStack(index.restoring_entries(head))


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
