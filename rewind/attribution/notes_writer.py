"""Writing a commit's authorship note: what the git post-commit hook runs, one commit at a
time per repository (a lock in the store keeps two hooks of one rebase from racing for
``refs/notes/ai``)."""

from __future__ import annotations

import fcntl

from rewind.attribution.authorship import commit_note
from rewind.attribution.git_notes import write_note
from rewind.attribution.note_format import render
from rewind.store.project_repository import read_commit
from rewind.store.repository import Store

LOCK = "attribution.lock"


def note_commit(store: Store, top: bytes, revision: str) -> str:
    """Writes the note of the commit ``revision`` of the repository at ``top`` from what
    ``store`` recorded; returns what it did, in a few words (for the log)."""
    if not store.config.attribution_notes:
        return "attribution notes are off"
    with open(store.state_path(LOCK), "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        commit = read_commit(top, revision)
        note = commit_note(store, commit, with_prompts=store.config.attribution_prompts)
        if note is None:
            return f"no line of {commit.sha[:12]} is an agent's: no note"
        write_note(top, commit.sha, render(note))
        lines = sum(len(lines) for f in note.files for lines in f.entries.values())
        return f"noted {lines} line(s) of {len(note.files)} file(s) in {commit.sha[:12]}"
