"""Histories recorded in this process, for the unit tier: a project folder, its store, and turns
recorded through the history's own functions (rewind.history.recording.turns), as a hook would
record them, but without starting a program.

The project is a plain folder holding an empty ``.git`` folder (what makes it a project's root
for :func:`rewind.store.root.find_root`); nothing here runs git. Restores, undos and redos go
through the same functions the commands call (plans, then the restore engine).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rewind.history.entry import EDIT, Entry
from rewind.history.lookup import entries_from
from rewind.history.recording.turns import begin, record_after, settled_head, track
from rewind.history.restoring.restore import RestoreResult, apply_plan
from rewind.history.restoring.restore_plan import RestorePlan, plan_redo, plan_restore, plan_undo
from rewind.history.session import SessionHead, load_head
from rewind.history.sessions import read_entries
from rewind.store.repository import Store

SESSION = "s"


def make_project(parent: Path, name: str = "project") -> Path:
    """A folder rewind takes for a project's root (it holds ``.git``), with symlinks resolved."""
    root = parent / name
    (root / ".git").mkdir(parents=True)
    return Path(os.path.realpath(root))


class Turn:
    """The open turn of a :class:`History`: each change is tracked before it is made."""

    def __init__(self, history: History, session: str, source: str = EDIT) -> None:
        self.history = history
        self.session = session
        self.source = source

    def track(self, *names: str) -> None:
        track(self.history.store, self.session, [os.fsencode(n) for n in names], source=self.source)

    def write(self, name: str, content: str | bytes, mode: int | None = None) -> None:
        self.track(name)
        self.history.write(name, content, mode)

    def delete(self, name: str) -> None:
        self.track(name)
        self.history.path(name).unlink()

    def link(self, name: str, target: str) -> None:
        self.track(name)
        path = self.history.path(name)
        if path.is_symlink() or path.exists():
            path.unlink()
        path.symlink_to(target)

    def move(self, source: str, destination: str) -> None:
        """``mv SOURCE DESTINATION`` as the quicksave reads it: both ends, the move announced."""
        store = self.history.store
        names = [os.fsencode(source), os.fsencode(destination)]
        moves = {names[1]: names[0]}
        track(store, self.session, names, source=self.source, moves=moves)
        self.history.path(source).rename(self.history.path(destination))


class History:
    """A project and its store, recorded into in this process."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.store = Store.for_root(os.fsencode(root), create=True)

    def path(self, name: str) -> Path:
        return self.root / name

    def write(self, name: str, content: str | bytes, mode: int | None = None) -> None:
        """Writes a file as a person (or a program) would: nothing is recorded."""
        path = self.path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        if mode is not None:
            path.chmod(mode)

    def read(self, name: str) -> str:
        return self.path(name).read_text()

    @contextmanager
    def turn(
        self, prompt: str = "", session: str = SESSION, agent: str = "tester", source: str = EDIT
    ) -> Iterator[Turn]:
        """A turn from its prompt to its end: its after-states are recorded as it closes."""
        begin(self.store, session, prompt=prompt, agent=agent)
        yield Turn(self, session, source)
        record_after(self.store, session, close=True)

    def turns(self, name: str, *contents: str, session: str = SESSION) -> None:
        """One turn per content, each writing ``name``: turn n leaves it holding contents[n-1]."""
        for number, content in enumerate(contents, 1):
            with self.turn(f"write {number}", session) as turn:
                turn.write(name, content)

    def head(self, session: str = SESSION) -> SessionHead:
        return load_head(self.store, session)

    def entries(self, session: str = SESSION) -> list[Entry]:
        return read_entries(self.store, load_head(self.store, session))

    def restore_plan(
        self, turn: str, session: str = SESSION, only: list[str] | None = None
    ) -> RestorePlan:
        """What ``rewind restore TURN`` would do (the open turn is closed first)."""
        head = settled_head(self.store, session)
        chosen, entries = entries_from(self.store, head, turn)
        paths = [os.fsencode(name) for name in only] if only is not None else None
        return plan_restore(self.store, entries, chosen, paths)

    def restore(
        self, turn: str, session: str = SESSION, force: bool = False, only: list[str] | None = None
    ) -> RestoreResult:
        return apply_plan(self.store, self.restore_plan(turn, session, only), force=force)

    def undo_plan(self, session: str = SESSION) -> RestorePlan:
        return plan_undo(self.store, settled_head(self.store, session))

    def undo(self, session: str = SESSION, force: bool = False) -> RestoreResult:
        return apply_plan(self.store, self.undo_plan(session), force=force)

    def redo_plan(self, session: str = SESSION) -> RestorePlan:
        return plan_redo(self.store, settled_head(self.store, session))

    def redo(self, session: str = SESSION, force: bool = False) -> RestoreResult:
        return apply_plan(self.store, self.redo_plan(session), force=force)
