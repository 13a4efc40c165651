"""``rewind hook git``: git's pre-commit hook, the safety net around commits.

Every commit attempt records, as one turn of the session ``git``, the files git reports changed
(modified, staged, added, deleted, renamed, untracked and not ignored) as they are at that
moment. A formatter hook that mangles a file, a ``git commit -a`` that took too much, or a later
``git reset --hard`` can then be undone with ``rewind restore N --session git``.

The turn is left open: the next commit attempt (or a restore of the session) closes it,
recording what the files had become by then. Closing it at once would record after-states equal
to the before-states, and every restore of a file changed since (the very reason to restore)
would then be refused as a conflict.

git passes no payload: the project is the work tree git runs the hook in (its top, or
``$GIT_WORK_TREE``), and the branch comes from reading ``HEAD``. Nothing in the user's ``.git``
is written. The cost is one ``git status`` plus the changed files.
"""

from __future__ import annotations

import os
import time

from rewind.actions.stores import open_store
from rewind.errors import UserError
from rewind.history.filestate import DIRECTORY
from rewind.history.recording.turns import TRACK_PROBLEMS, begin, track
from rewind.history.session import recent_session
from rewind.store.atomic import write_text_atomically
from rewind.store.git_status import changed_paths
from rewind.store.repository import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.hooks.context import HookContext

# git runs hooks with nothing to read: rewind.hooks.handle_event must not wait for a payload.
NEEDS_PAYLOAD = False
SESSION = "git"
AGENT = "git"


def handle(context: HookContext) -> str | None:
    worktree = work_tree()
    if not os.path.isdir(worktree):
        raise ValueError(f"the work tree {os.fsdecode(worktree)!r} does not exist")
    store = open_store(os.path.realpath(worktree), create=True)
    context.store = store
    names = _recordable(context, store, changed_paths(store.root.path))
    if not names:
        return None  # nothing uncommitted: nothing a commit or a reset could lose
    branch = branch_name(git_dir(worktree))
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    default = recent_session(store)
    begin(store, SESSION, f"pre-commit on {branch} at {stamp}", AGENT, [f"branch:{branch}"])
    states = track(store, SESSION, names, agent=AGENT)
    _keep_default_session(store, default)
    for name, state in states.items():
        if state.kind == DIRECTORY:  # git names an untracked nested repository by its folder
            context.log(f"{store.root.display(name)}/ is a nested repository; not recorded")
        elif state.kind in TRACK_PROBLEMS:
            context.log(f"{store.root.display(name)} {TRACK_PROBLEMS[state.kind]}")
    return None


def work_tree() -> bytes:
    """Where git runs the hook: the top of the work tree, unless ``$GIT_WORK_TREE`` says."""
    configured = os.environb.get(b"GIT_WORK_TREE")
    return os.path.abspath(configured) if configured else os.getcwdb()


def git_dir(worktree: bytes) -> bytes:
    """``$GIT_DIR``, else ``.git`` of the work tree, following a ``gitdir:`` file (a linked
    work tree or a submodule) to the directory that holds this work tree's ``HEAD``."""
    configured = os.environb.get(b"GIT_DIR")
    path = os.path.abspath(configured) if configured else os.path.join(worktree, b".git")
    if os.path.isfile(path):
        with open(path, "rb") as handle:
            content = handle.read().strip()
        if content.startswith(b"gitdir:"):
            path = os.path.join(os.path.dirname(path), content[len(b"gitdir:") :].strip())
    return path


def branch_name(directory: bytes) -> str:
    """The checked-out branch as ``HEAD`` names it; ``detached@SHORT`` for a detached HEAD."""
    try:
        with open(os.path.join(directory, b"HEAD"), "rb") as handle:
            head = handle.read().strip()
    except OSError:
        return "unknown"
    if head.startswith(b"ref:"):
        ref = head[len(b"ref:") :].strip()
        return ref.removeprefix(b"refs/heads/").decode("utf-8", "backslashreplace")
    return "detached@" + head[:7].decode("ascii", "backslashreplace")


def _recordable(context: HookContext, store: Store, paths: list[bytes]) -> list[bytes]:
    """git's paths (relative to the top of the work tree) as stored names; what rewind must
    not record (inside a nested ``.git``) is logged and left out."""
    names = []
    for path in paths:
        try:
            names.append(store.root.stored_name(path, cwd=store.root.path))
        except UserError as error:
            context.log(f"not recorded: {error}")
    return names


def _keep_default_session(store: Store, previous: str | None) -> None:
    """The safety net records in the background: it must not become the session that
    ``rewind log``, ``restore`` and session-less agent events default to."""
    if previous is None or previous == SESSION:
        return
    with store.lock():
        if recent_session(store) == SESSION:
            write_text_atomically(store.state_path("recent"), previous)
