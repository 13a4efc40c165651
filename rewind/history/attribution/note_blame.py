"""``rewind blame`` past the record: the lines rewind's own record cannot explain (sessions
gone, or never on this machine: a teammate's clone) answered by the authorship notes of the
commits that brought them. ``git blame`` says which commit brought each line and where the line
was in it; that commit's note (``refs/notes/ai``, any writer's) says which prompt wrote it."""

from __future__ import annotations

import os
from dataclasses import dataclass

from rewind.history.attribution.git_notes import NOTES_REF
from rewind.history.attribution.note_format import Note, NoteError, parse, printable, prompt_text
from rewind.store.git_program import GitFailed, run_git
from rewind.store.project_repository import has_ref, notes_of

UNCOMMITTED = "0" * 40


@dataclass(frozen=True)
class NotedLine:
    """Who a commit's note says wrote a line."""

    commit: str
    key: str
    tool: str
    model: str
    session: str  # the agent's id of its session ("" for a person)
    turn: str  # rewind's turn number, when rewind wrote the note
    prompt: str  # only when the note carries it
    author: str  # the person behind the prompt, or the person who wrote the line


def has_notes(top: bytes) -> bool:
    return has_ref(top, NOTES_REF)


def noted_lines(top: bytes, path: bytes, wanted: set[int]) -> dict[int, NotedLine]:
    """For each of the ``wanted`` lines (from 1) of the file ``path`` (from the top of the work
    tree) as it is now, what the note of the commit that brought it says; lines no note names
    are left out."""
    if not wanted:
        return {}
    origins = _git_blame(top, path)
    commits = sorted({origins[n][0] for n in wanted if n in origins} - {UNCOMMITTED})
    notes: dict[str, Note] = {}
    for commit, text in notes_of(top, commits, NOTES_REF).items():
        if text is None:
            continue  # too large to be a real note: it answers nothing
        try:
            notes[commit] = parse(text)
        except NoteError:
            continue  # a note no reader of the format could read: it answers nothing
    found = {}
    owners: dict[tuple[str, str], dict[int, str]] = {}  # each (commit, path) read once
    for number in sorted(wanted):
        origin = origins.get(number)
        if origin is None or origin[0] not in notes:
            continue
        commit, old_path, old_line = origin
        note = notes[commit]
        lines = owners.get((commit, old_path))
        if lines is None:
            lines = owners[(commit, old_path)] = note.owners(old_path)
        key = lines.get(old_line)
        if key is not None:
            noted = _who(commit, key, note)
            if noted is not None:
                found[number] = noted
    return found


def _who(commit: str, key: str, note: Note) -> NotedLine | None:
    """Who the note says wrote a line, its text made printable (a note is another's words)."""
    found = _author(commit, key, note)
    if found is None:
        return None
    return NotedLine(
        found.commit,
        printable(found.key),
        printable(found.tool),
        printable(found.model),
        printable(found.session),
        printable(found.turn),
        printable(found.prompt),
        printable(found.author),
    )


def _author(commit: str, key: str, note: Note) -> NotedLine | None:
    if key in note.humans:
        return NotedLine(commit, key, "person", "", "", "", "", note.humans[key])
    session = note.sessions.get(key.split("::")[0])
    if session is not None:
        agent = session.agent_id
        author = session.human_author or ""
        return NotedLine(commit, key, agent.tool, agent.model, agent.id, "", "", author)
    record = note.prompts.get(key)
    if record is None:
        return None
    agent = record.agent_id
    turn = record.custom_attributes.get("rewind_turn", "")
    return NotedLine(
        commit,
        key,
        agent.tool,
        agent.model,
        agent.id,
        turn,
        prompt_text(record),
        record.human_author or "",
    )


def _git_blame(top: bytes, path: bytes) -> dict[int, tuple[str, str, int]]:
    """Per line of the file now: the commit that brought it, its path and line number there."""
    try:
        done = run_git(
            None,
            "-C",
            top,
            "-c",
            "core.quotePath=false",
            "blame",
            "--line-porcelain",
            "--",
            path,
            what=f"git blame of {os.fsdecode(path)}",
            check=False,
            repository_from_environment=True,
        )
    except GitFailed:
        return {}
    if done.returncode != 0:
        return {}  # not committed yet, or not in a repository: no note can answer
    origins: dict[int, tuple[str, str, int]] = {}
    header: list[str] = []
    filename = ""
    for raw in done.stdout.split(b"\n"):
        if raw.startswith(b"\t"):
            if len(header) >= 3:
                origins[int(header[2])] = (header[0], filename, int(header[1]))
            header, filename = [], ""
        elif not header:
            header = raw.decode("ascii", "replace").split()
        elif raw.startswith(b"filename "):
            filename = unquoted(raw[len(b"filename ") :]).decode("utf-8", "surrogateescape")
    return origins


_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


def unquoted(name: bytes) -> bytes:
    """A name as git writes it, quoted C-style when it holds a quote, a backslash or a control
    character (``"a\\"b.py"``, octal escapes for other bytes): the bytes it stands for."""
    if len(name) < 2 or not (name.startswith(b'"') and name.endswith(b'"')):
        return name
    body, out, index = name[1:-1], bytearray(), 0
    while index < len(body):
        byte = body[index : index + 1]
        if byte != b"\\" or index + 1 >= len(body):
            out += byte
            index += 1
            continue
        following = body[index + 1 : index + 2]
        octal = body[index + 1 : index + 4]
        if len(octal) == 3 and all(48 <= c <= 55 for c in octal):
            out.append(int(octal, 8) & 0xFF)
            index += 4
        else:
            out.append(_ESCAPES.get(following, following[0]))
            index += 2
    return bytes(out)
