"""Writing a commit's authorship note: what git's post-commit and post-rewrite hooks run, one
commit at a time per repository (a lock in the store keeps the hooks of one rebase from racing
for ``refs/notes/ai``).

The note written is a merge, never a blind replacement: the note the commit has already (another
writer's, or an earlier run's), then the lines carried from the commits it took the place of
(:mod:`rewind.history.attribution.carry`), then what rewind's own record says, each overriding
the one before where they claim the same line. So the post-commit and post-rewrite hooks of one
rebase give the same note in whichever order they run.
"""

from __future__ import annotations

import fcntl
import os

from rewind.history.attribution.authorship import WRITER, commit_note
from rewind.history.attribution.carry import carried, claims, merged
from rewind.history.attribution.git_notes import NOTES_REF, NotesFailed, write_note
from rewind.history.attribution.note_format import Note, NoteError, parse, render
from rewind.store.project_repository import (
    Commit,
    common_git_dir,
    files_in_commit,
    notes_of,
    read_commit,
)
from rewind.store.repository import Store

# One writer at a time per repository, whichever work tree (each has a store of its own): a
# lock under the rewind home, named after the git directory they share.
LOCKS_DIR = "locks"


def notes_lock_path(top: bytes) -> str:
    import hashlib

    from rewind.store.home import rewind_home

    common = common_git_dir(top)
    name = hashlib.sha256(common.encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return os.path.join(rewind_home(), LOCKS_DIR, f"notes-{name}.lock")


def note_commit(
    store: Store,
    top: bytes,
    revision: str,
    sources: tuple[str, ...] = (),
    just_made: bool = False,
) -> str:
    """Writes the note of the commit ``revision`` of the repository at ``top``: from what
    ``store`` recorded, and from the notes of ``sources`` (the commits it replaces or was
    picked from). ``just_made``: the commit was made a moment ago (the post-commit hook), so the
    turns open now record their files' states first (an agent that commits in its turn has
    not ended it). Returns what it did, in a few words."""
    if not store.config.attribution_notes:
        return "attribution notes are off"
    for _ in range(ATTEMPTS):
        try:
            return _note_commit(store, top, revision, sources, just_made)
        except _Moved:
            just_made = False  # the open turns' states are recorded already
    raise NotesFailed(
        f"the note of {revision[:12]} kept being changed by another writer; it was left as it is"
    )


# How often a note another writer changed meanwhile is merged again before giving up.
ATTEMPTS = 3


class _Moved(Exception):
    """The commit's note changed while rewind computed its own."""


def _note_commit(
    store: Store, top: bytes, revision: str, sources: tuple[str, ...], just_made: bool
) -> str:
    path = notes_lock_path(top)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        commit = read_commit(top, revision)
        if just_made:
            record_open_turns(store, {f.path for f in commit.files})
        layers: list[Note] = []
        notes = notes_of(top, [commit.sha, *sources], NOTES_REF)
        existing = notes.get(commit.sha)
        if commit.sha in notes:
            try:
                if existing is None:
                    raise NoteError("it is larger than 16 MB")
                layers.append(parse(existing))
            except NoteError as error:
                raise NotesFailed(
                    f"{commit.sha[:12]} has a note rewind cannot read ({error}); it was left as "
                    "it is"
                ) from None
        own: list[Note] = []
        for source in sources:
            own.extend(_carried(top, source, notes.get(source), commit))
        fresh = commit_note(store, commit, with_prompts=store.config.attribution_prompts)
        if fresh is not None:
            own.append(fresh)
        if not own:
            return f"no line of {commit.sha[:12]} is an agent's: no note"
        note = merged(layers + own, commit.sha, WRITER)
        if layers and claims(note) == claims(layers[0]) and not _new_records(note, layers[0]):
            return f"the note of {commit.sha[:12]} is up to date"
        text = render(note)
        if notes_of(top, [commit.sha], NOTES_REF).get(commit.sha) != existing:
            # Another writer noted the commit while this one worked: begin again from its note.
            raise _Moved()
        write_note(top, commit.sha, text)
        lines = sum(len(lines) for f in note.files for lines in f.entries.values())
        return f"noted {lines} line(s) of {len(note.files)} file(s) in {commit.sha[:12]}"


def _new_records(note: Note, existing: Note) -> bool:
    """Whether ``note`` names a record ``existing`` does not have, or has otherwise."""
    return any(
        key not in existing.prompts or existing.prompts[key] != record
        for key, record in note.prompts.items()
    )


def record_open_turns(store: Store, paths: set[bytes]) -> None:
    """Records the current state of those of ``paths`` an agent's open turn tracks, as its
    after-states so far (the turn's end records them again: the latest wins). Not the
    pre-commit hook's turn: it stays open with no after-states on purpose
    (rewind.hooks.git_precommit)."""
    from rewind.history.index.queries import EntryIndex
    from rewind.history.insight.file_history import PRE_COMMIT_SESSION
    from rewind.history.recording.turns import record_after_states

    with EntryIndex(store) as index:
        open_turns = index.sync_all()
    for entry in open_turns:
        if entry.session == PRE_COMMIT_SESSION:
            continue
        tracked = [change.path for change in entry.files if change.path in paths]
        if tracked:
            record_after_states(store, entry.session, tracked)


def _carried(top: bytes, source: str, text: str | None, commit: Commit) -> list[Note]:
    if text is None:
        return []  # no note, or one too large to be a real one
    try:
        note = parse(text)
    except NoteError:
        return []  # another writer's note rewind cannot read: nothing of it is carried
    paths = [f.path.encode("utf-8", "surrogateescape") for f in note.files]
    return [carried(note, files_in_commit(top, source, paths), commit)]
