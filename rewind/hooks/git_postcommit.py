"""``rewind hook git-post-commit``: git's post-commit hook, which writes the new commit's
authorship note (rewind.attribution) when ``[attribution] notes = true``.

The hook's script runs it in the background with ``{"commit": SHA}`` (the commit as the hook
saw ``HEAD``: a rebase may have moved on by the time it runs), so a commit never waits for it.
A project without a store has recorded nothing: there is nothing to note.
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
    top = os.path.realpath(work_tree())
    if not os.path.exists(os.path.join(store_dir_for(top), "HEAD")):
        return None
    from rewind.actions.stores import open_store
    from rewind.attribution.notes_writer import note_commit

    store = open_store(top)
    context.store = store
    note_commit(store, top, commit)  # a failure raises: logged, and doctor reports it
    return None
