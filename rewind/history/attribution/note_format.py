"""Authorship notes in the open ``authorship/3.0.0`` format (the Git AI Standard), the text
attached to a commit under ``refs/notes/ai``: written and read exactly as its other writers and
readers do.

A note is an attestation section, a line ``---``, then JSON::

    src/calc.py
      4f1c2d0e9a8b7c6d 3-5,9
    ---
    {
      "schema_version": "authorship/3.0.0",
      ...
    }

Each file of the commit (its path from the repository's top, quoted when it holds a space, a
tab or a line end) is followed by one line per author key, indented by two spaces, with the
line numbers (of the file as committed) that key wrote: ``5-6,9``. A key is one of three kinds,
told by its prefix: ``s_<14 hex>::t_<14 hex>`` (a session and one of its checkpoints, looked up
in ``sessions``), ``h_<14 hex>`` (a known person, in ``humans``), or 16 (formerly 7) hex digits,
looked up in ``prompts``. rewind writes the last kind, one record per turn, because the format
keeps its per-prompt figures there.

The reader is as lenient as the format's own: line ends with or without ``\\r``, blank lines,
unknown JSON fields and ``N-N`` ranges are accepted; anything else wrong makes the whole note
unreadable (:class:`NoteError`), never half-read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SCHEMA = "authorship/3.0.0"
# The most lines a note may attest in all: more is no real commit's note (a hostile one would
# take the memory of every reader), and the whole note is unreadable.
MAX_LINES = 2_000_000
DIVIDER = "---"
HUMAN_PREFIX = "h_"


class NoteError(ValueError):
    """A note that is not in the format (or not of its version)."""


@dataclass(frozen=True)
class AgentId:
    tool: str
    id: str
    model: str = "unknown"


@dataclass
class PromptRecord:
    """Who is behind a ``prompts`` key, and that prompt's figures for the commit."""

    agent_id: AgentId
    human_author: str | None = None
    messages: list[dict[str, object]] = field(default_factory=list)
    total_additions: int = 0
    total_deletions: int = 0
    accepted_lines: int = 0
    overriden_lines: int = 0  # sic: the format's spelling
    custom_attributes: dict[str, str] = field(default_factory=dict)


@dataclass
class SessionRecord:
    agent_id: AgentId
    human_author: str | None = None
    custom_attributes: dict[str, str] = field(default_factory=dict)


@dataclass
class FileLines:
    """One file's attestations: per key, the line numbers (from 1) it wrote, in order."""

    path: str
    entries: dict[str, list[int]] = field(default_factory=dict)


@dataclass
class Note:
    base_commit_sha: str
    files: list[FileLines] = field(default_factory=list)
    prompts: dict[str, PromptRecord] = field(default_factory=dict)
    sessions: dict[str, SessionRecord] = field(default_factory=dict)
    humans: dict[str, str] = field(default_factory=dict)  # key: "Name <email>"
    writer_version: str | None = None  # "git_ai_version": the writing tool's version
    # What another writer's note held, kept as it was so that writing the note again changes
    # nothing of it: each record's JSON by table ("prompts", "sessions", "humans") and key,
    # and the top-level keys this reader does not know.
    raw: dict[str, dict[str, object]] = field(default_factory=dict, compare=False)
    extra: dict[str, object] = field(default_factory=dict, compare=False)

    def owners(self, path: str) -> dict[int, str]:
        """The key that wrote each attested line of ``path``; where two claim a line, the
        later one (as the format's readers do)."""
        for attested in self.files:
            if attested.path == path:
                found: dict[int, str] = {}
                for key, lines in attested.entries.items():
                    for line in lines:
                        found[line] = key
                return found
        return {}

    def author_of(self, path: str, line: int) -> str | None:
        """The key that wrote ``line`` of ``path``, or None (see :meth:`owners`)."""
        return self.owners(path).get(line)


def printable(text: str) -> str:
    """``text`` with its control characters shown as ``\\xNN``: what a note holds is whatever
    another machine or tool wrote, and an escape sequence could take over a terminal."""
    return text.translate(_VISIBLE)


_VISIBLE = {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0))}


def prompt_key(tool: str, identity: str) -> str:
    """A ``prompts`` key: the first 16 hex digits of SHA-256 of ``TOOL:IDENTITY``."""
    return hashlib.sha256(f"{tool}:{identity}".encode()).hexdigest()[:16]


def human_key(author: str) -> str:
    """A ``humans`` key for ``Name <email>``: ``h_`` and 14 hex digits of its SHA-256."""
    return HUMAN_PREFIX + hashlib.sha256(author.encode()).hexdigest()[:14]


def ranges_text(lines: list[int]) -> str:
    """``[1, 2, 3, 7, 9, 10]`` as ``1-3,7,9-10``: sorted, adjacent lines joined, a single
    line alone (never ``7-7``)."""
    parts: list[str] = []
    ordered = sorted(set(lines))
    index = 0
    while index < len(ordered):
        start = end = ordered[index]
        while index + 1 < len(ordered) and ordered[index + 1] == end + 1:
            index += 1
            end = ordered[index]
        parts.append(str(start) if start == end else f"{start}-{end}")
        index += 1
    return ",".join(parts)


def parse_ranges(text: str, budget: int = MAX_LINES) -> list[int]:
    """The line numbers ``1-3,7`` names; empty items are skipped, anything else not a number
    or a range of numbers is a NoteError, and so are more than ``budget`` lines."""
    lines: list[int] = []
    for item in text.split(","):
        if not item:
            continue
        first, dash, last = item.partition("-")
        if (
            not first.isascii()
            or not first.isdigit()
            or (dash and not (last.isascii() and last.isdigit()))
        ):
            raise NoteError(f"not a line range: {item!r}")
        start, end = int(first), int(last) if dash else int(first)
        if end < start:
            raise NoteError(f"not a line range: {item!r}")
        if len(lines) + end - start + 1 > budget:
            raise NoteError(f"the note attests more than {MAX_LINES:,} lines")
        lines.extend(range(start, end + 1))
    return lines


def _needs_quotes(path: str) -> bool:
    return any(character in path for character in " \t\n")


def representable(path: str) -> bool:
    """Whether a note can carry ``path`` so that every reader reads it back: the format has no
    escapes, so not a name with a line end, one its readers would take for the divider or for
    a quoted name, or one that begins with a space."""
    if not path or path == DIVIDER or path[0] in " \t" or path[-1] in " \t":
        return False
    if path.startswith('"') and path.endswith('"'):
        return False
    return not any(mark in path for mark in _LINE_ENDS) and path.isprintable()


# What some readers (Python's str.splitlines among them) take for a line end.
_LINE_ENDS = ("\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def render(note: Note) -> str:
    """The note's text, byte for byte as the format's reference writer makes it: files and
    keys in the note's order, no line end after the JSON. Records read from another writer's
    note are written as they were read."""
    out: list[str] = []
    for attested in note.files:
        entries = {key: lines for key, lines in attested.entries.items() if lines}
        if not entries or not representable(attested.path):
            continue  # a file no key wrote a line of, or whose name the format cannot carry
        out.append(f'"{attested.path}"' if _needs_quotes(attested.path) else attested.path)
        out.extend(f"  {key} {ranges_text(lines)}" for key, lines in entries.items())
    out.append(DIVIDER)
    metadata: dict[str, object] = {
        "schema_version": SCHEMA,
        "git_ai_version": note.writer_version,
        "base_commit_sha": note.base_commit_sha,
        "prompts": _table(note, "prompts", note.prompts, _prompt_json),
    }
    if note.humans:
        metadata["humans"] = _table(note, "humans", note.humans, lambda a: {"author": a})
    if note.sessions:
        metadata["sessions"] = _table(note, "sessions", note.sessions, _session_json)
    for key, value in note.extra.items():
        metadata.setdefault(key, value)
    text = json.dumps(metadata, indent=2, ensure_ascii=False)
    # Escaped, these stay valid JSON for every reader, and no reader splits a line at them.
    for mark in _LINE_ENDS[2:]:
        text = text.replace(mark, f"\\u{ord(mark):04x}")
    return "\n".join(out) + "\n" + text


def _table(
    note: Note, name: str, records: dict[str, Any], to_json: Callable[[Any], object]
) -> dict[str, object]:
    kept = note.raw.get(name, {})
    return {key: kept[key] if key in kept else to_json(records[key]) for key in sorted(records)}


def _agent_json(agent: AgentId) -> dict[str, object]:
    return {"tool": agent.tool, "id": agent.id, "model": agent.model}


def _prompt_json(record: PromptRecord) -> dict[str, object]:
    data: dict[str, object] = {
        "agent_id": _agent_json(record.agent_id),
        "human_author": record.human_author,
    }
    if record.messages:
        data["messages"] = record.messages
    data.update(
        total_additions=record.total_additions,
        total_deletions=record.total_deletions,
        accepted_lines=record.accepted_lines,
        overriden_lines=record.overriden_lines,
    )
    if record.custom_attributes:
        data["custom_attributes"] = dict(sorted(record.custom_attributes.items()))
    return data


def _session_json(record: SessionRecord) -> dict[str, object]:
    data: dict[str, object] = {
        "agent_id": _agent_json(record.agent_id),
        "human_author": record.human_author,
    }
    if record.custom_attributes:
        data["custom_attributes"] = dict(sorted(record.custom_attributes.items()))
    return data


def parse(text: str) -> Note:
    """The note ``text`` holds (any writer's); a NoteError when it is not one of this version."""
    try:
        return _parse(text)
    except NoteError:
        raise
    except (ValueError, RecursionError, TypeError, AttributeError) as error:
        raise NoteError(f"not a note ({type(error).__name__})") from None


def _parse(text: str) -> Note:
    # Lines end at "\n" only (with a "\r" before it, tolerated), as the format's writers end
    # them: a name or a prompt may hold any other character.
    lines = [line.removesuffix("\r") for line in text.strip("\n\r").split("\n")]
    divider = next(
        (
            number
            for number, line in enumerate(lines)
            if line == DIVIDER
            and (number + 1 == len(lines) or lines[number + 1].lstrip().startswith("{"))
        ),
        None,
    )
    if divider is None:
        raise NoteError("no '---' line between the attestations and the metadata")
    files = _attestations(lines[:divider])
    from rewind.store.fastjson import loads

    try:
        metadata = loads("\n".join(lines[divider + 1 :]))  # its nesting depth bounded
    except ValueError as error:
        raise NoteError(f"the metadata is not JSON ({error})") from None
    if not isinstance(metadata, dict):
        raise NoteError("the metadata is not a JSON object")
    if metadata.get("schema_version") != SCHEMA:
        raise NoteError(f"schema {metadata.get('schema_version')!r}, not {SCHEMA!r}")
    base = metadata.get("base_commit_sha")
    prompts = metadata.get("prompts")
    if not isinstance(base, str) or not isinstance(prompts, dict):
        raise NoteError("the metadata lacks base_commit_sha or prompts")
    version = metadata.get("git_ai_version")
    sessions, humans = _table_of(metadata, "sessions"), _table_of(metadata, "humans")
    known = {"schema_version", "git_ai_version", "base_commit_sha", "prompts", "sessions", "humans"}
    return Note(
        base,
        files,
        {key: _prompt(value) for key, value in prompts.items()},
        {key: _session(value) for key, value in sessions.items()},
        {key: _human(value) for key, value in humans.items()},
        version if isinstance(version, str) else None,
        raw={"prompts": dict(prompts), "sessions": dict(sessions), "humans": dict(humans)},
        extra={key: value for key, value in metadata.items() if key not in known},
    )


def _attestations(lines: list[str]) -> list[FileLines]:
    files: list[FileLines] = []
    counted = 0
    for raw in lines:
        line = raw.rstrip(" \t")
        if not line:
            continue
        if line.startswith("  "):
            if not files:
                raise NoteError("an attestation before any file's path")
            key, space, ranges = line[2:].partition(" ")
            if not space or not key:
                raise NoteError(f"an attestation without line ranges: {line!r}")
            numbers = parse_ranges(ranges.strip(), MAX_LINES - counted)
            counted += len(numbers)
            files[-1].entries.setdefault(key, []).extend(numbers)
        else:
            quoted = len(line) > 1 and line.startswith('"') and line.endswith('"')
            files.append(FileLines(line[1:-1] if quoted else line))
    return [attested for attested in files if attested.entries]


def _table_of(metadata: dict[str, object], name: str) -> dict[str, object]:
    value = metadata.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise NoteError(f"{name} is not a JSON object")
    return value


def _agent(value: object) -> AgentId:
    if not isinstance(value, dict):
        raise NoteError("an agent_id is not a JSON object")
    parts = [value.get(name) for name in ("tool", "id", "model")]
    if not all(isinstance(part, str) for part in parts):
        raise NoteError("an agent_id lacks its tool, id or model")
    return AgentId(*(str(part) for part in parts))


def _author(value: dict[str, object]) -> str | None:
    author = value.get("human_author")
    return author if isinstance(author, str) else None


def _attributes(value: dict[str, object]) -> dict[str, str]:
    found = value.get("custom_attributes")
    if not isinstance(found, dict):
        return {}
    return {str(key): str(item) for key, item in found.items()}


def _count(value: dict[str, object], name: str) -> int:
    number = value.get(name, 0)
    return number if isinstance(number, int) and not isinstance(number, bool) else 0


def _prompt(value: object) -> PromptRecord:
    if not isinstance(value, dict):
        raise NoteError("a prompt record is not a JSON object")
    messages = value.get("messages")
    return PromptRecord(
        _agent(value.get("agent_id")),
        _author(value),
        [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else [],
        _count(value, "total_additions"),
        _count(value, "total_deletions"),
        _count(value, "accepted_lines"),
        _count(value, "overriden_lines"),
        _attributes(value),
    )


def _session(value: object) -> SessionRecord:
    if not isinstance(value, dict):
        raise NoteError("a session record is not a JSON object")
    return SessionRecord(_agent(value.get("agent_id")), _author(value), _attributes(value))


def _human(value: object) -> str:
    if not isinstance(value, dict) or not isinstance(value.get("author"), str):
        raise NoteError("a human record lacks its author")
    return str(value["author"])


def prompt_text(record: PromptRecord) -> str:
    """The prompt a record carries (the first user message), or ''."""
    for message in record.messages:
        if message.get("type") == "user" and isinstance(message.get("text"), str):
            return str(message["text"])
    return ""
