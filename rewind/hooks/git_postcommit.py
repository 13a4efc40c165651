"""``rewind hook git-post-commit``: git's post-commit hook. The new commit's id becomes a label
(``commit:ID``) of every open turn (the agent's turn that ran ``git commit``, and the pre-commit
hook's turn of the session ``git``), so that ``rewind log`` shows which turn made which commit;
and with ``[attribution] notes = true``, the commit gets its authorship note
(rewind.history.attribution).

The hook's script runs it in the background with ``{"commit": SHA}`` (the commit as the hook
saw ``HEAD``: a rebase may have moved on by the time it runs), so a commit never waits for it;
a cherry-pick adds ``"picked": SHA``, the commit it was picked from, whose note's lines are
carried over. A project without a store has recorded nothing, and has no rewind.toml rewind
read: nothing is done there.
"""

from __future__ import annotations

import os

from rewind.hooks.git_precommit import work_tree
from rewind.store.home import store_dir_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.hooks.context import HookContext
    from rewind.store.repository import Store


def handle(context: HookContext) -> str | None:
    commit = context.text("commit")
    picked = context.text("picked")
    if not is_commit_id(commit) or (picked and not is_commit_id(picked)):
        context.log(f"post-commit: {commit!r} (picked {picked!r}) is not a commit id; ignored")
        return None
    store = project_store(context)
    if store is None:
        return None
    from rewind.history.attribution.commit_prompts import COMMIT_LABEL
    from rewind.history.journal import JOURNAL_DIR, label_open_turns

    label_open_turns(store.state_path(JOURNAL_DIR), COMMIT_LABEL + commit[:12], _recent)
    note(context, store, [(commit, (picked,) if picked else ())], just_made=True)
    return None


# How recently a turn's journal must have been written to for a commit to be taken as made in
# it: the pre-commit hook's turn of the session "git", by that hook a moment before this commit
# (a cherry-pick or a --no-verify commit runs no pre-commit: its turn is an earlier commit's);
# an agent's, by its hooks within the hour (one left open by a killed agent takes nothing).
PRE_COMMIT_AGE = 120.0
AGENT_TURN_AGE = 3600.0


def _recent(journal: str) -> float:
    return PRE_COMMIT_AGE if journal == "git" else AGENT_TURN_AGE


def is_commit_id(word: str) -> bool:
    """Whether ``word`` is a full commit id (SHA-1 or SHA-256, lowercase hex)."""
    return len(word) in (40, 64) and all(c in "0123456789abcdef" for c in word)


def project_store(context: HookContext) -> Store | None:
    """The store of the work tree git runs the hook in; None when rewind has none for it."""
    top = os.path.realpath(work_tree())
    if not os.path.exists(os.path.join(store_dir_for(top), "HEAD")):
        return None
    from rewind.actions.stores import open_store

    store = open_store(top)
    context.store = store
    return store


def note(
    context: HookContext,
    store: Store,
    commits: list[tuple[str, tuple[str, ...]]],
    just_made: bool = False,
) -> None:
    """Notes each commit, from what the project's store recorded and the notes of its sources
    (only with ``[attribution] notes = true``); one that could not be noted is logged (doctor
    reports it), and the others still are."""
    if not store.config.attribution_notes:
        return
    from rewind.history.attribution.git_notes import NotesFailed
    from rewind.history.attribution.notes_writer import note_commit

    for commit, sources in commits:
        try:
            note_commit(store, store.root.path, commit, sources, just_made)
        except NotesFailed as error:
            context.log(f"the authorship note of {commit[:12]} was not written: {error}")
        except Exception as error:  # one commit's failure never costs the others their notes
            context.log(f"the authorship note of {commit[:12]} was not written: {error!r}")
