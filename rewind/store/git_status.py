"""What git says is changed in a work tree, asked read-only.

Used before commands that can destroy uncommitted work (``git reset --hard``, ``git checkout --``,
``git clean``, ``git stash``...) and by the pre-commit safety net. ``--no-optional-locks`` keeps
``git status`` from refreshing (writing) the user's index: rewind never writes the user's
``.git``.
"""

from __future__ import annotations

import os

from rewind.errors import UserError


def changed_paths(worktree: bytes) -> list[bytes]:
    """Every path git reports modified, staged, added, deleted, renamed (both names) or
    untracked and not ignored, relative to the top of ``worktree``'s repository."""
    from rewind.store.git_program import GitFailed, run_git  # a shell command or a commit

    try:
        completed = run_git(
            None,
            b"-C",
            worktree,
            b"--no-optional-locks",
            b"status",
            b"--porcelain=v1",
            b"-z",
            b"--untracked-files=all",
            b"--ignore-submodules=all",
            what="git status",
            timeout=60,
            check=False,
            repository_from_environment=True,  # a pre-commit hook's GIT_DIR, GIT_WORK_TREE
        )
    except GitFailed as error:
        raise UserError(
            f"git status could not run in {os.fsdecode(worktree)} ({error.cause})."
        ) from None
    if completed.returncode != 0:
        message = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UserError(
            f"git status failed in {os.fsdecode(worktree)}: {message[-1] if message else '?'}."
        )
    return parse_porcelain(completed.stdout)


def parse_porcelain(output: bytes) -> list[bytes]:
    """Paths from ``git status --porcelain=v1 -z``: ``XY path\\0``, renames and copies
    followed by ``\\0`` and the original path."""
    paths: list[bytes] = []
    fields = output.split(b"\0")
    index = 0
    while index < len(fields):
        field = fields[index]
        index += 1
        if len(field) < 4:
            continue
        status, path = field[:2], field[3:]
        paths.append(path)
        if b"R" in status or b"C" in status:
            if index < len(fields) and fields[index]:
                paths.append(fields[index])
            index += 1
    return list(dict.fromkeys(paths))
