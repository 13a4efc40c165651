"""The notes under ``refs/notes/ai`` of the person's repository, written by git's own notes
machinery (``git notes --ref=ai``): rewind never edits the repository's files itself (they are
read with libgit2: rewind.store.project_repository.notes_of)."""

from __future__ import annotations

import os

from rewind.store.git_program import GitFailed, run_git

NOTES_REF = "refs/notes/ai"
TIMEOUT = 60.0
# Who the commits of refs/notes/ai are by (as the format's other writers name themselves): a
# repository whose git has no identity of its own (only -c user.email on a command line) can
# still be noted.
IDENTITY = {
    "GIT_AUTHOR_NAME": "rewind",
    "GIT_AUTHOR_EMAIL": "rewind@localhost",
    "GIT_COMMITTER_NAME": "rewind",
    "GIT_COMMITTER_EMAIL": "rewind@localhost",
}


class NotesFailed(Exception):
    """git could not read or write a note: the sentence says what and why."""


def _git(top: bytes, *arguments: str, what: str, input: bytes | None = None) -> bytes:
    try:
        done = run_git(
            None,
            "-C",
            top,
            "notes",
            f"--ref={NOTES_REF}",
            *arguments,
            what=what,
            timeout=TIMEOUT,
            check=False,
            input=input,
            variables=IDENTITY,
            # The commit's own repository, as the hook git runs sees it.
            repository_from_environment=True,
        )
    except GitFailed as error:
        raise NotesFailed(f"{what}: {error.cause}") from None
    if done.returncode != 0:
        message = os.fsdecode(done.stderr).strip().splitlines()
        raise NotesFailed(f"{what}: {message[-1] if message else f'git exit {done.returncode}'}")
    return done.stdout


def write_note(top: bytes, commit: str, text: str) -> None:
    """Attaches ``text`` to ``commit`` (replacing a note it had)."""
    _git(
        top,
        "add",
        "-f",
        "-F",
        "-",
        commit,
        what=f"writing the authorship note of {commit[:12]}",
        input=text.encode("utf-8"),
    )
