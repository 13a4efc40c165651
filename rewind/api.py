"""The Python API: start turns, and change files through rewind so their state is kept first.

    import rewind

    project = rewind.Project("path/to/repo", agent="my-agent")
    with project.turn("Rename the parser") as turn:
        turn.edit("src/parse.py", "def parse(", "def parse_document(")
        turn.write_text("src/new.py", "print('hi')\\n")
        turn.delete("old.txt")
        turn.run(["python3", "codegen.py"])  # what the program changes is recorded too
    project.restore(1)   # every file back as it was before turn 1
    project.undo()       # and back again
    project.restore_version("old.txt", project.log()[0].id + "^")  # one file, one version
    project.restore_hunks(1, "src/parse.py", "1")  # hunk 1 of turn 1's edit of it, only

Every method that changes a file records the file's current state in the open turn first, then
replaces it atomically; :meth:`Turn.run` runs a program as an agent's shell call, whose changes
the project's watcher records in the turn (``capture_programs``, as for the agents' hooks).
Errors a caller can fix raise :class:`rewind.errors.UserError`.
"""

from __future__ import annotations

import os
import stat
import subprocess
import warnings
from collections.abc import Sequence
from typing import Any

from rewind.actions.changes import (
    PERSON,
    REDO_STEP,
    UNDO_STEP,
    Hunk,
    Outcome,
    PartialPlan,
    PartialRefused,
    Policy,
    RestorePlan,
    Selection,
    VersionPlan,
    carry_out,
    hunks_of,
    open_project,
    parse_hunks,
    plan_hunks,
    plan_step,
    plan_turn,
    plan_version,
    turn_of,
)
from rewind.errors import ConflictError, UserError
from rewind.history.entry import Entry
from rewind.history.filestate import FileState
from rewind.history.lookup import newest
from rewind.history.recording.turns import (
    NOT_TRACKABLE,
    TRACK_PROBLEMS,
    begin,
    record_after,
    track,
)
from rewind.history.session import load_head, new_session_id
from rewind.store.atomic import replace_file
from rewind.store.failure_log import log_hook_problem
from rewind.store.root import find_root
from rewind.watch import capture

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType

PathLike = str | bytes | os.PathLike[str] | os.PathLike[bytes]


class RewindWarning(UserWarning):
    """A file was recorded without its content, so a restore cannot bring it back."""


class Project:
    """A project's history. ``root`` defaults to the git work tree holding the current directory.

    ``session`` names the session to record into; a new one is made when it is not given.
    """

    def __init__(
        self, root: PathLike | None = None, session: str | None = None, agent: str = "python"
    ) -> None:
        start = os.fsencode(root) if root is not None else os.getcwdb()
        self.store = open_project(find_root(start), create=True)
        self.session = session or new_session_id()
        self.agent = agent

    @property
    def root(self) -> str:
        return os.fsdecode(self.store.root.path)

    def turn(self, prompt: str = "", labels: list[str] | None = None) -> Turn:
        """Starts a turn; use it as a context manager so that it is ended on exit."""
        entry = begin(self.store, self.session, prompt=prompt, agent=self.agent, labels=labels)
        return Turn(self, entry)

    def track(self, *paths: PathLike) -> dict[str, FileState]:
        """Records paths as they are now, before the caller changes them (first record wins).

        Returns each path's state now: the one recorded, unless the turn recorded the path
        earlier (the first record in a turn is kept). A file recorded without its content (too
        large, unreadable) gives a :class:`RewindWarning`; a directory or special file is not
        recorded and raises :class:`UserError` once the other paths are recorded.
        """
        names = [self._name(path) for path in paths]
        states = track(self.store, self.session, names, agent=self.agent)
        refused = []
        for name, state in states.items():
            problem = TRACK_PROBLEMS.get(state.kind)
            if problem is None:
                continue
            message = f"{self.store.root.display(name)} {problem}."
            if state.kind in NOT_TRACKABLE:
                refused.append(message)
            else:
                warnings.warn(message, RewindWarning, stacklevel=2)
        if refused:
            raise UserError(" ".join(refused))
        return {self.store.root.display(name): state for name, state in states.items()}

    def end(self) -> None:
        record_after(self.store, self.session, close=True)

    def log(self) -> list[Entry]:
        """Every entry of the session, oldest first."""
        return newest(self.store, load_head(self.store, self.session), None)

    def plan_restore(self, turn: int | str, paths: list[PathLike] | None = None) -> RestorePlan:
        only = [self._name(path) for path in paths] if paths else None
        return plan_turn(self.store, self.session, str(turn), only)

    def restore(
        self, turn: int | str, paths: list[PathLike] | None = None, force: bool = False
    ) -> Outcome:
        """Puts every file touched since ``turn`` began back as it was before it.

        Raises :class:`ConflictError`, changing nothing, when a file changed outside rewind since
        it last recorded it, unless ``force`` (the current content is then saved for :meth:`undo`).
        """
        return carry_out(self.store, self.plan_restore(turn, paths), Policy(force=force))

    def plan_version(self, path: PathLike, version: str) -> VersionPlan:
        """What :meth:`restore_version` would do, without writing any file."""
        return plan_version(self.store, self.session, self._name(path), version)

    def restore_version(self, path: PathLike, version: str, force: bool = False) -> Outcome:
        """Brings ``path`` back to one version, recorded as a restore of this session.

        ``version`` is ``"ID"`` (the file as entry ID left it) or ``"ID^"`` (as it was just
        before entry ID touched it); ID is an entry's id, or a unique prefix of it, from any
        session of the project. Raises :class:`ConflictError`, changing nothing, when the file
        is not what rewind last recorded of it, unless ``force``.
        """
        return carry_out(self.store, self.plan_version(path, version), Policy(force=force))

    def hunks(self, turn: int | str, path: PathLike) -> list[Hunk]:
        """The numbered hunks of what ``turn`` did to the text file ``path``."""
        entry = turn_of(self.store, self.session, str(turn))
        return hunks_of(self.store, entry, self._name(path)).hunks

    def plan_hunks(self, turn: int | str, path: PathLike, hunks: str | Selection) -> PartialPlan:
        """What :meth:`restore_hunks` would do, without writing any file."""
        choice = parse_hunks(hunks, turn, os.fsdecode(path)) if isinstance(hunks, str) else hunks
        return plan_hunks(self.store, self.session, str(turn), {self._name(path): choice})

    def restore_hunks(self, turn: int | str, path: PathLike, hunks: str | Selection) -> Outcome:
        """Puts back some hunks (or lines) of what ``turn`` did to ``path``, into the file as
        it is now: later edits elsewhere in it stay. ``hunks`` is written as ``--hunks`` takes
        it (``"1,3"``, ``"2:1-3"``) or a {hunk number: None for all of it, or a set of its
        changed lines' numbers} dict. Raises :class:`PartialRefused` (a ConflictError), writing
        nothing, when a chosen hunk no longer applies, and ConflictError when the file changed
        while the merge was computed."""
        return carry_out(self.store, self.plan_hunks(turn, path, hunks), PERSON)

    def undo(self, force: bool = False) -> Outcome:
        """Takes back the session's newest restore still in effect, exactly; each undo steps
        back one restore further (:meth:`redo` puts them back)."""
        plan = plan_step(self.store, self.session, UNDO_STEP)
        return carry_out(self.store, plan, Policy(force=force))

    def redo(self, force: bool = False) -> Outcome:
        """Puts back the restore the newest :meth:`undo` took back (none made since)."""
        plan = plan_step(self.store, self.session, REDO_STEP)
        return carry_out(self.store, plan, Policy(force=force))

    def _name(self, path: PathLike) -> bytes:
        raw = os.fsencode(path)
        if not os.path.isabs(raw):
            raw = os.path.join(self.store.root.path, raw)
        return self.store.root.stored_name(raw)


class Turn:
    """An open turn. Paths are relative to the project root, or absolute inside it."""

    def __init__(self, project: Project, entry: Entry) -> None:
        self.project = project
        self.number = entry.number
        self.id = entry.id

    def __enter__(self) -> Turn:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.end()

    def end(self) -> None:
        self.project.end()

    def track(self, *paths: PathLike) -> dict[str, FileState]:
        return self.project.track(*paths)

    def run(
        self, command: Sequence[str] | str, *, check: bool = True, **options: Any
    ) -> subprocess.CompletedProcess[Any]:
        """Runs ``command`` in the project root (``subprocess.run``'s ``options``; a string is
        run by the shell) as an agent's shell call: the project's watcher is told when it
        begins and, once it ends, records every change it made in this turn, as the program's
        (rewind.watch.capture). Without capture (``capture_programs = false``, or not Linux)
        the program simply runs, and what it changes is not recorded."""
        store = self.project.store
        session = self.project.session

        def log(message: str) -> None:
            log_hook_problem(f"api {self.project.agent}: {message}", store.state_path("rewind.log"))

        call = f"api-{os.getpid()}-{id(command)}"
        capture.shell_begins(store, session, call, self.project.agent, log)
        try:
            options.setdefault("cwd", self.project.root)
            return subprocess.run(command, shell=isinstance(command, str), check=check, **options)
        finally:
            capture.shell_ends(store, session, call, log)

    def write_bytes(self, path: PathLike, data: bytes) -> None:
        absolute = self._before_change(path)
        os.makedirs(os.path.dirname(absolute), exist_ok=True)
        replace_file(absolute, data, _mode_for(absolute))

    def write_text(self, path: PathLike, text: str, encoding: str = "utf-8") -> None:
        self.write_bytes(path, text.encode(encoding))

    def edit(
        self, path: PathLike, old: str, new: str, replace_all: bool = False, encoding: str = "utf-8"
    ) -> None:
        """Replaces ``old`` by ``new``; ``old`` must occur exactly once unless ``replace_all``."""
        absolute = self._absolute(path)
        try:
            with open(absolute, encoding=encoding, newline="") as handle:
                text = handle.read()
        except FileNotFoundError:
            raise UserError(
                f"{os.fsdecode(path)} does not exist; use write_text to create it."
            ) from None
        count = text.count(old) if old else 0
        if count == 0 or (count > 1 and not replace_all):
            found = "not found" if count == 0 else f"found {count} times"
            raise UserError(
                f"the text to replace was {found} in {os.fsdecode(path)}; "
                "give a longer unique snippet, or pass replace_all=True."
            )
        self.write_text(
            path, text.replace(old, new) if replace_all else text.replace(old, new, 1), encoding
        )

    def delete(self, path: PathLike) -> None:
        absolute = self._existing_file(path, "delete")
        self.project.track(path)
        os.unlink(absolute)

    def rename(self, source: PathLike, destination: PathLike) -> None:
        """Moves a file; both ends are recorded, so a restore puts both back."""
        self._existing_file(source, "rename")
        self.project.track(source, destination)
        target = self._absolute(destination)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(self._absolute(source), target)

    def _absolute(self, path: PathLike) -> bytes:
        """Where to write ``path``: checked at write time, so that a parent directory swapped
        for a symlink to elsewhere is refused, never written through."""
        store = self.project.store
        return store.root.writable_path(self.project._name(path))

    def _existing_file(self, path: PathLike, verb: str) -> bytes:
        absolute = self._absolute(path)
        if os.path.isdir(absolute) and not os.path.islink(absolute):
            raise UserError(f"{os.fsdecode(path)} is a directory; {verb} the files in it.")
        if not os.path.lexists(absolute):
            raise UserError(f"{os.fsdecode(path)} does not exist; there is nothing to {verb}.")
        return absolute

    def _before_change(self, path: PathLike) -> bytes:
        self.project.track(path)
        return self._absolute(path)


def _mode_for(path: bytes) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


__all__ = ["ConflictError", "PartialRefused", "Project", "RewindWarning", "Turn", "UserError"]
