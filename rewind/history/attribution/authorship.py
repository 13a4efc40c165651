"""Which recorded prompt wrote each line a commit adds: the authorship note of a commit.

For each text file the commit added or changed, the file as committed is blamed against the
versions rewind recorded of it (:func:`rewind.history.insight.blame.blame_content`, the walk
``rewind blame`` makes, cached in the index). A line the commit adds is the agent's when the
version that brought it is the after-state of an agent's turn (its edit tools, a shell command
the quicksave read, a program its shell call ran) and the line reached the commit as that turn
wrote it; a line a person wrote or changed afterwards (seen by the watcher, recorded by the
pre-commit hook, or never recorded at all) is nobody's in the note. No note is made when no line
is the agent's.

Each turn is one record of the note's ``prompts``, keyed by :func:`turn_key`. Its figures for
the commit's files: ``total_additions``/``total_deletions``, the lines the turn itself added and
removed in them; ``accepted_lines``, its lines this commit adds as it wrote them;
``overriden_lines``, the lines it added that the committed files no longer hold as it wrote them
(changed or removed afterwards, by a person or a later turn). The prompt's text is in the note
only with ``[attribution] prompts = true``.
"""

from __future__ import annotations

import time
from collections import defaultdict

from rewind.history.attribution.note_format import (
    AgentId,
    FileLines,
    Note,
    PromptRecord,
    prompt_key,
    representable,
)
from rewind.history.entry import EDIT, PROGRAM, SHELL, TURN, Entry
from rewind.history.filestate import FILE
from rewind.history.index.queries import EntryIndex
from rewind.history.insight.blame import BINARY_PROBE, RECORDED, blame_content
from rewind.history.insight.file_history import PRE_COMMIT_SESSION, Batch, Version, file_versions
from rewind.history.insight.line_counts import LineCounts
from rewind.store.project_repository import Commit, CommittedFile
from rewind.store.repository import Store

# The sources of an agent's own changes (rewind.history.entry): not a person's, not the
# watcher's changes outside the agent.
AGENT_SOURCES = (EDIT, SHELL, PROGRAM)
# rewind's agent names where the format's other writers name the same tool otherwise.
TOOLS = {"claude-code": "claude", "copilot": "github-copilot-cli"}
# The version of the format's writer a note names ("git_ai_version"): rewind's own.
WRITER = "rewind"


def tool_name(agent: str) -> str:
    return TOOLS.get(agent, agent or "unknown")


def turn_key(entry: Entry) -> str:
    """A turn's key in ``prompts``: 16 hex digits of SHA-256 of ``TOOL:SESSION/ENTRY``, the
    format's derivation with the turn's entry id after the session's (one record per turn)."""
    return prompt_key(tool_name(entry.agent), f"{entry.session}/{entry.id}")


class _Turn:
    __slots__ = ("accepted", "added", "entry", "removed", "surviving")

    def __init__(self, entry: Entry) -> None:
        self.entry = entry
        self.accepted = 0
        self.surviving = 0
        self.added = 0
        self.removed = 0


def commit_note(
    store: Store, commit: Commit, with_prompts: bool = False, version: str = WRITER
) -> Note | None:
    """The authorship note of ``commit`` from what ``store`` recorded; None when no line it adds
    is an agent's."""
    turns: dict[str, _Turn] = {}
    files: list[FileLines] = []
    with EntryIndex(store) as index:
        counts = LineCounts(store, index)
        batch = Batch(index)
        try:
            for committed in sorted(commit.files, key=lambda f: f.path):
                lines = _file_lines(store, index, batch, counts, committed, turns)
                if lines:
                    files.append(lines)
        finally:
            counts.save()
    if not files:
        return None
    prompts = {
        key: _record(turn, commit.author, with_prompts)
        for key, turn in turns.items()
        if turn.accepted
    }
    return Note(commit.sha, files, prompts, writer_version=version)


def _file_lines(
    store: Store,
    index: EntryIndex,
    batch: Batch,
    counts: LineCounts,
    committed: CommittedFile,
    turns: dict[str, _Turn],
) -> FileLines | None:
    path = committed.path
    if b"\0" in committed.content[:BINARY_PROBE] or not _carried_by_notes(path):
        return None
    versions = file_versions(store, path, index, count_lines=False, batch=batch)
    if not any(_agents(v.entry) and v.after for v in versions):
        return None  # no agent's turn wrote this file: nothing to blame
    content = _as_written(store, committed.content, versions)
    blame = blame_content(store, path, content, versions, index)
    added = set(committed.added)
    by_key: dict[str, list[int]] = defaultdict(list)
    counted: set[str] = set()
    for run in blame.runs:
        version = run.version
        if run.status != RECORDED or version is None or not version.after:
            continue
        if version.source not in AGENT_SOURCES or not _agents(version.entry):
            continue
        key = turn_key(version.entry)
        turn = turns.get(key)
        if turn is None:
            turn = turns[key] = _Turn(version.entry)
        turn.surviving += run.count
        if key not in counted:
            counted.add(key)
            change = version.entry.file(version.path)
            if change is not None:
                diff = counts.diff(version.path, change.before, change.after)
                turn.added += diff.added
                turn.removed += diff.removed
        lines = [n for n in range(run.start, run.start + run.count) if n in added]
        turn.accepted += len(lines)
        by_key[key].extend(lines)
    entries = {key: lines for key, lines in sorted(by_key.items()) if lines}
    if not entries:
        return None
    return FileLines(path.decode("utf-8"), entries)


def _as_written(store: Store, content: bytes, versions: list[Version]) -> bytes:
    """The committed ``content`` with the line ends the work tree had: git converts CRLF to LF
    on the way in (``core.autocrlf``, ``eol`` attributes), and the recorded versions are the
    work tree's. Only where the newest recorded content has CRLF and the commit none; a line
    number is the same either way."""
    if b"\r\n" in content:
        return content
    newest = next((v for v in versions if v.state.kind == FILE and v.state.oid), None)
    if newest is None or newest.state.oid is None:
        return content
    recorded = store.reader.read_blob(newest.state.oid)
    return content.replace(b"\n", b"\r\n") if b"\r\n" in recorded else content


def _carried_by_notes(path: bytes) -> bool:
    """Whether a note can name ``path``: UTF-8 (the format has no escapes for other bytes), and
    a name every reader reads back (note_format.representable)."""
    try:
        return representable(path.decode("utf-8"))
    except UnicodeDecodeError:
        return False


def _agents(entry: Entry) -> bool:
    """Whether ``entry`` is an agent's turn (not a restore, not the pre-commit hook's, not
    changes seen outside any agent's turn)."""
    return entry.kind == TURN and not entry.is_outside_agent and entry.session != PRE_COMMIT_SESSION


def _record(turn: _Turn, author: str, with_prompts: bool) -> PromptRecord:
    entry = turn.entry
    messages: list[dict[str, object]] = []
    if with_prompts and entry.prompt:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(entry.started))
        messages.append({"type": "user", "text": entry.prompt, "timestamp": stamp})
    return PromptRecord(
        AgentId(tool_name(entry.agent), entry.session),
        author,
        messages,
        turn.added,
        turn.removed,
        turn.accepted,
        max(turn.added - turn.surviving, 0),
        {"rewind_entry": entry.id, "rewind_turn": str(entry.number)},
    )
