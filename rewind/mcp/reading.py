"""The tools that read: each asks the action layer (rewind.actions.reading) what the command
line's ``rewind log``, ``show``, ``diff``, ``history``, ``blame`` and ``status`` read, in this
process (the store opened afresh for every call, so each sees it as it is then), and answers
with the command's ``--json`` record (rewind.actions.records) as structured content and a short
text the model can use, bounded (what is cut says how to get the rest).

Every argument is checked first (rewind.mcp.arguments); a path is relative to the project."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from rewind.actions import reading, records
from rewind.actions.status import project_status
from rewind.history.entry import TURN, Entry
from rewind.history.insight.diffs import FileDiff
from rewind.mcp.arguments import count as checked_count
from rewind.mcp.arguments import optional_text
from rewind.mcp.arguments import path as checked_path
from rewind.mcp.arguments import session as checked_session
from rewind.mcp.arguments import turn as checked_turn
from rewind.store.repository import Store

# The most characters of text one answer holds (a large diff is cut, with a note).
TEXT_LIMIT = 20_000
# The most entries one log answer lists.
LOG_LIMIT = 200


@dataclass(frozen=True)
class Answer:
    """What a tool answers: text for the model, and the record the command's --json gives."""

    text: str
    data: dict[str, object]


def bounded(text: str, how_to_see_more: str) -> str:
    """``text`` cut at :data:`TEXT_LIMIT` characters, saying so and how to see the rest."""
    if len(text) <= TEXT_LIMIT:
        return text
    cut = text[:TEXT_LIMIT]
    return f"{cut}\n[cut: {len(text) - TEXT_LIMIT} more characters; {how_to_see_more}]"


def _first_line(entry: Entry) -> str:
    lines = entry.prompt.splitlines()
    return lines[0] if lines else ""


def _counted(store: Store, diff: FileDiff) -> str:
    return f"{diff.status} {store.root.display(diff.path)} +{diff.added} -{diff.removed}"


def _diff_text(store: Store, diff: FileDiff) -> str:
    """The file's unified diff, or its name and what happened to it (a binary file, a mode)."""
    text = diff.text or f"{store.root.display(diff.path)}: {diff.status}"
    return text if text.endswith("\n") else text + "\n"


def log(
    root: str,
    count: int = 20,
    since: str | None = None,
    grep: str | None = None,
    path: str | None = None,
    session: str | None = None,
) -> Answer:
    request = reading.LogRequest(
        session=checked_session(session),
        since=optional_text(since, "since"),
        grep=optional_text(grep, "grep"),
        path=None if path is None else checked_path(path),
        max_count=checked_count(count, "count", LOG_LIMIT),
        cwd=os.fsencode(root),
        missing_ok=True,
    )
    entries: list[dict[str, object]] = []
    lines = []
    with reading.read_log(request) as found:
        for row in found.entries:
            entries.append(records.logged_json(row))
            entry = row.entry
            assert found.store is not None
            kind = "" if entry.kind == TURN else f"[{entry.kind}] "
            undone = " (undone)" if row.undone else ""
            files = "; ".join(_counted(found.store, diff) for diff in row.diffs())
            started = records.iso_time(entry.started)
            lines.append(
                f"turn {entry.number} ({entry.id}, {started}): {kind}{_first_line(entry)}"
                f"{undone}\n    {files}"
            )
    text = "\n".join(lines) or "nothing recorded matches."
    more = "ask for fewer entries (count) or filter them (since, grep, path)"
    return Answer(bounded(text, more), {"entries": entries})


def show(root: str, turn: str, path: str | None = None, session: str | None = None) -> Answer:
    request = reading.ShowRequest(
        turn=checked_turn(turn),
        session=checked_session(session),
        path=None if path is None else checked_path(path),
        cwd=os.fsencode(root),
    )
    shown = reading.show(request)
    if isinstance(shown, reading.ShownHunks):
        hunks = shown.hunks.hunks
        parts = [f"{path} in turn {turn}: {len(hunks)} hunk(s)"]
        for hunk in hunks:
            record = records.hunk_json(hunk)
            lines = record["lines"]
            assert isinstance(lines, list)
            body = "".join(f"{line['origin']}{line['text']}" for line in lines)
            parts.append(f"hunk {hunk.number} {hunk.header()}\n{body}")
        text, data = "\n".join(parts), records.shown_hunks_json(shown)
    else:
        diffs = "".join(_diff_text(shown.store, diff) for diff in shown.diffs)
        text, data = f"turn {turn}: {shown.entry.prompt}\n{diffs}", records.shown_json(shown)
    return Answer(bounded(text, "call rewind_show with path set to one file"), data)


def diff(
    root: str, turn: str | None = None, turn2: str | None = None, session: str | None = None
) -> Answer:
    found = reading.diff(
        reading.DiffRequest(
            turn=None if turn is None else checked_turn(turn, "turn"),
            turn2=None if turn2 is None else checked_turn(turn2, "turn2"),
            session=checked_session(session),
            cwd=os.fsencode(root),
        )
    )
    text = "".join(
        _diff_text(found.store, file_diff)
        for file_diff in found.files
        if file_diff.status not in ("unchanged", "pending") or file_diff.text
    )
    more = "diff fewer turns (turn and turn2 closer together)"
    return Answer(bounded(text or "no difference.", more), records.diff_between_json(found))


def history(root: str, path: str, count: int = 20) -> Answer:
    found = reading.file_history(
        checked_path(path),
        checked_count(count, "count", LOG_LIMIT),
        cwd=os.fsencode(root),
        missing_ok=True,
    )
    lines = []
    for version in found.versions:
        entry = version.entry
        counts = f" +{version.added} -{version.removed}" if version.compared else ""
        back = f" (back to {version.same_as.id})" if version.same_as is not None else ""
        lines.append(
            f"{version.id}: turn {entry.number} of session {entry.session}, {version.source}"
            f"{counts}{back}: {_first_line(entry)}"
        )
    text = "\n".join(lines) or f"rewind has recorded no version of {path}."
    return Answer(bounded(text, "ask for fewer versions (count)"), records.history_json(found))


def blame(root: str, path: str, start_line: int = 1, end_line: int | None = None) -> Answer:
    blamed = reading.blame(checked_path(path), cwd=os.fsencode(root))
    lines = blamed.blame.lines
    last = end_line if end_line is not None else len(lines)
    shown = []
    for run in blamed.blame.runs:
        version = run.version
        if version is not None:
            who = f"turn {version.entry.number} ({version.id}): {_first_line(version.entry)}"
        else:
            who = run.status
        for number in range(max(run.start, start_line), min(run.start + run.count - 1, last) + 1):
            text = lines[number - 1].rstrip(b"\n").decode("utf-8", "replace")
            shown.append(f"{number}: [{who}] {text}")
    more = "ask for a smaller line range (start_line, end_line)"
    return Answer(bounded("\n".join(shown), more), records.blame_json(blamed))


def status(root: str) -> Answer:
    found = records.status_json(project_status(os.fsencode(root)))
    return Answer(json.dumps(found, indent=1), found)
