"""Notes through what people do to commits: the lines an earlier commit's note attests, carried
onto the commit that took its place (an amend, a rebase's pick or squash, a cherry-pick), and
notes merged rather than replaced.

A line is carried when it is unchanged between the two commits' versions of its file (a line
diff by libgit2) and the new commit adds it; a line changed on the way is nobody's. Every
writer's keys are carried, not only rewind's, with the records that name them.
"""

from __future__ import annotations

from rewind.history.attribution.note_format import FileLines, Note
from rewind.store.line_diffs import line_hunks
from rewind.store.project_repository import Commit


def line_map(old: bytes, new: bytes) -> dict[int, int]:
    """For each line (from 1) of ``old`` that ``new`` holds unchanged, its number in ``new``."""
    # A last line without its line end is the same line as with one (a line appended after it
    # gives it one).
    old, new = _ended(old), _ended(new)
    mapped: dict[int, int] = {}
    old_line = new_line = 0  # lines before the current position (0-based counts)
    old_total = old.count(b"\n") + (0 if not old or old.endswith(b"\n") else 1)
    for old_start, old_lines, new_start, _new_lines in line_hunks(old, new):
        while old_line < old_start:
            mapped[old_line + 1] = new_line + 1
            old_line += 1
            new_line += 1
        old_line = old_start + old_lines
        new_line = new_start + _new_lines
    while old_line < old_total:
        mapped[old_line + 1] = new_line + 1
        old_line += 1
        new_line += 1
    return mapped


def _ended(data: bytes) -> bytes:
    return data if not data or data.endswith(b"\n") else data + b"\n"


def carried(note: Note, old_files: dict[bytes, bytes], commit: Commit) -> Note:
    """What of ``note`` (of an earlier commit whose files ``old_files`` holds) goes on to
    ``commit``: its attested lines that ``commit`` adds unchanged."""
    added = {f.path: (f.content, set(f.added)) for f in commit.files}
    files = []
    for attested in note.files:
        path = attested.path.encode("utf-8", "surrogateescape")
        if path not in added or path not in old_files:
            continue
        content, new_lines = added[path]
        mapping = line_map(old_files[path], content)
        entries = {}
        for key, lines in attested.entries.items():
            moved = sorted(n for line in lines if (n := mapping.get(line)) in new_lines)
            if moved:
                entries[key] = moved
        if entries:
            files.append(FileLines(attested.path, entries))
    keys = {key for f in files for key in f.entries}
    return Note(
        commit.sha,
        files,
        {k: v for k, v in note.prompts.items() if k in keys},
        {k: v for k, v in note.sessions.items() if k in keys_sessions(keys)},
        {k: v for k, v in note.humans.items() if k in keys},
        note.writer_version,
    )


def keys_sessions(keys: set[str]) -> set[str]:
    return {key.split("::")[0] for key in keys}


def merged(notes: list[Note], sha: str, version: str | None) -> Note:
    """One note of ``notes`` for the commit ``sha``: where two claim a line, the later in the
    list; every record of every note, kept as it was read (the later's where both have one),
    and every field another writer's note had. ``version``: the writer's, unless the first note
    (the one the commit had) names another."""
    owner: dict[str, dict[int, str]] = {}
    order: list[str] = []
    first = notes[0].writer_version if notes else None
    result = Note(sha, writer_version=first or version)
    for note in notes:
        for attested in note.files:
            if attested.path not in owner:
                owner[attested.path] = {}
                order.append(attested.path)
            lines = owner[attested.path]
            for key, numbers in attested.entries.items():
                for number in numbers:
                    lines[number] = key
        result.prompts.update(note.prompts)
        result.sessions.update(note.sessions)
        result.humans.update(note.humans)
        for table in ("prompts", "sessions", "humans"):
            kept = result.raw.setdefault(table, {})
            for key in getattr(note, table):
                kept.pop(key, None)  # a later record replaces an earlier one's text too
            kept.update(note.raw.get(table, {}))
        for key, value in note.extra.items():
            result.extra.setdefault(key, value)
    for path in order:
        entries: dict[str, list[int]] = {}
        for number, key in sorted(owner[path].items()):
            entries.setdefault(key, []).append(number)
        result.files.append(FileLines(path, dict(sorted(entries.items()))))
    return result


def claims(note: Note) -> dict[tuple[str, int], str]:
    """Every line the note attests, with the key that wrote it."""
    return {
        (path, line): key
        for path in {f.path for f in note.files}
        for line, key in note.owners(path).items()
    }
