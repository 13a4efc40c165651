"""Authorship notes travel with the sessions: ``rewind push`` sends the project repository's
``refs/notes/ai`` to the remote's ``refs/notes/ai``, and ``rewind fetch`` brings it back and
merges it into the local notes, as the format's other tools do: fetched into
``refs/notes/ai-remote/REMOTE``, then ``git notes --ref=ai merge -s ours`` (a note both sides
have keeps the local one). Plain ``git push REMOTE refs/notes/ai`` moves the same notes.

Both run git on the person's repository (only the notes refs are written), and only with
``[attribution] notes = true``.
"""

from __future__ import annotations

from rewind.history.attribution.git_notes import IDENTITY, NOTES_REF
from rewind.store.git_program import GitFailed, last_error_line, run_git

# How often a push refused because the remote's notes moved on is merged and tried again.
PUSH_ATTEMPTS = 3


class SyncFailed(Exception):
    """The notes could not be sent or brought: the sentence says why."""


def _git(top: bytes, *arguments: str, what: str, interactive: bool = False) -> tuple[int, bytes]:
    try:
        done = run_git(
            None,
            "-C",
            top,
            # Only the notes refs change: no automatic gc, maintenance or commit-graph.
            "-c",
            "gc.auto=0",
            "-c",
            "maintenance.auto=false",
            "-c",
            "fetch.writeCommitGraph=false",
            *arguments,
            what=what,
            interactive=interactive,
            check=False,
            variables=IDENTITY,
            repository_from_environment=True,
        )
    except GitFailed as error:
        raise SyncFailed(f"{what}: {error.cause}") from None
    return done.returncode, done.stderr


def _why(error: bytes) -> str:
    """git's reason in one sentence, with what the remote said (its ``remote:`` lines)."""
    said = [
        line.removeprefix("remote:").strip()
        for line in error.decode("utf-8", "replace").splitlines()
        if line.startswith("remote:") and line.removeprefix("remote:").strip()
    ]
    reason = last_error_line(error).rstrip(".")
    return f"{reason} (the remote said: {'; '.join(said[-3:])})" if said else reason


def has_notes(top: bytes) -> bool:
    code, _ = _git(top, "rev-parse", "-q", "--verify", NOTES_REF, what="reading refs/notes/ai")
    return code == 0


def tracking_ref(remote: str) -> str:
    """Where the notes fetched from ``remote`` are kept before the merge."""
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in remote) or "remote"
    return f"refs/notes/ai-remote/{safe}"


def fetch_notes(top: bytes, remote: str, url: str, interactive: bool = False) -> bool:
    """Brings the remote's notes and merges them into the local ones; False when it has none."""
    what = f"fetching the authorship notes from {remote}"
    tracking = tracking_ref(remote)
    code, error = _git(
        top,
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-write-fetch-head",
        "--recurse-submodules=no",
        url,
        f"+{NOTES_REF}:{tracking}",
        what=what,
        interactive=interactive,
    )
    if code != 0:
        message = last_error_line(error)
        if "couldn't find remote ref" in message.lower():
            return False
        raise SyncFailed(f"{what} failed: {_why(error)}")
    if has_notes(top):
        arguments = ("notes", f"--ref={NOTES_REF}", "merge", "-q", "-s", "ours", tracking)
        code, error = _git(top, *arguments, what=f"merging the notes of {remote}")
    else:
        code, error = _git(top, "update-ref", NOTES_REF, tracking, what="keeping the notes")
    if code != 0:
        raise SyncFailed(f"merging the notes of {remote} failed: {_why(error)}")
    return True


def push_notes(top: bytes, remote: str, url: str, interactive: bool = False) -> bool:
    """Sends the local notes; a remote whose notes moved on is fetched and merged first (up to
    :data:`PUSH_ATTEMPTS` times). False when there are no notes to send."""
    if not has_notes(top):
        return False
    what = f"pushing the authorship notes to {remote}"
    message = ""
    for _ in range(PUSH_ATTEMPTS):
        code, error = _git(
            top,
            "push",
            "--quiet",
            "--no-verify",
            url,
            f"{NOTES_REF}:{NOTES_REF}",
            what=what,
            interactive=interactive,
        )
        if code == 0:
            return True
        message = _why(error)
        if b"[rejected]" not in error:
            break
        fetch_notes(top, remote, url, interactive)
    raise SyncFailed(f"{what} failed: {message}")
