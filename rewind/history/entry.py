"""One entry of a session's history: a turn, a restore or an undo, and the files it touched.

An entry is stored as ``turn.json`` in the tree of its commit; this module is its only reader
and writer. Paths are bytes (file names need not be UTF-8) and travel through JSON as
``os.fsdecode`` strings, which round-trip exactly.
"""

from __future__ import annotations

import os

from rewind.history.bounds import INT64_MAX, INT64_MIN, MAX_COUNT, integer, seconds
from rewind.history.filestate import FileState
from rewind.store.fastjson import load_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

FORMAT = 1
TURN = "turn"
RESTORE = "restore"
UNDO = "undo"
REDO = "redo"
# The entries that put files back (rewind.history.restoring.undo_stack steps through them).
RESTORING = (RESTORE, UNDO, REDO)
# The kind of the stand-in rewind.history.sessions gives for an entry whose turn.json cannot be
# read.
DAMAGED = "damaged"

# How rewind learnt that a file was about to change (FileChange.source).
EDIT = "edit"  # an agent's edit tool, the API or 'rewind track' (the default)
SHELL = "shell"  # the shell quicksave: a command the agent ran was read before it ran
EXTERNAL = "external"  # watch mode: changed outside the tracked tools
PROGRAM = "program"  # the watcher: changed by a program the agent's shell call ran
SOURCES = (EDIT, SHELL, EXTERNAL, PROGRAM)
# The agent of the turns watch mode opens when no turn is open (rewind.watch.recorder).
WATCH_AGENT = "watch"
# The prompt of the entry 'rewind begin' makes of files changed outside rewind
# (rewind.history.recording.drift).
DRIFT_PROMPT = "changed outside rewind since it last recorded them"


class FileChange:
    """A path touched by an entry: its state before the first touch and after the last one."""

    __slots__ = ("after", "at", "before", "moved_from", "path", "source")

    def __init__(
        self,
        path: bytes,
        before: FileState | None,
        after: FileState | None,
        at: float = 0.0,
        source: str = EDIT,
        moved_from: bytes | None = None,
    ) -> None:
        self.path = path
        self.before = before
        self.after = after
        self.at = at  # when the before-state was taken (seconds since the epoch)
        self.source = source  # EDIT, SHELL, EXTERNAL or PROGRAM: who recorded the before-state
        # The path this one was to be moved from (``mv A B`` read by the quicksave, a patch's
        # "Move to"), as announced before the change: a reader checks that the entry left that
        # path absent before it follows the move (rewind.history.insight.file_history).
        self.moved_from = moved_from

    @property
    def latest(self) -> FileState | None:
        return self.after if self.after is not None else self.before

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "path": os.fsdecode(self.path),
            "before": self.before.to_json() if self.before else None,
            "after": self.after.to_json() if self.after else None,
            "at": self.at,
        }
        if self.source != EDIT:  # older entries have no source: they were all edits
            data["source"] = self.source
        if self.moved_from is not None:  # only moves have it: older entries have none
            data["moved_from"] = os.fsdecode(self.moved_from)
        return data

    @classmethod
    def from_json(cls, data: object) -> FileChange:
        """A ValueError unless ``data`` has the shape to_json gives (a path, states or null)."""
        if not isinstance(data, dict) or not isinstance(data.get("path"), str):
            raise ValueError("a files entry is not an object with a path")
        before, after = data.get("before"), data.get("after")
        if not all(state is None or isinstance(state, dict) for state in (before, after)):
            raise ValueError(f"the states of {data['path']!r} are not objects")
        source = data.get("source")
        moved_from = data.get("moved_from")
        return cls(
            os.fsencode(data["path"]),
            FileState.from_json(before) if isinstance(before, dict) else None,
            FileState.from_json(after) if isinstance(after, dict) else None,
            seconds(data, "at") or 0.0,
            source if isinstance(source, str) and source in SOURCES else EDIT,
            os.fsencode(moved_from) if isinstance(moved_from, str) and moved_from else None,
        )


class Entry:
    """A turn (one prompt), or a restore or undo, as recorded in a session."""

    __slots__ = (
        "agent",
        "conversation",
        "ended",
        "files",
        "id",
        "journal",
        "kind",
        "labels",
        "number",
        "prompt",
        "session",
        "started",
        "target",
        "unrecorded",
    )

    def __init__(
        self,
        session: str,
        number: int,
        entry_id: str,
        kind: str = TURN,
        prompt: str = "",
        agent: str = "",
        started: float = 0.0,
        ended: float | None = None,
        labels: list[str] | None = None,
        target: dict[str, object] | None = None,
        files: list[FileChange] | None = None,
        unrecorded: list[Unrecorded] | None = None,
        journal: dict[str, object] | None = None,
        conversation: dict[str, object] | None = None,
    ) -> None:
        self.session = session
        self.number = number
        self.id = entry_id
        self.kind = kind
        self.prompt = valid_text(prompt)
        self.agent = valid_text(agent)
        self.started = started
        self.ended = ended
        self.labels = [valid_text(label) for label in labels] if labels else []
        self.target = target
        self.files = files or []
        # Storms watch mode saw but did not record file by file (rewind.watch.bursts): each
        # {"at": seconds, "files": count, "directories": {top-level directory: count}}.
        self.unrecorded = unrecorded or []
        # How much of the open turn's journal this entry has absorbed (rewind.history.journal):
        # {"id": the journal's id, "lines": how many of its lines, "spooled": the names of the
        # spool files it took in, if any}.
        self.journal = journal
        # Where the agent's own conversation stood just before the turn's prompt, for resuming
        # it from there (rewind.history.conversation.cut_point): only a turn of an agent with a
        # transcript has it.
        self.conversation = conversation

    def __repr__(self) -> str:
        return f"Entry({self.session!r}, {self.number}, {self.kind}, files={len(self.files)})"

    @property
    def is_damaged(self) -> bool:
        return self.kind == DAMAGED

    @property
    def is_open(self) -> bool:
        return self.kind == TURN and self.ended is None

    @property
    def is_outside_agent(self) -> bool:
        """Whether the entry holds changes made outside any agent's turn: those 'rewind begin'
        found, or those watch mode saw while no agent's turn was open."""
        return self.kind == TURN and (self.agent == WATCH_AGENT or self.prompt == DRIFT_PROMPT)

    def file(self, path: bytes) -> FileChange | None:
        for change in self.files:
            if change.path == path:
                return change
        return None

    def paths(self) -> Iterator[bytes]:
        return (change.path for change in self.files)

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "format": FORMAT,
            "session": self.session,
            "number": self.number,
            "id": self.id,
            "kind": self.kind,
            "prompt": self.prompt,
            "agent": self.agent,
            "started": self.started,
            "ended": self.ended,
            "labels": self.labels,
            "target": self.target,
            "files": [change.to_json() for change in self.files],
        }
        if self.unrecorded:  # only watch mode writes it: older entries have none
            data["unrecorded"] = [storm.to_json() for storm in self.unrecorded]
        if self.journal:  # only entries folded from a journal have it
            data["journal"] = self.journal
        if self.conversation:  # only turns of an agent with a transcript have it
            data["conversation"] = self.conversation
        return data

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Entry:
        """The entry ``data`` holds; a ValueError when its shape is wrong or one of its numbers
        is out of range (rewind.history.bounds): the whole entry is then damaged."""
        files = data.get("files")
        labels = data.get("labels")
        target = data.get("target")
        unrecorded = data.get("unrecorded")
        journal = data.get("journal")
        conversation = data.get("conversation")
        if data.get("number") is None:
            raise ValueError("it has no number")
        return cls(
            str(data.get("session", "")),
            integer(data, "number", 1, MAX_COUNT),
            str(data.get("id", "")),
            kind=str(data.get("kind", TURN)),
            prompt=str(data.get("prompt") or ""),
            agent=str(data.get("agent") or ""),
            started=seconds(data, "started") or 0.0,
            ended=seconds(data, "ended"),
            labels=[str(label) for label in labels] if isinstance(labels, list) else [],
            target=_checked(target, _TARGET_COUNTS) if isinstance(target, dict) else None,
            files=_files_from_json(files),
            unrecorded=[Unrecorded.from_json(item) for item in unrecorded if isinstance(item, dict)]
            if isinstance(unrecorded, list)
            else None,
            journal=_checked(journal, _JOURNAL_COUNTS) if isinstance(journal, dict) else None,
            # Read by its own module, which passes over one of the wrong shape: a resume is
            # then refused, while the entry and its files stay readable.
            conversation=conversation if isinstance(conversation, dict) else None,
        )

    def absorbed_lines(self, journal_id: str) -> int:
        """How many lines of the journal ``journal_id`` this entry holds already."""
        if not self.journal or self.journal.get("id") != journal_id:
            return 0
        lines = self.journal.get("lines")
        return lines if isinstance(lines, int) else 0

    def absorbed_spool_files(self) -> frozenset[str]:
        """The names of the spool files this entry took in (they are never applied again)."""
        names = self.journal.get("spooled") if self.journal else None
        if not isinstance(names, list):
            return frozenset()
        return frozenset(name for name in names if isinstance(name, str))

    def commit_message(self) -> str:
        line = first_line(self.prompt)
        title = f"{self.kind} {self.number}" + (f": {line}" if line else "")
        return valid_text(f"{title}\n\nsession: {self.session}\nentry: {self.id}\n")


def _files_from_json(files: object) -> list[FileChange]:
    """The files of an entry: dropping one that cannot be read would hide what it changed."""
    if files is None:
        return []
    if not isinstance(files, list):
        raise ValueError("its files are not a list")
    return [FileChange.from_json(item) for item in files]


# The counts a target (what a restore went back to) and a journal mark hold, and their ranges.
_TARGET_COUNTS = {"number": (INT64_MIN, INT64_MAX)}  # a damaged entry's stand-in can be 0
_JOURNAL_COUNTS = {"lines": (0, MAX_COUNT)}


def _checked(data: dict[str, object], counts: dict[str, tuple[int, int]]) -> dict[str, object]:
    """``data``, once each of its ``counts`` is a whole number in its range (or absent)."""
    for key, (low, high) in counts.items():
        integer(data, key, low, high)
    return data


class Unrecorded:
    """What watch mode counted but did not record in a storm of changes (rewind.watch.bursts):
    when it began, how many files, the limit it passed (``watch_storm_files``), and how many of
    them in each top-level folder (most first). None: a record that does not say. (A plain
    class: the hook path reads entries and loads no dataclasses.)"""

    __slots__ = ("at", "cap", "directories", "files")

    def __init__(
        self,
        at: float | None,
        files: int | None,
        cap: int | None,
        directories: dict[str, int] | None = None,
    ) -> None:
        self.at = at
        self.files = files
        self.cap = cap
        self.directories = directories or {}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unrecorded) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"Unrecorded({self.to_json()!r})"

    def to_json(self) -> dict[str, object]:
        return {
            "at": self.at,
            "files": self.files,
            "cap": self.cap,
            "directories": self.directories,
        }

    @classmethod
    def from_json(cls, item: dict[str, object]) -> Unrecorded:
        """A ValueError when one of its numbers is not what it must be: the entry is then
        damaged, as for any of its numbers."""
        directories = item.get("directories")
        counted = {
            str(name): integer({"directories": count}, "directories", 0, MAX_COUNT)
            for name, count in (directories.items() if isinstance(directories, dict) else ())
        }
        return cls(
            seconds(item, "at"),
            integer(item, "files", 0, MAX_COUNT) if item.get("files") is not None else None,
            integer(item, "cap", 0, MAX_COUNT) if item.get("cap") is not None else None,
            counted,
        )

    def describe(self) -> str:
        """One line for people (``rewind log``, the store's log)."""
        where = ""
        if self.directories:
            shown = list(self.directories.items())[:5]
            where = ": " + ", ".join(f"{name} {count:,}" for name, count in shown)
            if len(self.directories) > 5:
                where += f" and {len(self.directories) - 5} more"
        count = f"{self.files:,}" if self.files is not None else "?"
        limit = f" (watch_storm_files is {self.cap})" if self.cap is not None else ""
        return f"+ {count} more files changed outside the agent, not recorded{limit}{where}"


def entry_from_record(record: bytes) -> Entry:
    """The entry a turn.json holds; a ValueError that says what is wrong with it otherwise."""
    try:
        data = load_object(record.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("its turn.json is not UTF-8 text") from None
    except ValueError as error:
        raise ValueError(f"its turn.json is not a JSON object ({error})") from None
    try:
        return Entry.from_json(data)
    except ValueError as error:
        raise ValueError(f"its turn.json has the wrong shape: {error}") from None
    except (KeyError, TypeError, AttributeError, OverflowError) as error:
        raise ValueError(f"its turn.json has the wrong shape ({error!r})") from None


def damaged_entry(session: str, commit: str, reason: str) -> Entry:
    """The stand-in for an entry that cannot be read: no files, its number still unknown (0)."""
    return Entry(session, 0, commit[:12], DAMAGED, prompt=f"damaged entry: {reason}")


def valid_text(text: str) -> str:
    """``text`` as it can be stored: characters that are not Unicode (bytes that were not
    UTF-8 in a command's arguments, a lone surrogate in an agent's JSON) become U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


def first_line(text: str, width: int | None = None) -> str:
    """The first line of ``text`` (a prompt), stripped; cut to ``width`` characters, the last
    one ``…``, when it is longer."""
    stripped = text.strip()
    line = stripped.splitlines()[0] if stripped else ""
    if width is None or len(line) <= width:
        return line
    return line[: width - 1] + "…"
