"""``rewind hook git-post-commit``: git's post-commit hook, which writes the new commit's
authorship note (rewind.attribution) when ``[attribution] notes = true``.

The hook's script runs it in the background with ``{"commit": SHA}`` (the commit as the hook
saw ``HEAD``: a rebase may have moved on by the time it runs), so a commit never waits for it;
a cherry-pick adds ``"picked": SHA``, the commit it was picked from, whose note's lines are
carried over. A project without a store has recorded nothing of its own, but a cherry-pick still
carries the note of the commit it picked.
"""

from __future__ import annotations

import os

from rewind.hooks.git_precommit import work_tree
from rewind.store.home import store_dir_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.hooks.context import HookContext


def handle(context: HookContext) -> str | None:
    commit = context.text("commit") or "HEAD"
    picked = context.text("picked")
    note(context, [(commit, (picked,) if picked else ())])
    return None


def note(context: HookContext, commits: list[tuple[str, tuple[str, ...]]]) -> None:
    """Notes each commit, from what the project's store recorded and the notes of its sources;
    one that could not be noted is logged (doctor reports it), and the others still are."""
    top = os.path.realpath(work_tree())
    if not os.path.exists(os.path.join(store_dir_for(top), "HEAD")):
        return  # no store, so no [attribution] setting rewind could have read: notes are off
    from rewind.actions.stores import open_store
    from rewind.attribution.git_notes import NotesFailed
    from rewind.attribution.notes_writer import note_commit

    store = open_store(top)
    context.store = store
    for commit, sources in commits:
        try:
            note_commit(store, top, commit, sources)
        except NotesFailed as error:
            context.log(f"the authorship note of {commit[:12]} was not written: {error}")
